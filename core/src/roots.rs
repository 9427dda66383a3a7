//! The names of workspace roots' memories (`--scope roots`, [`crate::mcp::roots`]), the
//! same in every host so that hosts find each other's: a root's path from the `file://` URI
//! a client lists, and the name its memory goes by among others.

use alloc::format;
use alloc::string::{String, ToString};

/// The directory inside a root that, when it exists, holds the root's memory.
pub const ROOT_DIR: &str = ".mcp-memory";

/// The memory file's name in [`ROOT_DIR`].
pub const ROOT_FILE: &str = "memory.mcpmem";

/// The directory, beside the memory a server was started on, of the memories of roots that
/// keep none of their own: each is [`file_name`].
pub const DATA_DIR: &str = "roots";

/// The local path a `file://` URI names (percent-decoded; `file:///C:/x` is `C:/x`), or
/// `None` for another scheme or a remote host.
pub fn path_of(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let path = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()?
        .into_owned();
    let drive = path.as_bytes().get(2) == Some(&b':');
    let path = if drive { path[1..].to_string() } else { path };
    let trimmed = path.trim_end_matches('/');
    Some(if trimmed.is_empty() {
        path
    } else {
        trimmed.to_string()
    })
}

/// The name a root's memory goes by among others (a file in a host's data directory, a
/// memory of the PostgreSQL store): the root's last path component (letters, digits, `-`,
/// `_` and `.`, others dropped; at most 24) and 16 hex digits of the FNV-1a hash of its path.
pub fn key(path: &str) -> String {
    let last = path
        .rsplit(['/', '\\'])
        .find(|c| !c.is_empty())
        .unwrap_or("root");
    let label: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(24)
        .collect();
    let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let label = label.trim_start_matches('.');
    if label.is_empty() {
        format!("{hash:016x}")
    } else {
        format!("{label}-{hash:016x}")
    }
}

/// Where a host may keep the memory of a workspace root.
#[derive(Debug, PartialEq, Eq)]
pub struct Places {
    /// `<root>/.mcp-memory`: if this directory exists, the root keeps its memory in it…
    pub inside_dir: String,
    /// …as this file.
    pub inside_file: String,
    /// Otherwise, this file, relative to the directory of the memory the server started on.
    pub beside: String,
    /// The name the root's memory goes by among others ([`key`]): a store's memory's suffix.
    pub key: String,
}

/// Where the memory of the root a client listed as `uri` may be; `Err` (the words for the
/// user) if the URI names no local directory.
pub fn places(uri: &str) -> Result<Places, String> {
    let path = path_of(uri).ok_or_else(|| format!("{uri}: not a local file:// root"))?;
    let inside_dir = format!("{}/{ROOT_DIR}", path.trim_end_matches('/'));
    Ok(Places {
        inside_file: format!("{inside_dir}/{ROOT_FILE}"),
        inside_dir,
        beside: format!("{DATA_DIR}/{}", file_name(&path)),
        key: key(&path),
    })
}

/// The memory file name of the root at `path` in [`DATA_DIR`].
pub fn file_name(path: &str) -> String {
    format!("{}.mcpmem", key(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_name_local_paths() {
        assert_eq!(
            path_of("file:///home/ada/proj").as_deref(),
            Some("/home/ada/proj")
        );
        assert_eq!(
            path_of("file:///home/ada/my%20proj/").as_deref(),
            Some("/home/ada/my proj")
        );
        assert_eq!(path_of("file://localhost/srv").as_deref(), Some("/srv"));
        assert_eq!(
            path_of("file:///C:/Users/ada").as_deref(),
            Some("C:/Users/ada")
        );
        assert_eq!(path_of("file:///").as_deref(), Some("/"));
        assert_eq!(path_of("file://server/share"), None);
        assert_eq!(path_of("https://example.com/x"), None);
    }

    #[test]
    fn a_root_keeps_its_memory_inside_or_beside() {
        let p = places("file:///home/ada/proj").unwrap();
        assert_eq!(p.inside_dir, "/home/ada/proj/.mcp-memory");
        assert_eq!(p.inside_file, "/home/ada/proj/.mcp-memory/memory.mcpmem");
        assert_eq!(p.beside, "roots/proj-4d38df16fd1c3a44.mcpmem");
        assert_eq!(p.key, "proj-4d38df16fd1c3a44");
        assert_eq!(places("file:///").unwrap().inside_dir, "/.mcp-memory");
        assert_eq!(
            places("https://x/y"),
            Err("https://x/y: not a local file:// root".to_string())
        );
    }

    #[test]
    fn keys_are_readable_distinct_and_stable() {
        // Frozen (FNV-1a 64, checked with another implementation): hosts find each
        // other's memories by these names.
        assert_eq!(key("/home/ada/proj"), "proj-4d38df16fd1c3a44");
        assert_ne!(key("/a/proj"), key("/b/proj"));
        assert_eq!(key("/"), "root-af63a24c860189fe");
        assert!(key("/x/ünïcode name!").starts_with("ncodename-"));
        assert!(key("/x/.hidden").starts_with("hidden-"));
    }
}
