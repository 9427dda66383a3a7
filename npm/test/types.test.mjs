// The hand-written declarations (index.d.ts, browser.d.ts) checked by the TypeScript
// compiler against test/types/usage.ts: what a TypeScript user writes must type-check, and
// its `@ts-expect-error` misuses must be rejected.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

import { NPM_DIR } from './helpers.mjs';

test('index.d.ts and browser.d.ts type-check a typed usage of both APIs (tsc --noEmit)', () => {
  const tsc = path.join(NPM_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(NPM_DIR, 'test', 'types')], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});
