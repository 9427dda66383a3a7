// NodeDisk.readNamed, what the migrate tool reads through (the rules of core's
// `Log::read_named`): only a regular file the user named, resolved as MEMORY_FILE_PATH is,
// at most 256 MiB, never the memory file or its companions.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { NodeDisk, isCompanion } from '../lib/disk.js';
import { tempDir } from './helpers.mjs';

test('readNamed reads a regular file and refuses the rest, naming the rule', () => {
  const dir = tempDir();
  const disk = new NodeDisk(path.join(dir, 'memory.mcpmem'));
  const at = (name) => path.relative(process.cwd(), path.join(dir, name));
  const fails = (name, rule) =>
    assert.throws(() => disk.readNamed(at(name)), (e) => e.message.endsWith(rule), name);
  try {
    fs.writeFileSync(path.join(dir, 'old.jsonl'), '{"type":"entity"}');
    assert.equal(Buffer.from(disk.readNamed(at('old.jsonl'))).toString(), '{"type":"entity"}');
    fs.mkdirSync(path.join(dir, 'sub'));
    fails('sub', 'it is a directory; migrate reads only a regular file');
    fs.symlinkSync(path.join(dir, 'memory.mcpmem'), path.join(dir, 'link'));
    fails('memory.mcpmem', 'it is the memory file itself');
    fails('link', 'it is the memory file itself');
    for (const name of ['memory.mcpmem.lock', 'memory.mcpmem.bak', 'memory.mcpmem.bak.3', '.memory.mcpmem.1-a.tmp', 'memory.mcpmem.indexes']) {
      fs.writeFileSync(path.join(dir, name), 'x');
      fails(name, 'it is a companion of the memory file (its lock, a backup or a temporary file)');
    }
    const fd = fs.openSync(path.join(dir, 'huge'), 'w');
    fs.ftruncateSync(fd, 256 * 1024 * 1024 + 1);
    fs.closeSync(fd);
    fails('huge', 'it is larger than 256 MiB');
    fails('gone', 'no such file');
  } finally {
    disk.close();
  }
});

test('isCompanion names what the file log makes beside the memory file', () => {
  for (const name of ['m.lock', 'm.lock.stale.1-2', 'm.bak', 'm.bak.12', '.m.1-ab.tmp', 'm.indexes', '.m.indexes.tmp']) {
    assert.equal(isCompanion('m', name), true, name);
  }
  for (const name of ['m', 'm.bak.x', 'm.bak.', 'n.lock', 'm.jsonl', '.m.tmpx', 'm.indexes.x']) {
    assert.equal(isCompanion('m', name), false, name);
  }
});
