//! A private PostgreSQL server for a test: initialized in a temporary directory from the
//! machine's PostgreSQL binaries (Debian's `postgresql` package: /usr/lib/postgresql/*/bin,
//! or $MCP_MEMORY_PG_BIN), listening on a free loopback port, stopped when dropped. As root
//! it runs as the `postgres` user (PostgreSQL refuses to run as root).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set (by tests/run) when a missing PostgreSQL must fail the tests instead of skipping them.
const REQUIRED: &str = "MCP_MEMORY_REQUIRE_PG";

/// A running PostgreSQL server.
pub struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    /// Server settings beyond the defaults (`-c name=value …`).
    settings: String,
}

fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MCP_MEMORY_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort();
    found.pop()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

impl Cluster {
    /// Starts a server, or returns `None` (after saying so) when PostgreSQL is not installed
    /// and not required.
    pub fn start() -> Option<Cluster> {
        Cluster::start_with(None)
    }

    /// [`Cluster::start`] with TLS on: this certificate chain and key (PEM).
    pub fn start_tls(cert: &str, key: &str) -> Option<Cluster> {
        Cluster::start_with(Some((cert, key)))
    }

    fn start_with(tls: Option<(&str, &str)>) -> Option<Cluster> {
        let Some(bin) = bin_dir() else {
            assert!(
                std::env::var_os(REQUIRED).is_none(),
                "PostgreSQL is required (${REQUIRED}) but not installed: apt-get install postgresql"
            );
            eprintln!("skipped: no PostgreSQL installed (apt-get install postgresql)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut settings = String::new();
        if let Some((cert, key)) = tls {
            let (cert_file, key_file) =
                (dir.path().join("server.crt"), dir.path().join("server.key"));
            std::fs::write(&cert_file, cert).unwrap();
            std::fs::write(&key_file, key).unwrap();
            // The server refuses a key others can read.
            std::fs::set_permissions(
                &key_file,
                std::os::unix::fs::PermissionsExt::from_mode(0o600),
            )
            .unwrap();
            settings = format!(
                " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                cert_file.display(),
                key_file.display()
            );
        }
        if is_root() {
            let chown = Command::new("chown")
                .args(["-R", "postgres"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(chown.success(), "chown to the postgres user");
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let cluster = Cluster {
            bin,
            dir,
            port,
            settings,
        };
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        cluster.pg_ctl(&["start", "-w", "-l", &cluster.log_file()]);
        Some(cluster)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn log_file(&self) -> String {
        self.dir.path().join("server.log").display().to_string()
    }

    /// Runs one of the server's programs, as the `postgres` user when root.
    fn run(&self, program: &str, args: &[&str]) {
        let out = self.output(program, args);
        assert!(
            out.status.success(),
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn output(&self, program: &str, args: &[&str]) -> std::process::Output {
        let path = self.bin.join(program);
        let mut cmd = if is_root() {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", "postgres", "--"]).arg(&path);
            cmd
        } else {
            Command::new(&path)
        };
        cmd.args(args).current_dir(Path::new("/")).output().unwrap()
    }

    fn pg_ctl_args(&self, args: &[&str]) -> Vec<String> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off{}",
            self.port,
            self.dir.path().display(),
            self.settings
        );
        let mut all = vec!["-D".to_string(), self.data(), "-o".to_string(), options];
        all.extend(args.iter().map(|a| a.to_string()));
        all
    }

    fn pg_ctl(&self, args: &[&str]) {
        let all = self.pg_ctl_args(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        self.run("pg_ctl", &all);
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address of `memory` in this server's database.
    pub fn url(&self, memory: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?memory={memory}",
            self.port
        )
    }

    /// Stops the server (clients are disconnected, as by a crash or an administrator).
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-w", "-m", "fast"]);
    }

    /// Starts the stopped server again on the same port and data.
    pub fn start_again(&self) {
        self.pg_ctl(&["start", "-w", "-l", &self.log_file()]);
    }

    /// Stops every process of the server with SIGSTOP (a server frozen mid-work: its
    /// kernel still takes what clients send), or with `SIGCONT` lets them go on.
    pub fn signal(&self, signal: i32) {
        let pid_file = self.dir.path().join("data").join("postmaster.pid");
        let Ok(text) = std::fs::read_to_string(pid_file) else {
            return;
        };
        let Some(postmaster) = text
            .lines()
            .next()
            .and_then(|l| l.trim().parse::<i32>().ok())
        else {
            return;
        };
        let parent_of = |pid: &str| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`: the name may hold spaces, not a `)`.
            stat.rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse::<i32>()
                .ok()
        };
        let children: Vec<i32> = (std::fs::read_dir("/proc").unwrap())
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|pid| parent_of(pid) == Some(postmaster))
            .filter_map(|pid| pid.parse().ok())
            .collect();
        for pid in std::iter::once(postmaster).chain(children) {
            // SAFETY: signals a process of this test's own server.
            unsafe { libc::kill(pid, signal) };
        }
    }

    /// A client session on the database, for looking at the rows.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(
            &format!(
                "host=127.0.0.1 port={} user=postgres dbname=postgres",
                self.port
            ),
            postgres::NoTls,
        )
        .unwrap()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // A test that failed with the server stopped must not leave it stopped.
        self.signal(libc::SIGCONT);
        let all = self.pg_ctl_args(&["stop", "-m", "immediate"]);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let _ = self.output("pg_ctl", &all);
    }
}
