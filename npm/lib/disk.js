// A memory file's raw operations over node:fs, for the engine's file log (the `JsDisk`
// interface of host-web/src/lib.rs; each method does what `Disk` in
// core/src/filelog.rs documents). Only I/O happens here: the file's format, recovery and
// lock protocol are the engine's, so this package and the native binary share files.

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { userPath } from './config.js';

/** How far the background flusher may lag behind the last write (ms). */
const FLUSH_MS = 1000;

/** Most bytes `readNamed` reads (core's `MAX_NAMED_BYTES`, 256 MiB). */
export const MAX_NAMED_BYTES = 256 * 1024 * 1024;

/**
 * Whether the file called `file` beside the memory file called `memory` is one of the
 * companions the file log makes (core's `filelog::is_companion`): its lock (and a stale one
 * moved aside), a conversion backup (`.bak`, `.bak.N`), its saved search indexes
 * (`.indexes`), a replacement's or a save's temporary file.
 */
export function isCompanion(memory, file) {
  if (file.startsWith(memory)) {
    const rest = file.slice(memory.length);
    if (rest === '.lock' || rest.startsWith('.lock.stale.') || rest === '.bak') return true;
    if (rest === '.indexes') return true;
    if (/^\.bak\.[0-9]+$/.test(rest)) return true;
  }
  if (file.startsWith(`.${memory}.`) && file.endsWith('.tmp')) return true;
  return false;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function openRw(file) {
  return fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
}

function identity(fd) {
  const st = fs.fstatSync(fd, { bigint: true });
  return { dev: st.dev, ino: st.ino };
}

/** Runs `f`; returns `onCode` instead when it throws an error with that code. */
function unless(code, onCode, f) {
  try {
    return f();
  } catch (e) {
    if (e?.code === code) return onCode;
    throw e;
  }
}

export class NodeDisk {
  /**
   * Opens (creating it and its directory if needed) the memory file at `file`.
   * `durability`: 'background' (fsync at most a second after a change) or 'sync'
   * (fsync before every reply).
   */
  constructor(file, { durability = 'background' } = {}) {
    this.path = path.resolve(file);
    /** The file first opened: workspace roots' memories that live beside it are found from it. */
    this.startedOn = this.path;
    this.dir = path.dirname(this.path);
    this.base = path.basename(this.path);
    this.durability = durability;
    fs.mkdirSync(this.dir, { recursive: true });
    this.fd = openRw(this.path);
    this.ident = identity(this.fd);
    this.lockToken = `${process.pid} ${randomBytes(8).toString('hex')}`;
    this.dirty = false;
    this.flushTimer = null;
  }

  companion(name) {
    return path.join(this.dir, name);
  }

  name() {
    return this.base;
  }

  token() {
    return this.lockToken;
  }

  size() {
    return fs.fstatSync(this.fd).size;
  }

  /** Fills `buf` (a view of the engine's memory) from `offset`: no copy is made in JS. */
  readInto(offset, buf) {
    let done = 0;
    while (done < buf.length) {
      const n = fs.readSync(this.fd, buf, done, buf.length - done, offset + done);
      if (n === 0) throw new Error(`cannot read ${this.path}: it ended early`);
      done += n;
    }
  }

  writeAt(offset, bytes) {
    let done = 0;
    while (done < bytes.length) {
      done += fs.writeSync(this.fd, bytes, done, bytes.length - done, offset + done);
    }
    this.dirty = true;
  }

  setLen(len) {
    fs.ftruncateSync(this.fd, len);
    this.dirty = true;
  }

  sync() {
    if (this.durability === 'sync') {
      this.syncNow();
    } else if (this.dirty && !this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        try {
          this.syncNow();
        } catch (e) {
          process.stderr.write(`mcp-memory: error: background fsync failed: ${e.message}\n`);
        }
      }, FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  syncNow() {
    if (this.dirty) {
      fs.fdatasyncSync(this.fd);
      this.dirty = false;
    }
  }

  isCurrent() {
    const st = unless('ENOENT', null, () => fs.statSync(this.path, { bigint: true }));
    // A removed path: keep using the open file.
    return st === null || (st.dev === this.ident.dev && st.ino === this.ident.ino);
  }

  reopen() {
    fs.closeSync(this.fd);
    this.fd = openRw(this.path);
    this.ident = identity(this.fd);
  }

  /**
   * Closes the file (made durable first) and opens a workspace root's memory in its place:
   * `insideFile` if the directory `insideDir` exists, else `beside` relative to the
   * directory of the file first opened (the engine's `core::roots::places`).
   */
  rescope(insideDir, insideFile, beside) {
    const inside = unless('ENOENT', false, () => fs.statSync(insideDir).isDirectory());
    const file = inside ? insideFile : path.join(path.dirname(this.startedOn), beside);
    const next = new NodeDisk(file, { durability: this.durability });
    try {
      this.close();
    } catch (e) {
      next.close();
      throw e;
    }
    Object.assign(this, next, { startedOn: this.startedOn });
  }

  createNew(name, bytes) {
    return unless('EEXIST', false, () => {
      const path = this.companion(name);
      const fd = fs.openSync(path, 'wx', 0o600);
      try {
        fs.writeSync(fd, bytes);
      } catch (e) {
        // Not left empty: an empty lock would hold every writer off until it went stale.
        fs.closeSync(fd);
        fs.rmSync(path, { force: true });
        throw e;
      }
      fs.closeSync(fd);
      return true;
    });
  }

  readFile(name) {
    return unless('ENOENT', null, () => fs.readFileSync(this.companion(name)));
  }

  ageMs(name) {
    const st = unless('ENOENT', null, () => fs.statSync(this.companion(name)));
    return st === null ? null : Math.max(0, Date.now() - st.mtimeMs);
  }

  rename(from, to) {
    return unless('ENOENT', false, () => {
      fs.renameSync(this.companion(from), this.companion(to));
      return true;
    });
  }

  link(from, to) {
    return unless('EEXIST', false, () => {
      fs.linkSync(this.companion(from), this.companion(to));
      return true;
    });
  }

  remove(name) {
    unless('ENOENT', undefined, () => fs.unlinkSync(this.companion(name)));
  }

  /**
   * Writes `bytes` at `at` of the new companion `name`: at 0 it is created (or emptied)
   * first, with the memory file's mode (and owner, where allowed); with `done` it is then
   * made durable.
   */
  writeNew(name, at, bytes, done) {
    const old = fs.fstatSync(this.fd);
    const mode = old.mode & 0o7777;
    const fd = fs.openSync(this.companion(name), at === 0 ? 'w' : 'r+', mode);
    try {
      let n = 0;
      while (n < bytes.length) n += fs.writeSync(fd, bytes, n, bytes.length - n, at + n);
      if (at === 0) {
        fs.fchmodSync(fd, mode); // the umask may have narrowed it
        try {
          fs.fchownSync(fd, old.uid, old.gid);
        } catch {
          // Keeping the owner needs privileges we usually lack; the mode is what matters.
        }
      }
      if (done) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Writes `bytes` at `offset` of the companion `name`, created (owner only) if missing. */
  writePart(name, offset, bytes) {
    const fd = fs.openSync(this.companion(name), fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, offset + done);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Up to `len` bytes of the companion `name` from `offset` (fewer at its end), or null. */
  readPart(name, offset, len) {
    return unless('ENOENT', null, () => {
      const fd = fs.openSync(this.companion(name), 'r');
      try {
        const bytes = Buffer.alloc(len);
        let got = 0;
        while (got < len) {
          const n = fs.readSync(fd, bytes, got, len - got, offset + got);
          if (n === 0) break;
          got += n;
        }
        return bytes.subarray(0, got);
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  keepCopy(name) {
    const copy = this.companion(name);
    try {
      fs.linkSync(this.path, copy);
    } catch {
      fs.copyFileSync(this.path, copy, fs.constants.COPYFILE_EXCL);
      const fd = fs.openSync(copy, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  }

  install(name) {
    fs.renameSync(this.companion(name), this.path);
    syncDir(this.dir);
    this.dirty = false;
    this.reopen();
  }

  /**
   * The bytes of a file the user named (the `migrate` tool's `source_path`): resolved as
   * MEMORY_FILE_PATH is; only a regular file of at most 256 MiB, never the memory file or
   * one of its companions. Throws an error naming the path and the rule.
   */
  readNamed(given) {
    const resolved = userPath(given);
    const refuse = (rule) => new Error(`cannot read ${resolved}: ${rule}`);
    let fd;
    try {
      // Not blocking: a pipe is refused below, after the open, not waited on.
      fd = fs.openSync(resolved, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch (e) {
      throw refuse(e.code === 'ENOENT' ? 'no such file' : e.message);
    }
    try {
      const st = fs.fstatSync(fd, { bigint: true });
      if (st.isDirectory()) throw refuse('it is a directory; migrate reads only a regular file');
      if (!st.isFile()) {
        throw refuse(
          'it is not a regular file (a device, pipe or socket); migrate reads only a regular file',
        );
      }
      const memory = unless('ENOENT', null, () => fs.statSync(this.path, { bigint: true }));
      const same = (id) => id !== null && id.dev === st.dev && id.ino === st.ino;
      if (same(this.ident) || same(memory)) throw refuse('it is the memory file itself');
      const canonical = fs.realpathSync(resolved);
      const dir = unless('ENOENT', this.dir, () => fs.realpathSync(this.dir));
      if (path.dirname(canonical) === dir && isCompanion(this.base, path.basename(canonical))) {
        throw refuse(
          'it is a companion of the memory file (its lock, a backup or a temporary file)',
        );
      }
      if (st.size > BigInt(MAX_NAMED_BYTES)) throw refuse('it is larger than 256 MiB');
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  alive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return e.code === 'EPERM';
    }
  }

  sleepMs(ms) {
    Atomics.wait(sleeper, 0, 0, ms);
  }

  /** Makes everything written durable and closes the file. */
  close() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.syncNow();
    fs.closeSync(this.fd);
  }
}

/** Makes a rename in `dir` durable (where the platform can sync a directory). */
function syncDir(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (e) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes(e.code)) throw e;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
