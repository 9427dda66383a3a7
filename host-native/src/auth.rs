//! Who may connect over the network: the bearer token (from a flag, a file or the
//! environment), checked in constant time, and the rule that a server reachable from other
//! machines needs one.

use std::net::SocketAddr;
use std::path::Path;

use anyhow::{Context, Result, bail};
use subtle::ConstantTimeEq;

/// The environment variable holding the token.
pub const TOKEN_ENV: &str = "MCP_MEMORY_AUTH_TOKEN";

/// The secret clients present (`Authorization: Bearer <token>`).
pub struct Token(String);

impl Token {
    /// The token from `--auth-token`, else `--auth-token-file` (trimmed; an empty file is an
    /// error), else the environment variable's value (if not empty).
    pub fn resolve(
        flag: Option<&str>,
        file: Option<&Path>,
        env: Option<String>,
    ) -> Result<Option<Token>> {
        if let Some(token) = flag {
            return Token::new(token).map(Some).context("--auth-token is empty");
        }
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the token file {}", path.display()))?;
            return Token::new(text.trim())
                .map(Some)
                .with_context(|| format!("the token file {} is empty", path.display()));
        }
        Ok(env.as_deref().and_then(Token::new))
    }

    /// A token, unless `token` is empty.
    pub fn new(token: &str) -> Option<Token> {
        (!token.is_empty()).then(|| Token(token.to_string()))
    }

    /// Whether `presented` is the token; takes the same time wherever they differ.
    pub fn matches(&self, presented: &str) -> bool {
        self.0.as_bytes().ct_eq(presented.as_bytes()).into()
    }

    /// Whether an `Authorization` header value carries the token (`Bearer <token>`, the
    /// scheme in any case).
    pub fn authorizes(&self, header: &str) -> bool {
        match header.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
                self.matches(token.trim())
            }
            _ => false,
        }
    }
}

/// The named memories a file lists with their tokens: one `NAME TOKEN` per line (blank
/// lines and `#` comments skipped); each name is a valid memory name, listed once.
pub fn memory_tokens(path: &Path) -> Result<Vec<(String, Token)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the memories file {}", path.display()))?;
    let mut memories: Vec<(String, Token)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{} line {}", path.display(), n + 1);
        let mut fields = line.split_whitespace();
        let (Some(name), Some(token), None) = (fields.next(), fields.next(), fields.next()) else {
            bail!("{}: expected `NAME TOKEN`", at());
        };
        crate::pglog::check_name(name).map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        if memories.iter().any(|(n, _)| n == name) {
            bail!("{}: the memory {name} is listed twice", at());
        }
        let token = Token::new(token).context("a token is not empty")?;
        memories.push((name.to_string(), token));
    }
    Ok(memories)
}

/// Refuses to listen where other machines can connect without a token, unless the user
/// said so (`--allow-unauthenticated`).
pub fn check_exposure(addr: SocketAddr, token: Option<&Token>, allow: bool) -> Result<()> {
    if token.is_none() && !addr.ip().is_loopback() && !allow {
        bail!(
            "refusing to serve on {addr} without a token: other machines could read and change the memory. \
Set --auth-token-file (or {TOKEN_ENV}), bind a loopback address, or pass --allow-unauthenticated"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_header_must_carry_the_exact_token() {
        let token = Token::new("s3cret").unwrap();
        assert!(token.authorizes("Bearer s3cret"));
        assert!(token.authorizes("bearer s3cret"));
        assert!(!token.authorizes("Bearer s3cre"));
        assert!(!token.authorizes("Bearer s3cret2"));
        assert!(!token.authorizes("Basic s3cret"));
        assert!(!token.authorizes("s3cret"));
        assert!(!token.authorizes("Bearer "));
    }

    #[test]
    fn flag_beats_file_beats_environment_and_empty_is_refused_or_unset() {
        let dir = std::env::temp_dir().join(format!("mcp-memory-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "  from-file\n").unwrap();
        let env = Some("from-env".to_string());
        let got = |flag, file: Option<&Path>, env: Option<String>| {
            Token::resolve(flag, file, env).unwrap().map(|t| t.0)
        };
        assert_eq!(
            got(Some("flag"), Some(&file), env.clone()).as_deref(),
            Some("flag")
        );
        assert_eq!(
            got(None, Some(&file), env.clone()).as_deref(),
            Some("from-file")
        );
        assert_eq!(got(None, None, env).as_deref(), Some("from-env"));
        assert_eq!(got(None, None, Some(String::new())), None);
        std::fs::write(&file, " \n").unwrap();
        let err = Token::resolve(None, Some(&file), None).err().unwrap();
        assert!(format!("{err:#}").contains("is empty"), "{err:#}");
        assert!(Token::resolve(Some(""), None, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn non_loopback_without_token_is_refused_unless_allowed() {
        let public: SocketAddr = "0.0.0.0:1".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let token = Token::new("t").unwrap();
        assert!(check_exposure(public, None, false).is_err());
        assert!(check_exposure(public, None, true).is_ok());
        assert!(check_exposure(public, Some(&token), false).is_ok());
        assert!(check_exposure(local, None, false).is_ok());
        let v6: SocketAddr = "[::1]:1".parse().unwrap();
        assert!(check_exposure(v6, None, false).is_ok());
    }
}
