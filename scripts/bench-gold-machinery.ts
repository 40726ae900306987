/**
 * What the test-machinery rule and the runner audit (issue 51) do to gold patches: every gold patch of each dataset
 * is cut as evaluation cuts it (validation/test-machinery.ts, mixed manifests read at the base commit from the
 * mirrors) and audited (validation/runner-audit.ts). A gold patch that loses anything, or that the audit flags, is
 * listed by name with why. A mixed manifest whose repository has no mirror here is counted as not checked.
 *
 *   npm run bench:gold-machinery -- --dataset ROWS [--dataset ROWS …] [--mirrors DIR] [--out FILE.json]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { RepoStore } from '../src/repo/store.ts';
import { auditPatch } from '../validation/runner-audit.ts';
import { mixedManifests, separateTestMachinery } from '../validation/test-machinery.ts';
import { benchDatasets } from './bench-inputs.ts';

interface GoldFinding {
  instance: string;
  /** files or sections the rule leaves out of the gold patch */
  machinery: string[];
  /** mixed manifests that could not be read at the base commit (no mirror, or the commit is missing) */
  unchecked: string[];
  /** runner-audit hits: path:line (rule) */
  audit: string[];
}

/** The base text of `file` at the instance's commit, from its mirror; undefined when absent, null when unreadable. */
function baseText(gitDir: string | undefined, instance: SweInstance, file: string): string | undefined | null {
  if (!gitDir) return null;
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${instance.base_commit}^{commit}`], { stdio: 'ignore' });
  } catch {
    return null;
  }
  try {
    return execFileSync('git', ['--git-dir', gitDir, 'show', `${instance.base_commit}:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

async function examine(instance: SweInstance, store: RepoStore | undefined): Promise<GoldFinding> {
  const bases = new Map<string, string | undefined>();
  const unchecked: string[] = [];
  const files = mixedManifests(instance.patch);
  // the store finds a mirror as every stage does (owner+name, case-insensitively); none here: not checked
  const gitDir = files.length && store ? await store.gitDir(instance.repo).catch(() => undefined) : undefined;
  for (const file of files) {
    const text = baseText(gitDir, instance, file);
    if (text === null) unchecked.push(file);
    else bases.set(file, text);
  }
  const { edits } = separateTestMachinery(instance.patch, 'restore', bases);
  return {
    instance: instance.instance_id,
    machinery: edits.map((edit) => `${edit.path} (${edit.rule})`),
    unchecked,
    audit: auditPatch(instance.patch).map((hit) => `${hit.path}:${hit.line} (${hit.rule})`),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', multiple: true },
      mirrors: { type: 'string', default: process.env.LOCFIX_MIRRORS },
      out: { type: 'string' },
    },
  });
  const results = [];
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'locfix-gold-machinery-'));
  const store = values.mirrors ? new RepoStore({ cacheDir, mirrorsDir: values.mirrors, allowClone: false }) : undefined;
  for (const source of benchDatasets(values.dataset)) {
    const { instances } = await loadDataset(source);
    const findings: GoldFinding[] = [];
    for (const instance of instances) findings.push(await examine(instance, store));
    const manifests = instances.filter((instance) => mixedManifests(instance.patch).length > 0).length;
    const summary = {
      dataset: source,
      gold: instances.length,
      touchingMachinery: findings.filter((f) => f.machinery.length).map((f) => ({ instance: f.instance, machinery: f.machinery })),
      withMixedManifests: manifests,
      uncheckedManifests: findings.filter((f) => f.unchecked.length).map((f) => ({ instance: f.instance, files: f.unchecked })),
      flaggedByAudit: findings.filter((f) => f.audit.length).map((f) => ({ instance: f.instance, hits: f.audit })),
    };
    results.push(summary);
    console.log(
      `${path.basename(source)}: ${summary.gold} gold patches; test machinery left out of ${summary.touchingMachinery.length}; ` +
        `${manifests} touch a mixed manifest (${summary.uncheckedManifests.length} not checked: no mirror); audit flags ${summary.flaggedByAudit.length}`,
    );
    for (const f of summary.touchingMachinery) console.log(`  machinery  ${f.instance}: ${f.machinery.join('; ')}`);
    for (const f of summary.uncheckedManifests) console.log(`  unchecked  ${f.instance}: ${f.files.join(', ')}`);
    for (const f of summary.flaggedByAudit) console.log(`  audit      ${f.instance}: ${f.hits.join('; ')}`);
  }
  await store?.close();
  rmSync(cacheDir, { recursive: true, force: true });
  if (values.out) writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
