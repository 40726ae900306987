/**
 * Joins run folders into one: the shards of a split run (`--shard i/n` on each node), or runs of disjoint
 * instance sets. Per-instance artifacts, kept parts and evaluation logs are copied; the selection files,
 * `instances.jsonl`, the manifest and the spend ledger are combined. What depends on the whole run
 * (predictions, the harness summary, the analysis and the reports) is not copied: the `merge` command
 * computes it again over the merged folder, so it is the same as for a run made in one piece.
 *
 * An instance found in two inputs keeps the first input's artifact, unless only a later input finished it
 * ("ok" beats "error"); two finished artifacts whose outputs differ are reported as conflicts.
 */
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathExists, readJsonIfExists, writeJsonAtomic, writeJsonlAtomic } from '../util/fsx.ts';
import type { StageSelection } from './run-layout.ts';
import type { SpendLedgerFile } from './spend-ledger.ts';
import { acquireRunLock, RUN_LOCK_FILE, RUN_LOCK_HOLDER_FILE } from './run-lock.ts';
import { assertConfined } from './confinement.ts';
import { currentManifest } from '../util/legacy.ts';

export interface MergeReport {
  inputs: string[];
  instances: number;
  artifacts: number;
  /** same stage and instance finished in two inputs with different outputs: the first was kept */
  conflicts: Array<{ stage: string; instanceId: string; kept: string; dropped: string }>;
}

/** Files computed again over the merged run, the run lock, and the end-of-invocation record of each input. */
const REGENERATED = new Set(['analysis.json', 'predictions.jsonl', 'result.json', RUN_LOCK_FILE, RUN_LOCK_HOLDER_FILE]);

/** Adds every number of `b` into `a`, recursively (usage.json: calls, tokens, cost per purpose). */
function addNumbers(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = k in out ? addNumbers(out[k], v) : v;
    return out;
  }
  return a ?? b;
}

async function copyTreeMissing(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) await copyTreeMissing(src, dst);
    else if (entry.isFile() && !(await pathExists(dst))) await copyFile(src, dst);
  }
}

const addSpent = (a: Record<string, number> | undefined, b: Record<string, number>): Record<string, number> => {
  const out: Record<string, number> = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
  return out;
};

export async function mergeRunFolders(outDir: string, inputs: readonly string[]): Promise<MergeReport> {
  if (inputs.length === 0) throw new Error('merge: no run folders given');
  const out = path.resolve(outDir);
  for (const input of inputs) {
    if (path.resolve(input) === out) throw new Error(`merge: the output ${out} is also an input`);
    const entries = await readdir(input).catch(() => undefined);
    if (!entries?.some((n) => n === 'instances.jsonl' || n.endsWith('.selection.json')))
      throw new Error(`merge: ${input} is not a locfix run folder (neither instances.jsonl nor a <stage>.selection.json)`);
    // nothing from outside an input may be copied into the merged folder
    await assertConfined(input);
  }
  await mkdir(out, { recursive: true });
  // a second merge (or a run) on the same folder refuses instead of interleaving
  const lock = acquireRunLock(out);
  try {
    return await mergeInto(out, inputs);
  } finally {
    lock.release();
  }
}

async function mergeInto(out: string, inputs: readonly string[]): Promise<MergeReport> {
  const report: MergeReport = { inputs: inputs.map((i) => path.resolve(i)), instances: 0, artifacts: 0, conflicts: [] };
  const selections = new Map<string, StageSelection>();
  const instanceLines = new Map<string, string>();
  let manifest: Record<string, unknown> | undefined;
  let spend: SpendLedgerFile | undefined;
  // the model meter of each input's last invocation, summed: what the parts cost together
  let usage: unknown;

  for (const input of inputs) {
    for (const entry of await readdir(input, { withFileTypes: true })) {
      const name = entry.name;
      const src = path.join(input, name);
      if (entry.isDirectory()) {
        if (name === 'report') continue;
        if (name.endsWith('.parts') || name === 'evaluation') {
          await copyTreeMissing(src, path.join(out, name));
          continue;
        }
        await mergeStageFolder(src, path.join(out, name), name, input, report);
        continue;
      }
      // the harness summary `<model>.<run id>.json` is made again for the merged run
      if (REGENERATED.has(name) || name.endsWith(`.${path.basename(input)}.json`)) continue;
      if (name === 'instances.jsonl') {
        for (const line of (await readFile(src, 'utf8')).split('\n')) {
          if (!line.trim()) continue;
          const id = (JSON.parse(line) as { instance_id: string }).instance_id;
          if (!instanceLines.has(id)) instanceLines.set(id, line);
        }
      } else if (name.endsWith('.selection.json')) {
        const s = (await readJsonIfExists<StageSelection>(src))!;
        const have = selections.get(name);
        if (!have) selections.set(name, { ...s, instances: [...s.instances], gold: { ...s.gold } });
        else {
          if (JSON.stringify(have.settings ?? {}) !== JSON.stringify(s.settings ?? {}))
            throw new Error(`merge: ${src} was made with other settings than the same stage of ${inputs[0]}: such runs do not merge`);
          for (const id of s.instances) if (!have.instances.includes(id)) have.instances.push(id);
          Object.assign(have.gold, s.gold);
        }
      } else if (name === 'manifest.json') {
        const m = currentManifest(await readJsonIfExists<unknown>(src), src);
        if (!manifest) manifest = { ...m, invocations: [...((m.invocations as unknown[]) ?? [])] };
        else (manifest.invocations as unknown[]).push(...((m.invocations as unknown[]) ?? []));
      } else if (name === 'usage.json') {
        usage = addNumbers(usage, await readJsonIfExists<unknown>(src));
      } else if (name === 'spend.json') {
        const l = (await readJsonIfExists<SpendLedgerFile>(src))!;
        if (!spend) spend = { ...l, instances: { ...l.instances } };
        else {
          spend.run = addSpent(spend.run as unknown as Record<string, number>, l.run as unknown as Record<string, number>) as unknown as SpendLedgerFile['run'];
          for (const [id, s] of Object.entries(l.instances)) spend.instances[id] ??= s;
        }
      } else if (!(await pathExists(path.join(out, name)))) await copyFile(src, path.join(out, name));
    }
  }
  if (instanceLines.size)
    await writeJsonlAtomic(
      path.join(out, 'instances.jsonl'),
      [...instanceLines.values()].map((l) => JSON.parse(l)),
    );
  report.instances = instanceLines.size || new Set([...selections.values()].flatMap((s) => s.instances)).size;
  for (const [name, s] of selections) await writeJsonAtomic(path.join(out, name), s);
  if (manifest) {
    const config: Record<string, unknown> = { ...((manifest.config as Record<string, unknown>) ?? {}), runId: path.basename(out) };
    delete config.shard;
    await writeJsonAtomic(path.join(out, 'manifest.json'), { ...manifest, config, mergedFrom: report.inputs });
  }
  if (spend) await writeJsonAtomic(path.join(out, 'spend.json'), { ...spend, updatedAt: new Date().toISOString() });
  if (usage) await writeJsonAtomic(path.join(out, 'usage.json'), usage);
  return report;
}

async function mergeStageFolder(from: string, to: string, stage: string, input: string, report: MergeReport): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await copyTreeMissing(src, dst);
      continue;
    }
    if (!entry.isFile()) continue;
    if (!(await pathExists(dst))) {
      await copyFile(src, dst);
      if (entry.name.endsWith('.json')) report.artifacts += 1;
      continue;
    }
    if (!entry.name.endsWith('.json') || (await stat(src)).size === 0) continue;
    const [have, next] = await Promise.all([
      readJsonIfExists<{ status?: string; output?: unknown }>(dst),
      readJsonIfExists<{ status?: string; output?: unknown }>(src),
    ]).catch(() => [undefined, undefined]);
    if (!have || !next) continue;
    if (have.status !== 'ok' && next.status === 'ok') await copyFile(src, dst);
    else if (have.status === 'ok' && next.status === 'ok' && JSON.stringify(have.output) !== JSON.stringify(next.output))
      report.conflicts.push({ stage, instanceId: entry.name.slice(0, -5), kept: 'the first input', dropped: input });
  }
}
