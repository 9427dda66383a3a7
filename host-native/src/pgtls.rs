//! TLS to PostgreSQL, as libpq's `sslmode` and `sslrootcert` ask for it (rustls).
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | if the server offers it | not checked |
//! | `require` | always | not checked, unless a root certificate file is given or at `~/.postgresql/root.crt` (then as `verify-ca`, as libpq does) |
//! | `verify-ca` | always | signed by a root |
//! | `verify-full` | always | signed by a root, and issued for the host connected to |
//!
//! Roots: `sslrootcert=PATH` (PEM; `~` is the home directory), else `~/.postgresql/root.crt`
//! if it exists (libpq's default), else, or with `sslrootcert=system`, the system's roots.
//! Client certificates (`sslcert`, `sslkey`) are not supported and refused by name.

use std::path::PathBuf;
use std::sync::Arc;

use postgres::config::SslMode;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// What the address asks of the connection's security (`sslmode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// Where the roots come from (`sslrootcert`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    /// A PEM file.
    File(PathBuf),
    /// The system's certificate store.
    System,
}

/// The TLS settings of a store address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    pub mode: Mode,
    /// Given with `sslrootcert`; otherwise found as libpq finds it.
    pub roots: Option<Roots>,
}

impl Tls {
    /// Reads the TLS parameters among an address's query pairs (`name=value`, the value
    /// percent-encoded); returns the settings and the pairs that are not about TLS.
    pub fn from_query<'a>(
        pairs: impl Iterator<Item = &'a str>,
    ) -> Result<(Tls, Vec<&'a str>), String> {
        let mut tls = Tls {
            mode: Mode::Prefer,
            roots: None,
        };
        let mut rest = Vec::new();
        for pair in pairs {
            let (name, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_encoding::percent_decode_str(raw)
                .decode_utf8()
                .map_err(|e| format!("{name}: {e}"))?
                .into_owned();
            match name {
                "sslmode" => {
                    tls.mode = match value.as_str() {
                        "disable" => Mode::Disable,
                        "prefer" | "allow" => Mode::Prefer,
                        "require" => Mode::Require,
                        "verify-ca" => Mode::VerifyCa,
                        "verify-full" => Mode::VerifyFull,
                        other => {
                            return Err(format!(
                                "sslmode={other}: use disable, prefer, require, verify-ca or verify-full"
                            ));
                        }
                    }
                }
                "sslrootcert" if value == "system" => tls.roots = Some(Roots::System),
                "sslrootcert" => {
                    let path = crate::config::user_path(value.as_ref())
                        .map_err(|e| format!("sslrootcert={value}: {e:#}"))?;
                    tls.roots = Some(Roots::File(path));
                }
                "sslcert" | "sslkey" | "sslpassword" => {
                    return Err(format!(
                        "{name}: client certificates are not supported; authenticate with a password"
                    ));
                }
                _ => rest.push(pair),
            }
        }
        Ok((tls, rest))
    }

    /// The client library's own setting: whether TLS is tried, and whether it must succeed.
    pub fn ssl_mode(&self) -> SslMode {
        match self.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }

    /// The rustls configuration these settings make (its roots read now, so a start with an
    /// unreadable root file fails at once, naming it).
    pub fn client_config(&self) -> Result<Arc<ClientConfig>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = self.roots.clone().or_else(|| {
            let default = dirs::home_dir()?.join(".postgresql").join("root.crt");
            default.exists().then_some(Roots::File(default))
        });
        let verify = match (self.mode, &roots) {
            (Mode::VerifyFull, _) => Some(true),
            (Mode::VerifyCa, _) | (Mode::Require, Some(Roots::File(_))) => Some(false),
            _ => None,
        };
        let chain = match verify {
            None => None,
            Some(name_too) => {
                let store = Arc::new(root_store(roots.as_ref().unwrap_or(&Roots::System))?);
                let webpki =
                    WebPkiServerVerifier::builder_with_provider(store, Arc::clone(&provider))
                        .build()
                        .map_err(|e| format!("cannot use the root certificates: {e}"))?;
                Some((webpki, name_too))
            }
        };
        let verifier = Arc::new(Check {
            provider: Arc::clone(&provider),
            chain,
        });
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(Arc::new(config))
    }
}

/// The connector `postgres` connects through.
pub fn connector(config: &Arc<ClientConfig>) -> MakeRustlsConnect {
    MakeRustlsConnect::new(ClientConfig::clone(config))
}

fn root_store(roots: &Roots) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::File(path) => {
            let shown = path.display();
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("sslrootcert {shown}: {e}"))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("sslrootcert {shown}: {e}"))?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(format!("sslrootcert {shown}: no certificate in it"));
            }
        }
        Roots::System => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                return Err(format!(
                    "no system root certificates found ({:?}); give sslrootcert=PATH",
                    found.errors
                ));
            }
        }
    }
    Ok(store)
}

/// The check of the server's certificate `sslmode` asks for; the handshake's signatures are
/// checked against the certificate in every mode.
#[derive(Debug)]
struct Check {
    provider: Arc<CryptoProvider>,
    /// `verify-ca` and `verify-full`: the chain must lead to a root, and (`true`) the
    /// certificate must name the host. `None` (`prefer`, `require`): taken as it comes.
    chain: Option<(Arc<WebPkiServerVerifier>, bool)>,
}

impl ServerCertVerifier for Check {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some((webpki, name_too)) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !name_too => Ok(ServerCertVerified::assertion()),
            checked => checked,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &str) -> Result<Tls, String> {
        Tls::from_query(query.split('&')).map(|(tls, _)| tls)
    }

    #[test]
    fn sslmode_reads_as_libpq_reads_it_and_other_parameters_pass_through() {
        let query = "sslmode=verify-full&application_name=x&sslrootcert=/my%20certs/ca.pem";
        let (tls, rest) = Tls::from_query(query.split('&')).unwrap();
        assert_eq!(tls.mode, Mode::VerifyFull);
        assert_eq!(tls.ssl_mode(), SslMode::Require);
        assert_eq!(tls.roots, Some(Roots::File("/my certs/ca.pem".into())));
        assert_eq!(rest, ["application_name=x"]);
        assert_eq!(parse("").unwrap().mode, Mode::Prefer);
        assert_eq!(
            parse("sslmode=disable").unwrap().ssl_mode(),
            SslMode::Disable
        );
        assert_eq!(
            parse("sslrootcert=system").unwrap().roots,
            Some(Roots::System)
        );
    }

    #[test]
    fn unknown_modes_and_client_certificates_are_refused_by_name() {
        let err = parse("sslmode=verify").unwrap_err();
        assert!(
            err.contains("sslmode=verify") && err.contains("verify-full"),
            "{err}"
        );
        let err = parse("sslcert=/c.pem").unwrap_err();
        assert!(err.starts_with("sslcert: client certificates"), "{err}");
    }

    #[test]
    fn a_root_file_that_cannot_be_used_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.pem");
        let tls = |path: &std::path::Path| Tls {
            mode: Mode::VerifyFull,
            roots: Some(Roots::File(path.to_path_buf())),
        };
        let err = tls(&missing).client_config().unwrap_err();
        assert!(err.contains("none.pem"), "{err}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let err = tls(&empty).client_config().unwrap_err();
        assert!(err.contains("empty.pem: no certificate"), "{err}");
    }
}
