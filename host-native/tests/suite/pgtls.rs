//! TLS to the PostgreSQL store (`sslmode`, `sslrootcert`: src/pgtls.rs), against a private
//! server with a certificate for `localhost` issued by a test authority: `verify-full` works
//! with that authority given and fails without it and under another host name; `verify-ca`
//! ignores the name but not the authority; `require` and `prefer` encrypt without checking;
//! `disable` does not encrypt; `require` fails against a server without TLS. Whether a
//! session is encrypted is read from the server's `pg_stat_ssl`.

use crate::common::pg::Cluster;

use std::path::Path;
use std::process::{Command, Output};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

/// A certificate authority and a server certificate it issued for `localhost` only.
struct Pki {
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

fn authority(name: &str) -> (CertificateParams, KeyPair) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    (params, KeyPair::generate().unwrap())
}

fn pki() -> Pki {
    let (ca_params, ca_key) = authority("mcp-memory test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    Pki {
        ca_pem: ca_cert.pem(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    }
}

/// `mcp-memory --store <url> export`, with a home of its own (no `~/.postgresql/root.crt`).
fn export(home: &Path, url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .env_remove("MCP_MEMORY_STORE")
        .env("HOME", home)
        .args(["--store", url, "export"])
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Whether the store's sessions that are open while `url` is served over stdio are encrypted
/// (every `mcp-memory` session on the server, as `pg_stat_ssl` reports it).
fn encrypted_while_served(cluster: &Cluster, home: &Path, url: &str) -> Vec<bool> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .env_remove("MCP_MEMORY_STORE")
        .env("HOME", home)
        .args(["--store", url])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = crate::common::initialize(0);
    let create = crate::common::call(
        1,
        "create_entities",
        serde_json::json!({"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}),
    );
    writeln!(stdin, "{init}\n{create}").unwrap();
    let mut line = String::new();
    for _ in 0..2 {
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains("\"result\""), "{line}");
    }
    let rows = cluster
        .client()
        .query(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
             WHERE a.application_name = 'mcp-memory'",
            &[],
        )
        .unwrap();
    drop(stdin);
    child.wait().unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

#[test]
fn sslmode_and_sslrootcert_secure_the_store_as_libpq_would() {
    let pki = pki();
    let Some(cluster) = Cluster::start_tls(&pki.cert_pem, &pki.key_pem) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    let (other_ca, other_key) = authority("another CA");
    let other = dir.path().join("other-ca.pem");
    std::fs::write(&other, other_ca.self_signed(&other_key).unwrap().pem()).unwrap();
    let port = cluster.port();
    let url = |host: &str, query: &str| {
        format!("postgres://postgres@{host}:{port}/postgres?memory=tls&{query}")
    };
    let (ca, other) = (ca.display(), other.display());

    // (host, query, None if it connects, else what its error says)
    let cases = [
        (
            "localhost",
            format!("sslmode=verify-full&sslrootcert={ca}"),
            None,
        ),
        (
            "localhost",
            "sslmode=verify-full".to_string(),
            Some("UnknownIssuer"),
        ),
        (
            "127.0.0.1",
            format!("sslmode=verify-full&sslrootcert={ca}"),
            Some("not valid for name"),
        ),
        (
            "127.0.0.1",
            format!("sslmode=verify-ca&sslrootcert={ca}"),
            None,
        ),
        (
            "127.0.0.1",
            format!("sslmode=verify-ca&sslrootcert={other}"),
            Some("UnknownIssuer"),
        ),
        // require with a root file checks the chain, as libpq does.
        (
            "127.0.0.1",
            format!("sslmode=require&sslrootcert={other}"),
            Some("UnknownIssuer"),
        ),
        ("127.0.0.1", "sslmode=require".to_string(), None),
    ];
    for (host, query, refusal) in cases {
        let out = export(dir.path(), &url(host, &query));
        let err = stderr(&out);
        match refusal {
            None => assert!(out.status.success(), "{host} {query}: {err}"),
            Some(why) => {
                assert!(!out.status.success(), "{host} {query} must fail");
                let named = format!("cannot connect to postgres://{host}:{port}/postgres");
                assert!(
                    err.contains(&named) && err.contains(why),
                    "{host} {query}: {err}"
                );
            }
        }
    }

    for (query, encrypted) in [
        ("sslmode=require", true),
        ("", true),
        ("sslmode=disable", false),
    ] {
        let seen = encrypted_while_served(&cluster, dir.path(), &url("127.0.0.1", query));
        assert!(!seen.is_empty(), "{query:?}: no session seen");
        assert!(seen.iter().all(|&s| s == encrypted), "{query:?}: {seen:?}");
    }
}

#[test]
fn require_fails_against_a_server_without_tls_and_prefer_falls_back() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let url = |query: &str| {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?memory=plain&{query}",
            cluster.port()
        )
    };
    let out = export(dir.path(), &url("sslmode=require"));
    assert!(
        !out.status.success(),
        "require against a server without TLS must fail"
    );
    assert!(stderr(&out).contains("TLS"), "{}", stderr(&out));
    let out = export(dir.path(), &url("sslmode=prefer"));
    assert!(out.status.success(), "{}", stderr(&out));
}
