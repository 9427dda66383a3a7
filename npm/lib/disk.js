// A memory file's raw operations over node:fs, for the engine's file log (the `JsDisk`
// interface of host-web/src/lib.rs; each method does what `Disk` in
// core/src/filelog.rs documents). Only I/O happens here: the file's format, recovery and
// lock protocol are the engine's, so this package and the native binary share files.

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** How far the background flusher may lag behind the last write (ms). */
const FLUSH_MS = 1000;

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

  readAt(offset, len) {
    const buf = new Uint8Array(len);
    let done = 0;
    while (done < len) {
      const n = fs.readSync(this.fd, buf, done, len - done, offset + done);
      if (n === 0) throw new Error(`cannot read ${this.path}: it ended early`);
      done += n;
    }
    return buf;
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

  createNew(name, bytes) {
    return unless('EEXIST', false, () => {
      const fd = fs.openSync(this.companion(name), 'wx', 0o600);
      try {
        fs.writeSync(fd, bytes);
      } finally {
        fs.closeSync(fd);
      }
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

  writeNew(name, bytes) {
    const old = fs.fstatSync(this.fd);
    const mode = old.mode & 0o7777;
    const fd = fs.openSync(this.companion(name), 'w', mode);
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done);
      fs.fchmodSync(fd, mode); // the umask may have narrowed it
      try {
        fs.fchownSync(fd, old.uid, old.gid);
      } catch {
        // Keeping the owner needs privileges we usually lack; the mode is what matters.
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
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
