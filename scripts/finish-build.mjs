// After `tsc -p tsconfig.build.json` (npm run build): the compiled modules in dist/ find the files they read next
// to themselves as the sources do (package.json, prompts, the mini-benchmark, the ranker model, the environment specs, the tree-sitter
// queries, the bwrap seccomp profile, bin/), so those are linked into dist/ (a language folder's data files one by one: its code is compiled), and dist/BUILD marks when the build finished (bin/locfix.js runs
// the compiled CLI only while no source is newer).
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const links = [
  'package.json',
  'prompts',
  'minibench',
  'bin',
  'models',
  'src/harness/specs',
  'src/harness/known-gold-failures.json',
  'sandbox/bwrap/seccomp',
  ...readdirSync(path.join(root, 'src/languages'), { recursive: true })
    .filter((file) => /\.(scm|json)$/.test(file))
    .map((file) => path.join('src/languages', file)),
];
for (const link of links) {
  const at = path.join(dist, link);
  mkdirSync(path.dirname(at), { recursive: true });
  rmSync(at, { recursive: true, force: true });
  symlinkSync(path.relative(path.dirname(at), path.join(root, link)), at);
}
writeFileSync(path.join(dist, 'BUILD'), `${new Date().toISOString()}\n`);
