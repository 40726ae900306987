/**
 * Does evaluation grade SWE-bench Multilingual rows as the harness would? Given two `locfix evaluate` runs over the
 * same rows, one of the gold patches and one of a patch that changes no code (the test patch alone), each row
 * should be resolved by the gold and not by the no-op, with every FAIL_TO_PASS and PASS_TO_PASS test found in the
 * log. Prints one line per row, and the totals by repository.
 *
 *   npm run bench:multilingual-grading -- --gold runs/jq-gold --noop runs/jq-noop
 *
 * The runs come from `locfix evaluate --predictions gold` and from predictions whose patch only adds a file
 * (docs/offline-env-images.md gives the commands).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { gold: { type: 'string' }, noop: { type: 'string' } } });
if (!values.gold || !values.noop) throw new Error('usage: npm run bench:multilingual-grading -- --gold RUN --noop RUN');

interface Entry {
  resolved: boolean;
  patch_successfully_applied: boolean;
  tests_status?: Record<'FAIL_TO_PASS' | 'PASS_TO_PASS', { success: string[]; failure: string[] }>;
}

function reports(run: string): Map<string, Entry> {
  const dir = path.join(run, 'evaluation');
  const out = new Map<string, Entry>();
  for (const id of readdirSync(dir)) {
    const file = path.join(dir, id, 'report.json');
    if (existsSync(file)) out.set(id, (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Entry>)[id]!);
  }
  return out;
}

const gold = reports(values.gold);
const noop = reports(values.noop);
const count = (e: Entry | undefined, key: 'FAIL_TO_PASS' | 'PASS_TO_PASS') =>
  e?.tests_status ? `${e.tests_status[key].success.length}/${e.tests_status[key].success.length + e.tests_status[key].failure.length}` : '-';
const byRepo = new Map<string, { rows: number; gold: number; noopUnresolved: number }>();
console.log('| row | gold resolved | gold F2P passing | gold P2P passing | no-op resolved | no-op F2P passing | no-op P2P passing |');
console.log('|---|---|--:|--:|---|--:|--:|');
for (const id of [...new Set([...gold.keys(), ...noop.keys()])].sort()) {
  const g = gold.get(id);
  const n = noop.get(id);
  console.log(
    `| ${id} | ${g?.resolved ? 'yes' : 'no'} | ${count(g, 'FAIL_TO_PASS')} | ${count(g, 'PASS_TO_PASS')} | ${n?.resolved ? 'yes' : 'no'} | ${count(n, 'FAIL_TO_PASS')} | ${count(n, 'PASS_TO_PASS')} |`,
  );
  const repo = id.replace(/-\d+$/, '');
  const totals = byRepo.get(repo) ?? { rows: 0, gold: 0, noopUnresolved: 0 };
  totals.rows += 1;
  if (g?.resolved) totals.gold += 1;
  if (n && !n.resolved) totals.noopUnresolved += 1;
  byRepo.set(repo, totals);
}
for (const [repo, t] of byRepo) console.log(`${repo}: gold resolves ${t.gold}/${t.rows}, no-op unresolved ${t.noopUnresolved}/${t.rows}`);
