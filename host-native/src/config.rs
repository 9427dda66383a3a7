//! Where the memory file is: `-f/--memory-file`, else `MEMORY_FILE_PATH`, else the user's
//! data directory. Relative paths resolve against the working directory; a leading `~`
//! expands to the home directory.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The environment variable the reference server reads (an empty value counts as unset).
pub const ENV_VAR: &str = "MEMORY_FILE_PATH";

/// File name of the default memory, inside `<data dir>/mcp-memory/`.
pub const DEFAULT_FILE: &str = "memory.mcpmem";

/// Resolves the memory file from the flag and the environment variable's value.
pub fn memory_path(flag: Option<&Path>, env: Option<OsString>) -> Result<PathBuf> {
    let given = flag
        .map(Path::to_path_buf)
        .or_else(|| env.filter(|v| !v.is_empty()).map(PathBuf::from));
    match given {
        Some(path) => user_path(&path),
        None => Ok(dirs::data_dir()
            .context("no data directory is known for this user; pass -f/--memory-file")?
            .join("mcp-memory")
            .join(DEFAULT_FILE)),
    }
}

/// The memory file of workspace root `root` (a `file://` URI a client listed) for a server
/// started on the memory file `started_on` (`--scope roots`): `<root>/.mcp-memory/
/// memory.mcpmem` if the root has that directory (a memory kept with the project), else
/// `roots/<key>.mcpmem` beside `started_on` (`core::roots` names them for every host).
pub fn root_memory(started_on: &Path, root: &str) -> Result<PathBuf, String> {
    let places = mcp_memory_core::roots::places(root)?;
    if Path::new(&places.inside_dir).is_dir() {
        return Ok(PathBuf::from(places.inside_file));
    }
    let beside = started_on.parent().unwrap_or(Path::new("."));
    Ok(beside.join(places.beside))
}

/// A path the user gave, resolved as the memory file's is: a leading `~` is the home
/// directory, a relative path is from the working directory.
pub fn user_path(path: &Path) -> Result<PathBuf> {
    absolute(&expand_tilde(path)?)
}

fn expand_tilde(path: &Path) -> Result<PathBuf> {
    let mut parts = path.components();
    if parts.next().is_some_and(|c| c.as_os_str() == "~") {
        let home = dirs::home_dir().context("cannot expand `~`: no home directory is known")?;
        return Ok(home.join(parts.as_path()));
    }
    Ok(path.to_path_buf())
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_beats_env_and_empty_env_is_unset() {
        let p = memory_path(Some(Path::new("/a/flag")), Some("/b/env".into())).unwrap();
        assert_eq!(p, Path::new("/a/flag"));
        let p = memory_path(None, Some("/b/env".into())).unwrap();
        assert_eq!(p, Path::new("/b/env"));
        let p = memory_path(None, Some("".into())).unwrap();
        assert!(p.ends_with("mcp-memory/memory.mcpmem"), "{}", p.display());
    }

    #[test]
    fn relative_paths_resolve_against_the_working_directory() {
        let p = memory_path(Some(Path::new("rel/m.jsonl")), None).unwrap();
        assert_eq!(p, std::env::current_dir().unwrap().join("rel/m.jsonl"));
    }

    #[test]
    fn tilde_expands_to_home() {
        let p = memory_path(None, Some("~/m.jsonl".into())).unwrap();
        assert_eq!(p, dirs::home_dir().unwrap().join("m.jsonl"));
    }
}
