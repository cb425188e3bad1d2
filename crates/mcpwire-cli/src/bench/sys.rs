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

/// CPU time (user + system) used so far by process `pid`, exited threads included
/// (`/proc/PID/stat` fields 14 and 15; resolution one clock tick, usually 10 ms, so
/// measure over seconds). `None` when the process is gone or not readable.
pub fn process_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces: fields are counted after its `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state), so field N is at index N - 3.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    let ticks = clock_ticks_per_second();
    Some(Duration::from_micros((utime + stime) * 1_000_000 / ticks))
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
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    wall: std::time::Instant,
    client: Duration,
    server: Option<Duration>,
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
}

impl Meter {
    /// Starts measuring; `server` is the server's pid, if known.
    pub fn start(server: Option<u32>) -> Meter {
        Meter {
            wall: std::time::Instant::now(),
            client: self_cpu(),
            server: server.and_then(process_cpu),
            pid: server,
        }
    }

    /// The usage since [`Meter::start`].
    pub fn stop(&self) -> Usage {
        let wall = self.wall.elapsed();
        let client_cpu = self_cpu().saturating_sub(self.client);
        let server_cpu = match (self.server, self.pid.and_then(process_cpu)) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        Usage { wall, client_cpu, server_cpu }
    }
}
