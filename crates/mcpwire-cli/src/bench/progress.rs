//! A progress bar on stderr while a workload runs, drawn only when stderr is a terminal
//! (a log file or a pipe gets nothing).
//!
//! The drivers do not call into this module: every measured call is counted where its
//! latency is recorded ([`Samples::push`](super::stats::Samples::push)), with one relaxed
//! atomic add on the [`CallCounter`] the run gave it, and a drawing thread reads that
//! counter five times a second. Each workload has its own counter, so two benches in one
//! process draw their own counts.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The measured calls of one workload: the drivers' [`Samples`](super::stats::Samples)
/// count into it and its [`Bar`] reads it. Clones share the count, so the driver's
/// threads and tasks and the drawing thread see one number.
#[derive(Clone, Debug, Default)]
pub struct CallCounter(Arc<AtomicU64>);

impl CallCounter {
    /// Counts one measured call.
    #[inline]
    pub(crate) fn tick(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The calls counted so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// How far along a workload is measured.
#[derive(Clone, Copy, Debug)]
pub enum Goal {
    /// A number of calls.
    Calls(u64),
    /// A duration (the concurrent HTTP run; its warm-up calls count too).
    Time(Duration),
}

/// A bar being drawn; dropping it stops the drawing and erases it.
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Width of the bar itself, in characters.
const WIDTH: usize = 30;

impl Bar {
    /// Starts drawing `label`'s progress towards `goal`, counted by `calls` from now on,
    /// if `enabled` and stderr is a terminal.
    pub fn start(label: String, goal: Goal, enabled: bool, calls: &CallCounter) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        if !enabled || !std::io::stderr().is_terminal() {
            return Bar { stop, thread: None };
        }
        let (flag, calls) = (stop.clone(), calls.clone());
        let base = calls.get();
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name("bench-progress".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    let done = calls.get().saturating_sub(base);
                    draw(&label, goal, done, started.elapsed());
                    std::thread::sleep(Duration::from_millis(200));
                }
                // Erase the line: the summary follows.
                let _ = write!(std::io::stderr(), "\r{:width$}\r", "", width = WIDTH + 70);
            })
            .ok();
        Bar { stop, thread }
    }

    fn stop_thread(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// The fraction done, in `0.0..=1.0`.
fn fraction(goal: Goal, done: u64, elapsed: Duration) -> f64 {
    let f = match goal {
        Goal::Calls(total) => done as f64 / total.max(1) as f64,
        Goal::Time(total) => elapsed.as_secs_f64() / total.as_secs_f64().max(1e-3),
    };
    f.clamp(0.0, 1.0)
}

/// One line of the bar: `label [#####.....] 48% 12345 calls 1.2 s`.
fn render(label: &str, goal: Goal, done: u64, elapsed: Duration) -> String {
    let f = fraction(goal, done, elapsed);
    let filled = (f * WIDTH as f64).round() as usize;
    format!(
        "{label:<28.28} [{}{}] {:>3.0}% {done:>9} calls {:>6.1} s",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        f * 100.0,
        elapsed.as_secs_f64()
    )
}

fn draw(label: &str, goal: Goal, done: u64, elapsed: Duration) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r{}", render(label, goal, done, elapsed));
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_fraction_done() {
        let line = render("sequential n=100", Goal::Calls(100), 50, Duration::from_secs(1));
        assert!(line.contains(&format!("[{}{}]", "#".repeat(15), ".".repeat(15))), "{line}");
        assert!(line.contains(" 50%") && line.contains("50 calls") && line.contains("1.0 s"), "{line}");
        let line = render("c=32", Goal::Time(Duration::from_secs(4)), 7, Duration::from_secs(8));
        assert!(line.contains(&format!("[{}]", "#".repeat(WIDTH))) && line.contains("100%"), "{line}");
    }

    #[test]
    fn counters_are_independent_and_clones_share_one() {
        let (a, b) = (CallCounter::default(), CallCounter::default());
        let a2 = a.clone();
        a.tick();
        a2.tick();
        b.tick();
        assert_eq!((a.get(), a2.get(), b.get()), (2, 2, 1));
    }
}
