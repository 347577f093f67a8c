//! The redis workload: a real application's requests over loopback.
//! redis-server and redis-benchmark (Debian's redis-server and redis-tools)
//! are run as they ship; the worker starts a private server on a free
//! loopback port with persistence off, so that the mode's cost on its
//! syscalls (epoll, reads and writes on sockets) is what is measured.

use super::measure::Measured;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The requests redis-benchmark makes, one metric each.
const TESTS: [&str; 2] = ["SET", "GET"];

/// Start redis-server, then run redis-benchmark `batches` times with
/// `requests` requests of each test by `clients` connections; a metric
/// per test in ns per request (1e9 / requests per second), the median of
/// the batches.
pub(super) fn redis(
    dir: &Path,
    requests: u64,
    clients: usize,
    batches: usize,
) -> Result<Vec<Measured>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let port = free_port()?;
    let server = Server::start(dir, port)?;
    server.wait_ready(Duration::from_secs(10))?;
    // A warm-up: connections, the server's allocations, the page cache.
    benchmark(port, requests / 10, clients)?;
    let mut per_test: Vec<(Vec<f64>, f64)> = vec![(Vec::new(), 0.0); TESTS.len()];
    for _ in 0..batches.max(1) {
        let started = Instant::now();
        let rps = benchmark(port, requests, clients)?;
        let secs = started.elapsed().as_secs_f64() / TESTS.len() as f64;
        for (i, r) in rps.into_iter().enumerate() {
            per_test[i].0.push(1e9 / r);
            per_test[i].1 += secs;
        }
    }
    drop(server);
    Ok(TESTS
        .iter()
        .zip(per_test)
        .map(|(test, (b, seconds))| Measured {
            metric: format!("redis {test}"),
            unit: "ns/op".into(),
            value: crate::stats::median(&b),
            ops: requests * b.len() as u64,
            batches: b,
            seconds,
        })
        .collect())
}

/// A loopback port nobody listens on (the kernel picks it; released just
/// before redis-server binds it).
fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("finding a free loopback port: {e}"))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("finding a free loopback port: {e}"))
}

/// A private redis-server, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    log: std::path::PathBuf,
}

impl Server {
    fn start(dir: &Path, port: u16) -> Result<Server, String> {
        let log = dir.join("redis.log");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            // No snapshots or append-only file: the requests' own cost only.
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .args(["--protected-mode", "no", "--loglevel", "warning"])
            .arg("--dir")
            .arg(dir)
            .arg("--logfile")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                format!(
                    "running redis-server: {e} (Debian: apt-get install redis-server redis-tools)"
                )
            })?;
        Ok(Server { child, port, log })
    }

    /// Until it answers PING, or it exits (its log says why), or `limit`.
    fn wait_ready(&self, limit: Duration) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(mut s) = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)) {
                let mut buf = [0u8; 16];
                if s.write_all(b"PING\r\n").is_ok()
                    && s.set_read_timeout(Some(Duration::from_secs(1))).is_ok()
                    && matches!(s.read(&mut buf), Ok(n) if buf[..n].starts_with(b"+PONG"))
                {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        Err(format!(
            "redis-server on port {} did not answer PING within {limit:?}: {}",
            self.port,
            log.lines().last().unwrap_or("(its log is empty)")
        ))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

/// One redis-benchmark run of every test: requests per second of each, in
/// TESTS order.
fn benchmark(port: u16, requests: u64, clients: usize) -> Result<Vec<f64>, String> {
    let out = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["-n", &requests.max(1).to_string()])
        .args(["-c", &clients.to_string()])
        .args(["-t", &TESTS.join(",").to_lowercase(), "--csv"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!("running redis-benchmark: {e} (Debian: apt-get install redis-tools)")
        })?;
    if !out.status.success() {
        return Err(format!(
            "redis-benchmark failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let csv = String::from_utf8_lossy(&out.stdout);
    TESTS
        .iter()
        .map(|t| {
            rps_of(&csv, t).ok_or_else(|| format!("redis-benchmark printed no {t} rate: {csv}"))
        })
        .collect()
}

/// The requests per second of `test` in redis-benchmark's `--csv` output
/// (`"SET","123456.79",...`; a header line first since redis 6.2).
fn rps_of(csv: &str, test: &str) -> Option<f64> {
    csv.lines().find_map(|l| {
        let mut cols = l.split(',').map(|c| c.trim().trim_matches('"'));
        if cols.next()? != test {
            return None;
        }
        cols.next()?.parse::<f64>().ok().filter(|r| *r > 0.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_read_from_both_csv_forms() {
        let new = "\"test\",\"rps\",\"avg_latency_ms\"\n\"SET\",\"98039.22\",\"0.280\"\n\"GET\",\"100000.00\",\"0.262\"\n";
        assert_eq!(rps_of(new, "SET"), Some(98039.22));
        assert_eq!(rps_of(new, "GET"), Some(100000.0));
        assert_eq!(rps_of("\"SET\",\"12.5\"\n", "SET"), Some(12.5));
        assert_eq!(rps_of("\"SET\",\"0\"\n", "SET"), None);
        assert_eq!(rps_of("\"test\",\"rps\"\n", "GET"), None);
    }
}
