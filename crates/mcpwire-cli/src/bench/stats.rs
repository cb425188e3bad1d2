//! Latency samples and their percentiles.

use serde::{Deserialize, Serialize};

use super::progress::CallCounter;

/// Latency percentiles of a run, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Slowest call.
    pub max_us: f64,
    /// Mean.
    pub mean_us: f64,
}

/// Calls slower than this count as stalls (the Nagle + delayed-ACK signature).
pub const STALL_NANOS: u64 = 40_000_000;

/// Collected latencies in nanoseconds.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    nanos: Vec<u64>,
    /// Advanced by every [`push`](Samples::push); a detached counter (nothing reads it)
    /// unless built with [`counting`](Samples::counting).
    calls: CallCounter,
}

impl Samples {
    /// An empty set with room for `n` samples, counted nowhere (warm-up calls, merged sets).
    pub fn with_capacity(n: usize) -> Self {
        Samples::counting(n, &CallCounter::default())
    }

    /// An empty set with room for `n` samples that counts each one into `calls` (the
    /// progress bar's counter).
    pub fn counting(n: usize, calls: &CallCounter) -> Self {
        Samples { nanos: Vec::with_capacity(n), calls: calls.clone() }
    }

    /// Records one latency (and counts the call).
    #[inline]
    pub fn push(&mut self, d: std::time::Duration) {
        self.calls.tick();
        self.nanos.push(d.as_nanos() as u64);
    }

    /// Adds another set (its calls were counted when they were pushed).
    pub fn merge(&mut self, other: Samples) {
        self.nanos.extend(other.nanos);
    }

    /// How many samples.
    pub fn len(&self) -> usize {
        self.nanos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.nanos.is_empty()
    }

    /// Calls of at least [`STALL_NANOS`].
    pub fn stalls(&self) -> u64 {
        self.nanos.iter().filter(|n| **n >= STALL_NANOS).count() as u64
    }

    /// The percentiles (nearest rank).
    pub fn latency(&mut self) -> Latency {
        if self.nanos.is_empty() {
            return Latency::default();
        }
        self.nanos.sort_unstable();
        let n = self.nanos.len();
        let at = |q: f64| {
            let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
            self.nanos[rank - 1] as f64 / 1000.0
        };
        let sum: u128 = self.nanos.iter().map(|x| *x as u128).sum();
        Latency {
            p50_us: at(0.50),
            p90_us: at(0.90),
            p99_us: at(0.99),
            max_us: self.nanos[n - 1] as f64 / 1000.0,
            mean_us: sum as f64 / n as f64 / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn nearest_rank_percentiles() {
        let mut s = Samples::default();
        for i in 1..=100 {
            s.push(Duration::from_micros(i));
        }
        let l = s.latency();
        assert_eq!(l.p50_us, 50.0);
        assert_eq!(l.p90_us, 90.0);
        assert_eq!(l.p99_us, 99.0);
        assert_eq!(l.max_us, 100.0);
        assert_eq!(s.stalls(), 0);
    }

    #[test]
    fn pushes_advance_the_counter_the_samples_were_built_with() {
        let (counted, other) = (CallCounter::default(), CallCounter::default());
        let mut s = Samples::counting(4, &counted);
        s.push(Duration::from_micros(1));
        s.push(Duration::from_micros(2));
        let mut detached = Samples::with_capacity(1);
        detached.push(Duration::from_micros(3));
        s.merge(detached);
        assert_eq!((s.len(), counted.get(), other.get()), (3, 2, 0));
    }
}
