#!/usr/bin/env node
// The locfix CLI. `npm ci` builds it (`prepare`: tsc into dist/), and this runs the compiled modules, which start
// at once. While any TypeScript source is newer than that build (an edited checkout), it runs the sources through
// tsx instead, so a stale build is never what runs.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const SOURCE_ROOTS = ['app', 'src', 'localizer', 'repair', 'validation', 'sandbox', 'results'];

function newerThan(dir, time) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (newerThan(file, time)) return true;
    } else if ((entry.name.endsWith('.ts') || entry.name.endsWith('.scm')) && statSync(file).mtimeMs > time) return true;
  }
  return false;
}

function compiledIsCurrent() {
  const stamp = path.join(root, 'dist', 'BUILD');
  if (process.env.LOCFIX_FROM_SOURCE || !existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return !SOURCE_ROOTS.some((dir) => newerThan(path.join(root, dir), built));
}

if (compiledIsCurrent()) {
  const { main } = await import('../dist/app/cli.js');
  await main();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../app/cli.ts');
  await main();
}
// The command is over. A server or child process some failure path forgot to close (a Chroma server, a git
// reader) must not keep the process waiting forever: end it; the exit hooks stop what this process started.
process.exit();
