//! Process accounting from `/proc` and `getrusage`: CPU time and resident memory.

use std::time::Duration;

/// CPU time (user + system) used so far by this process, all threads included.
pub fn self_cpu() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => {
            let user = u.user_time();
            let sys = u.system_time();
            let micros =
                (user.tv_sec() + sys.tv_sec()) as i128 * 1_000_000 + (user.tv_usec() + sys.tv_usec()) as i128;
            Duration::from_micros(micros.max(0) as u64)
        }
        Err(_) => Duration::ZERO,
    }
}

fn clock_ticks_per_second() -> u64 {
    use nix::unistd::{sysconf, SysconfVar};
    match sysconf(SysconfVar::CLK_TCK) {
        Ok(Some(t)) if t > 0 => t as u64,
        _ => 100,
    }
}

/// What `/proc/PID/stat` says of a process so far, exited threads included.
#[derive(Clone, Copy, Debug)]
pub struct ProcessStat {
    /// CPU time, user + system (fields 14 and 15; resolution one clock tick, usually
    /// 10 ms).
    pub cpu: Duration,
    /// Minor page faults (field 10): pages the kernel had to map, and zero, on first
    /// touch. A server whose allocator hands memory back and takes it again between calls
    /// pays them on every call, in system time.
    pub minor_faults: u64,
}

/// [`ProcessStat`] of process `pid`, read in one go; `None` when the process is gone or
/// not readable.
pub fn process_stat(pid: u32) -> Option<ProcessStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces: fields are counted after its `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state), so field N is at index N - 3.
    let minor_faults: u64 = fields.get(7)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    let ticks = clock_ticks_per_second();
    Some(ProcessStat { cpu: Duration::from_micros((utime + stime) * 1_000_000 / ticks), minor_faults })
}

/// Time on CPU of each live thread of `pid`, in nanoseconds (`/proc/PID/task/TID/schedstat`,
/// first field): exact where [`process_stat`] counts whole ticks, which a fast server's
/// short run may not even fill. `None` when it is not readable.
fn thread_cpu(pid: u32) -> Option<Vec<(u32, u64)>> {
    let mut threads = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let Ok(entry) = entry else { continue };
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else { continue };
        // A thread may end between the listing and the read: it is left out.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("schedstat")) else { continue };
        if let Some(nanos) = stat.split_whitespace().next().and_then(|n| n.parse().ok()) {
            threads.push((tid, nanos));
        }
    }
    (!threads.is_empty()).then_some(threads)
}

/// What `pid` used between two [`thread_cpu`] readings: each thread's growth (a thread
/// born in between counts from zero; one that ended in between is lost, so the
/// tick-counted [`process_stat`] is the floor).
fn cpu_between(before: &[(u32, u64)], after: &[(u32, u64)]) -> Duration {
    let grown: u64 = after
        .iter()
        .map(|(tid, now)| {
            let then = before.iter().find(|(t, _)| t == tid).map_or(0, |(_, n)| *n);
            now.saturating_sub(then)
        })
        .sum();
    Duration::from_nanos(grown)
}

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`, ...).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let value = line.strip_prefix(field)?.strip_prefix(':')?;
        value.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

/// Current resident set size of `pid` in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS")
}

/// Peak resident set size ("high water mark") of `pid` in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM")
}

/// A snapshot of wall time and CPU of this process and, if known, the server's.
#[derive(Clone, Debug)]
pub struct Meter {
    wall: std::time::Instant,
    client: Duration,
    server: Option<ProcessStat>,
    server_threads: Option<Vec<(u32, u64)>>,
    pid: Option<u32>,
}

/// What happened between two [`Meter`] snapshots.
#[derive(Clone, Copy, Debug)]
pub struct Usage {
    /// Wall-clock time.
    pub wall: Duration,
    /// CPU time of this (the client) process.
    pub client_cpu: Duration,
    /// CPU time of the server process, when its pid is known.
    pub server_cpu: Option<Duration>,
    /// Minor page faults of the server process, when its pid is known.
    pub server_minor_faults: Option<u64>,
}

impl Meter {
    /// Starts measuring; `server` is the server's pid, if known.
    pub fn start(server: Option<u32>) -> Meter {
        Meter {
            wall: std::time::Instant::now(),
            client: self_cpu(),
            server: server.and_then(process_stat),
            server_threads: server.and_then(thread_cpu),
            pid: server,
        }
    }

    /// The usage since [`Meter::start`]. The server's CPU is its threads' exact time
    /// unless a thread ended meanwhile and the tick count says more.
    pub fn stop(&self) -> Usage {
        let wall = self.wall.elapsed();
        let client_cpu = self_cpu().saturating_sub(self.client);
        let stat = match (self.server, self.pid.and_then(process_stat)) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        let ticks = stat.map(|(a, b)| b.cpu.saturating_sub(a.cpu));
        let exact = match (&self.server_threads, self.pid.and_then(thread_cpu)) {
            (Some(a), Some(b)) => Some(cpu_between(a, &b)),
            _ => None,
        };
        // Ticks are whole: more than a tick above the exact count means time was lost
        // with an ended thread.
        let tick = Duration::from_micros(1_000_000 / clock_ticks_per_second());
        let server_cpu = match (exact, ticks) {
            (Some(exact), Some(ticks)) if ticks > exact + tick => Some(ticks),
            (Some(exact), _) => Some(exact),
            (None, ticks) => ticks,
        };
        let server_minor_faults = stat.map(|(a, b)| b.minor_faults.saturating_sub(a.minor_faults));
        Usage { wall, client_cpu, server_cpu, server_minor_faults }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]

    use super::*;

    #[test]
    fn threads_are_counted_by_their_growth() {
        let before = [(1, 100), (2, 50)];
        let after = [(1, 400), (3, 70)];
        // Thread 1 grew 300, thread 3 is new (70), thread 2 ended (its time is lost).
        assert_eq!(cpu_between(&before, &after), Duration::from_nanos(370));
    }

    /// This thread's CPU time so far.
    fn thread_time() -> Duration {
        use nix::sys::resource::{getrusage, UsageWho};
        let u = getrusage(UsageWho::RUSAGE_THREAD).expect("getrusage(RUSAGE_THREAD)");
        let (user, sys) = (u.user_time(), u.system_time());
        Duration::from_micros(
            ((user.tv_sec() + sys.tv_sec()) * 1_000_000 + user.tv_usec() + sys.tv_usec()) as u64,
        )
    }

    #[test]
    fn this_process_reads_its_own_threads_in_nanoseconds() {
        let me = std::process::id();
        let meter = Meter::start(Some(me));
        // Spins for 30 ms of this thread's CPU time, not of wall time: on a busy machine
        // 30 ms of wall time can hold far less CPU.
        let spun = thread_time();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while thread_time() - spun < Duration::from_millis(30) {
            assert!(std::time::Instant::now() < deadline, "this thread never got 30 ms of CPU");
        }
        let usage = meter.stop();
        let used = usage.server_cpu.expect("own /proc is readable");
        // At least what this thread spun (other tests' threads may add to it); at most what
        // every core could give in the time (a unit error would be 1,000x off).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        let most = usage.wall * cores + Duration::from_millis(100);
        assert!(used >= Duration::from_millis(25) && used <= most, "{used:?} in {:?}", usage.wall);
        assert!(thread_cpu(me).is_some_and(|t| t.iter().any(|(tid, _)| *tid == me)));
    }

    /// Pages touched for the first time are counted as the server's minor faults.
    #[test]
    fn fresh_pages_are_counted_as_minor_faults() {
        let me = std::process::id();
        let meter = Meter::start(Some(me));
        // 64 MiB, which glibc maps afresh whatever it kept from earlier tests (past the
        // 32 MiB its mmap threshold can rise to), each page touched once: 16,384 faults,
        // or 32 with transparent huge pages.
        let mut fresh = vec![0u8; 64 << 20];
        for page in fresh.chunks_mut(4096) {
            page[0] = 1;
        }
        std::hint::black_box(&fresh);
        let faults = meter.stop().server_minor_faults.expect("own /proc is readable");
        assert!(faults >= 16, "{faults} minor faults for 64 MiB of fresh pages");
    }
}
