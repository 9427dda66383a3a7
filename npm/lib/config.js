// Where the memory file is — the native binary's rule (host-native/src/config.rs):
// `-f/--memory-file`, else MEMORY_FILE_PATH (empty counts as unset), else
// `<data dir>/mcp-memory/memory.mcpmem`. Relative paths resolve against the working
// directory; a leading `~` expands to the home directory.

import os from 'node:os';
import path from 'node:path';

/** The environment variable the reference server reads. */
export const ENV_VAR = 'MEMORY_FILE_PATH';

/** File name of the default memory, inside `<data dir>/mcp-memory/`. */
export const DEFAULT_FILE = 'memory.mcpmem';

/**
 * The user's home directory, as Rust's `dirs::home_dir` finds it: on Unix `$HOME` unless
 * it is empty, else the account's entry (Node's `os.homedir()` returns an empty HOME as is,
 * which would put the memory under the working directory).
 */
export function homeDir() {
  if (process.platform === 'win32') return os.homedir();
  if (process.env.HOME) return process.env.HOME;
  try {
    return os.userInfo().homedir;
  } catch {
    return os.homedir();
  }
}

/** The user's data directory, as Rust's `dirs::data_dir` finds it. */
export function dataDir() {
  const home = homeDir();
  if (process.platform === 'win32') return process.env.APPDATA || path.join(home, 'AppData', 'Roaming');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  const xdg = process.env.XDG_DATA_HOME;
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share');
}

function expandTilde(p) {
  if (p === '~') return homeDir();
  if (p.startsWith('~/') || (process.platform === 'win32' && p.startsWith('~\\'))) {
    return path.join(homeDir(), p.slice(2));
  }
  return p;
}

/**
 * A path the user gave, resolved as the memory file's is: a leading `~` is the home
 * directory, a relative path is from the working directory.
 */
export function userPath(p) {
  return path.resolve(expandTilde(p));
}

/** The memory file for a `--memory-file` value (or undefined) and an environment value. */
export function memoryPath(flag, env = process.env[ENV_VAR]) {
  const given = flag ?? (env ? env : undefined);
  if (given === undefined) return path.join(dataDir(), 'mcp-memory', DEFAULT_FILE);
  return userPath(given);
}
