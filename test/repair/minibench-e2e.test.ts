/**
 * End to end on the bundled mini-benchmark: real git mirrors (RepoStore snapshots), a real chat model
 * client talking HTTP to the scripted model server, 40 samples per instance, the vote, the batched
 * `git apply --check`, and predictions JSONL read back by the harness-format parser.
 *
 * The scripted model answers each instance's prompt with SEARCH/REPLACE edits synthesized from the gold
 * patch: the greedy sample and most sampled ones give the gold fix (some with comments or lost
 * indentation), others a partial fix, a non-matching edit or prose. The vote must pick the gold fix.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepairInstanceInput } from '../../repair/repair-instance.ts';
import { runRepairStage, runSelectStage } from '../../repair/stage.ts';
import type { EditLocationSet } from '../../repair/types.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { parsePredictions } from '../../validation/predictions.ts';
import { scriptedChatModel, useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest } from '../support/scripted-model-server.ts';
import { goldEdits, type GoldEdit } from '../support/gold-edits.ts';

const block = (e: Pick<GoldEdit, 'path' | 'search' | 'replace'>) =>
  ['```python', `### ${e.path}`, '<<<<<<< SEARCH', ...e.search, '=======', ...e.replace, '>>>>>>> REPLACE', '```'].join('\n');
const firstChanged = (e: GoldEdit) =>
  Math.max(
    0,
    e.replace.findIndex((l, i) => l.trim() !== '' && l !== e.search[i]),
  );

/** Outputs by sample index within a set: 0 is greedy. Gold (in 3 spellings) 6×, partial 2×, misses 2×. */
function outputsFor(edits: GoldEdit[]): string[] {
  const gold = 'The fix:\n\n' + edits.map(block).join('\n\n');
  const commented = edits
    .map((e) =>
      block({
        ...e,
        replace: e.replace.map((l, i) => (i === firstChanged(e) && !/[\\(,[{]$/.test(l.trimEnd()) && !l.includes('"""') ? `${l}  # see the issue` : l)),
      }),
    )
    .join('\n');
  const dedented = edits
    .map((e) => block({ ...e, search: e.search.map((l) => l.replace(/^ {0,4}/, '')), replace: e.replace.map((l) => l.replace(/^ {0,4}/, '')) }))
    .join('\n');
  const partial = block(edits[edits.length - 1]!);
  const miss = block({ ...edits[0]!, search: ['this line is not in the file'] });
  return [gold, commented, gold, partial, dedented, 'I am not sure.', gold, miss, partial, gold];
}

const scripted = useScriptedModelServer({
  policy: (request: ScriptedChatRequest, sampleIndex: number) => {
    const instance = instances.find((i) => request.lastUser.includes(i.problem_statement.trim().slice(0, 200)));
    if (!instance) return undefined;
    const outputs = outputsFor(goldEdits(instance));
    // the greedy request (T=0) gets the gold fix; sampled requests get samples 1..9 of the list
    return request.temperature === 0 ? outputs[0] : outputs[Math.min(sampleIndex + 1, outputs.length - 1)];
  },
});

let dir: string;
let bench: MiniBenchBuild;
let instances: SweInstance[] = [];
let store: RepoStore;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-repair-e2e-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  // gold patches that create files cannot come out of SEARCH/REPLACE edits of shown files
  instances = bench.instances.filter((i) => parsePatch(i.patch).every((f) => f.oldFileName !== '/dev/null'));
  store = new RepoStore({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
});

afterAll(async () => {
  if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

describe('repair + select on the mini-benchmark with the scripted model', () => {
  it('samples 40 per instance, votes the gold fix in and writes valid predictions', async () => {
    expect(instances.length).toBeGreaterThanOrEqual(bench.instances.length - 1);
    const inputs: Array<RepairInstanceInput & { instance: SweInstance }> = [];
    for (const instance of instances) {
      const edits = goldEdits(instance);
      const snapshot = await store.snapshot(instance.repo, instance.base_commit);
      // 4 location sets: the gold hunks' lines, a little off in some sets (as localization samples are)
      const sets: EditLocationSet[] = [0, 2, 0, 4].map((shift) => ({
        files: [...new Set(edits.map((e) => e.path))].map((p) => ({
          path: p,
          ranges: edits.filter((e) => e.path === p).map((e) => ({ start: e.oldStart + 3 + shift, end: e.oldStart + e.oldLines - 4 })),
        })),
      }));
      inputs.push({ instance, locationSets: sets, snapshot });
    }
    const model = scriptedChatModel(scripted.server);
    const runDir = path.join(dir, 'run');
    // urlkit-31's gold fix (a whole date parser) is longer than the default 1024 tokens: the server cuts the
    // answer there like a real one, and the parser drops the cut-off edit. Give the model room here.
    const result = await runRepairStage(runDir, inputs, { model, concurrency: 3, config: { maxTokens: 4096 } });
    expect(result.failed).toEqual([]);
    expect(result.done).toHaveLength(instances.length);

    const chatRequests = scripted.server.requests.filter((r) => r.kind === 'chat');
    expect(chatRequests.length).toBeGreaterThanOrEqual(instances.length * 8);

    const { rows } = await runSelectStage(runDir, { instances, modelName: 'locfix-scripted' });
    const predictions = parsePredictions(await readFile(path.join(runDir, 'predictions.jsonl'), 'utf8'));
    expect(predictions.map((p) => p.instance_id)).toEqual(instances.map((i) => i.instance_id));

    for (const instance of instances) {
      const record = JSON.parse(await readFile(path.join(runDir, 'repair', `${instance.instance_id}.json`), 'utf8')).output;
      expect(record.samples, instance.instance_id).toHaveLength(40);
      const row = rows.find((r) => r.instance_id === instance.instance_id)!;
      expect(row.model_patch, instance.instance_id).not.toBe('');
      // the chosen patch turns every gold file into exactly what the gold patch makes of it
      const snapshot = await store.snapshot(instance.repo, instance.base_commit);
      for (const goldFile of parsePatch(instance.patch)) {
        const p = goldFile.oldFileName!.replace(/^a\//, '');
        const base = (await snapshot.readFile(p))!;
        const chosen = parsePatch(row.model_patch).find((f) => f.oldFileName === `a/${p}`);
        expect(chosen, `${instance.instance_id}: ${p} in the chosen patch`).toBeDefined();
        expect(applyPatch(base, chosen!), `${instance.instance_id}: ${p}`).toBe(applyPatch(base, goldFile));
      }
      // every candidate diff passed git apply --check against the real base files
      for (const s of record.samples) if (s.diffCheck) expect(s.diffCheck.ok, `${instance.instance_id} ${s.id}`).toBe(true);
      expect(record.selection.voteTable[0].votes).toBeGreaterThan(record.selection.voteTable[1]?.votes ?? 0);
    }
  });
});
