import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import type { PatchChecker } from '../../repair/diff.ts';
import { repairInstance, type RepairInstanceInput } from '../../repair/repair-instance.ts';
import { runRepairStage, runSelectStage } from '../../repair/stage.ts';
import type { EditLocationSet, RepairInstanceRecord, Selection } from '../../repair/types.ts';
import { SweInstanceSchema, type SweInstance } from '../../src/dataset/schema.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/types.ts';
import { LlmError } from '../../src/llm/errors.ts';
import type { RepoSnapshot, TreeEntry } from '../../src/repo/types.ts';

const CALC = `import math


def mean(values):
    """Average of the values."""
    total = 0
    for v in values:
        total += v
    return total / len(values)


def spread(values):
    return max(values) - min(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def mode(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=counts.get)
`;

const UTIL = `def clamp(x, lo, hi):
    return max(lo, min(x, hi))
`;

class MemorySnapshot implements RepoSnapshot {
  readonly repo = 'acme/calc';
  readonly commit = 'c'.repeat(40);
  constructor(private readonly files: Record<string, string>) {}
  async listFiles(): Promise<TreeEntry[]> {
    return Object.entries(this.files).map(([p, c]) => ({ path: p, blob: p, size: c.length }));
  }
  async readFile(p: string): Promise<string | undefined> {
    return this.files[p];
  }
  async readFiles(paths: readonly string[]): Promise<Map<string, string>> {
    return new Map(paths.filter((p) => p in this.files).map((p) => [p, this.files[p]]));
  }
  async readBlob(): Promise<Buffer> {
    throw new Error('not used');
  }
}

/** Answers each call with scripted outputs: `script(request, callIndex)` returns one string per choice. */
class ScriptedModel implements ChatModel {
  readonly id = 'scripted:repair';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly script: (request: ChatRequest, callIndex: number) => string[] | Error) {}
  async chat(request: ChatRequest): Promise<ChatResponse> {
    const i = this.requests.push(request) - 1;
    const out = this.script(request, i);
    if (out instanceof Error) throw out;
    return {
      model: 'repair-model',
      choices: out.map((content) => ({ content, finishReason: 'stop' })),
      usage: { promptTokens: 100, completionTokens: 10 * out.length, cost: 0.01 },
      cached: false,
      latencyMs: 5,
    };
  }
}

const sr = (p: string | null, search: string, replace: string) =>
  `Here is the fix.\n\n\`\`\`python\n${p ? `### ${p}\n` : ''}<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;

const GOOD = sr('calc.py', '    return total / len(values)', '    if not values:\n        return 0.0\n    return total / len(values)');
// same change, other comment and layout
const GOOD_VARIANT = sr(
  'calc.py',
  '    for v in values:\n        total += v\n    return total / len(values)',
  '    for v in values:\n        total += v\n    if not values:  # avoid ZeroDivisionError\n\n        return 0.0\n    return total / len(values)',
);
const OTHER = sr('calc.py', '    return total / len(values)', '    return total / max(len(values), 1)');
const PROSE = 'I am not sure what to change.';
const NO_MATCH = sr('calc.py', '    return sum(values)', '    return 0');
const NO_OP = sr('calc.py', '    total = 0', '    total = 0  # running sum');
const BROKEN = sr('calc.py', '    return total / len(values)', '    return total / len(values');

const locations = (paths: Record<string, [number, number]>): EditLocationSet => ({
  files: Object.entries(paths).map(([p, [start, end]]) => ({ path: p, ranges: [{ start, end }] })),
});

let analyzer: PythonAnalyzer;
let dir: string;
beforeAll(async () => {
  analyzer = await PythonAnalyzer.create();
  dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-repair-stage-'));
});
afterAll(() => {
  analyzer.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const snapshot = new MemorySnapshot({ 'calc.py': CALC, 'util.py': UTIL });
const instanceOf = (id: string): SweInstance =>
  SweInstanceSchema.parse({
    instance_id: id,
    repo: 'acme/calc',
    base_commit: 'c'.repeat(40),
    problem_statement: 'mean([]) raises ZeroDivisionError; it should return 0.0.',
  });
const input = (id: string, sets: EditLocationSet[]): RepairInstanceInput & { instance: SweInstance } => ({
  instance: instanceOf(id),
  locationSets: sets,
  snapshot,
});
const readArtifactFile = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as StageArtifact<T>;
const fourSets = [
  locations({ 'calc.py': [9, 9] }),
  locations({ 'calc.py': [4, 9] }),
  locations({ 'calc.py': [9, 9], 'util.py': [1, 2] }),
  locations({ 'calc.py': [13, 13] }),
];

describe('repairInstance', () => {
  it('samples 1 greedy + 9 at T=0.8 per set × 4 sets = 40, 1024 max tokens, and the vote picks the majority fix', async () => {
    // every set: greedy GOOD; then a mix where GOOD (in two spellings) outnumbers OTHER
    const model = new ScriptedModel((req) => (req.n === 1 ? [GOOD] : [OTHER, GOOD_VARIANT, GOOD, PROSE, GOOD, NO_MATCH, OTHER, BROKEN, NO_OP].slice(0, req.n)));
    const record = await repairInstance(input('acme__calc-1', fourSets), { model, analyzer });

    expect(model.requests).toHaveLength(8);
    expect(model.requests.map((r) => [r.temperature, r.n, r.maxTokens])).toEqual(
      Array.from({ length: 4 }, () => [
        [0, 1, 1024],
        [0.8, 9, 1024],
      ]).flat(),
    );
    expect(model.requests[0].messages[0].content).toContain('mean([]) raises ZeroDivisionError');
    expect(model.requests[0].messages[0].content).toMatch(/### calc\.py\nimport math\n[\s\S]*\n {4}if len\(ordered\) % 2:\n\.\.\.\n<\/code>/);
    expect(model.requests[4].messages[0].content).toContain('### util.py\ndef clamp(x, lo, hi):');
    expect(record.samples).toHaveLength(40);
    expect(record.samples.filter((s) => s.temperature === 0).map((s) => s.id)).toEqual(['s0-0', 's1-0', 's2-0', 's3-0']);

    // set 3 shows lines 3..23 only: line 9 is in it, so GOOD applies there too
    const bySet0 = record.samples.filter((s) => s.setIndex === 0);
    expect(bySet0.map((s) => s.emptyReason ?? 'patch')).toEqual([
      'patch',
      'patch',
      'patch',
      'patch',
      'no-edits-parsed',
      'patch',
      'no-edit-matched',
      'patch',
      'syntax-error',
      'no-op',
    ]);
    const good = bySet0[0];
    expect(good.diff).toMatch(/^diff --git a\/calc\.py b\/calc\.py\n--- a\/calc\.py\n\+\+\+ b\/calc\.py\n@@ /);
    expect(good.diffCheck).toEqual({ ok: true });
    expect(bySet0[2].normalized).toBe(good.normalized); // GOOD_VARIANT
    expect(applyPatch(CALC, good.diff)).toContain('    if not values:\n        return 0.0\n');
    expect(good.usage).toEqual({ promptTokens: 100, completionTokens: 10, cost: 0.01 });
    expect(bySet0[1].usage.completionTokens).toBeCloseTo(10);

    const sel = record.selection;
    expect(sel.sampleId).toBe('s0-0');
    expect(sel.patch).toBe(good.diff);
    expect(sel.voteTable.map((e) => e.votes)).toEqual([16, 8]);
    expect(record.usage).toEqual({ promptTokens: 800, completionTokens: 400, cost: expect.closeTo(0.08, 10) });
    expect(record.contexts[2].map((f) => f.path)).toEqual(['calc.py', 'util.py']);
    expect(JSON.stringify(record)).not.toContain('"content"'); // file contents are not copied into the record
  });

  it('fails with the cause when every call failed outside the method; an answered call keeps the empty samples its own', async () => {
    const down = new ScriptedModel(() => new LlmError('connection', 'scripted:repair: Connection error.'));
    await expect(repairInstance(input('x', fourSets.slice(0, 2)), { model: down, analyzer, config: { samplesPerSet: 1 } })).rejects.toMatchObject({
      kind: 'connection',
    });
    const miss = new ScriptedModel(() => new LlmError('replay-miss', 'replay: this request was not recorded'));
    await expect(repairInstance(input('x', fourSets.slice(0, 2)), { model: miss, analyzer, config: { samplesPerSet: 1 } })).rejects.toMatchObject({
      kind: 'replay-miss',
    });
    // one set answered: the method acted, and the other set's failure is an empty sample of it
    const half = new ScriptedModel((_req, i) => (i === 0 ? [GOOD] : new LlmError('connection', 'down')));
    const record = await repairInstance(input('x', fourSets.slice(0, 2)), { model: half, analyzer, config: { samplesPerSet: 1 } });
    expect(record.samples.map((x) => x.emptyReason ?? 'ok')).toEqual(['ok', 'model-error']);
    // an unusable answer is the method's own: recorded, not thrown
    const garbled = new ScriptedModel(() => new LlmError('parse', 'unparseable'));
    expect((await repairInstance(input('x', fourSets.slice(0, 2)), { model: garbled, analyzer, config: { samplesPerSet: 1 } })).selection.patch).toBe('');
  });

  it('honours a configured sample plan', async () => {
    const model = new ScriptedModel((req) => Array.from({ length: req.n ?? 1 }, () => GOOD));
    const r1 = await repairInstance(input('x', fourSets.slice(0, 2)), {
      model,
      analyzer,
      config: { samplesPerSet: 3, greedy: false, temperature: 0.5, maxTokens: 200 },
    });
    expect(model.requests.map((r) => [r.temperature, r.n, r.maxTokens])).toEqual([
      [0.5, 3, 200],
      [0.5, 3, 200],
    ]);
    expect(r1.samples).toHaveLength(6);
  });

  describe('every empty-patch reason is reachable', () => {
    const only = async (outputs: string[] | Error, sets = [locations({ 'calc.py': [9, 9] })], checker?: PatchChecker) => {
      const model = new ScriptedModel(() => outputs);
      return repairInstance(input('x', sets), { model, analyzer, config: { samplesPerSet: 1 }, ...(checker ? { checker } : {}) });
    };
    it('no-locations', async () => {
      const model = new ScriptedModel(() => [GOOD]);
      const r = await repairInstance(input('x', [locations({ 'calc.py': [500, 510] }), locations({ 'missing.py': [1, 1] }), { files: [] }]), {
        model,
        analyzer,
      });
      expect(model.requests).toHaveLength(0);
      expect(r.prompts).toEqual(['', '', '']);
      expect(r.selection).toMatchObject({ patch: '', emptyReason: 'no-locations' });
    });
    it('model-error (thrown, and fewer choices than asked)', async () => {
      const r = await only(new Error('connection refused'));
      expect(r.samples[0]).toMatchObject({ emptyReason: 'model-error', error: 'connection refused' });
      expect(r.calls[0].error).toBe('connection refused');
      expect(r.selection.emptyReason).toBe('model-error');
      const model = new ScriptedModel(() => [GOOD]);
      const short = await repairInstance(input('x', [locations({ 'calc.py': [9, 9] })]), { model, analyzer, config: { samplesPerSet: 3 } });
      expect(short.samples.map((s) => s.emptyReason ?? 'patch')).toEqual(['patch', 'patch', 'model-error']);
      expect(short.samples[2].error).toMatch(/returned 1 of 2 choices/);
    });
    it('no-edits-parsed', async () => expect((await only([PROSE])).selection.emptyReason).toBe('no-edits-parsed'));
    it('no-edit-matched (no match, and a file that was not shown)', async () => {
      expect((await only([NO_MATCH])).selection.emptyReason).toBe('no-edit-matched');
      const r = await only([sr('util.py', '    return max(lo, min(x, hi))', '    return x')]);
      expect(r.samples[0].applyFailures).toEqual([expect.objectContaining({ kind: 'file-not-shown', path: 'util.py' })]);
      expect(r.selection.emptyReason).toBe('no-edit-matched');
    });
    it('no-op (identical text, and comment-only change)', async () => {
      expect((await only([sr('calc.py', '    total = 0', '    total = 0')])).selection.emptyReason).toBe('no-op');
      const commentOnly = await only([NO_OP]);
      expect(commentOnly.samples[0].diff).not.toBe('');
      expect(commentOnly.selection.emptyReason).toBe('no-op');
    });
    it('syntax-error', async () => {
      const r = await only([BROKEN]);
      expect(r.samples[0].syntax[0]).toMatchObject({ path: 'calc.py', ok: false });
      expect(r.selection.emptyReason).toBe('syntax-error');
    });
    it('invalid-diff', async () => {
      const rejecting: PatchChecker = async (_base, patches) => patches.map(() => ({ ok: false, message: 'error: patch failed: calc.py:9' }));
      const r = await only([GOOD], undefined, rejecting);
      expect(r.samples[0].diffCheck).toEqual({ ok: false, message: 'error: patch failed: calc.py:9' });
      expect(r.selection).toMatchObject({ patch: '', emptyReason: 'invalid-diff' });
    });
  });
});

describe('runRepairStage / runSelectStage', () => {
  it('persists records, resumes, selects with validation results and writes SWE-bench predictions', async () => {
    const runDir = path.join(dir, 'run1');
    const model = new ScriptedModel((req) => (req.n === 1 ? [GOOD] : Array.from({ length: req.n! }, (_, i) => (i % 3 === 0 ? GOOD : OTHER))));
    const inputs = [input('acme__calc-1', fourSets), input('acme__calc-2', [locations({ 'nowhere.py': [1, 1] })])];
    const first = await runRepairStage(runDir, inputs, { model, analyzer, concurrency: 2 });
    expect(first.done.sort()).toEqual(['acme__calc-1', 'acme__calc-2']);
    expect(first.failed).toEqual([]);
    const calls = model.requests.length;
    const second = await runRepairStage(runDir, inputs, { model, analyzer });
    expect(second.skipped.sort()).toEqual(['acme__calc-1', 'acme__calc-2']);
    expect(model.requests.length).toBe(calls);

    const artifact = readArtifactFile<RepairInstanceRecord>(path.join(runDir, 'repair', 'acme__calc-1.json'));
    expect(artifact).toMatchObject({ stage: 'repair', instanceId: 'acme__calc-1', status: 'ok', attempt: 1 });
    const record = artifact.output!;
    expect(record.samples).toHaveLength(40);
    const [top, runnerUp] = record.selection.voteTable;
    expect(top.votes).toBeGreaterThan(runnerUp.votes);

    // without validation: the majority; with it: the runner-up that passes the tests
    const plain = await runSelectStage(runDir, { instances: ['acme__calc-1', 'acme__calc-2', 'acme__calc-3'].map(instanceOf) });
    expect(plain.missing).toEqual(['acme__calc-3']);
    const lines = readFileSync(path.join(runDir, 'predictions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    for (const row of lines) expect(Object.keys(row).sort()).toEqual(['instance_id', 'model_name_or_path', 'model_patch']);
    expect(lines[0]).toEqual({
      instance_id: 'acme__calc-1',
      model_name_or_path: 'scripted:repair',
      model_patch: record.samples.find((s) => s.id === top.representative)!.diff,
    });
    expect(lines[1].model_patch).toBe('');
    expect(readArtifactFile<Selection>(path.join(runDir, 'select', 'acme__calc-2.json')).output!.emptyReason).toBe('no-locations');

    const validation = new Map([
      [top.normalized, { regressionFailures: 1, reproductionPassed: true }],
      [runnerUp.normalized, { regressionFailures: 0, reproductionPassed: true }],
    ]);
    const out = path.join(dir, 'preds-validated.jsonl');
    const validated = await runSelectStage(runDir, {
      instances: [instanceOf('acme__calc-1')],
      modelName: 'locfix-test',
      validation: () => validation,
      predictionsFile: out,
    });
    expect(validated.rows[0]).toEqual({
      instance_id: 'acme__calc-1',
      model_name_or_path: 'locfix-test',
      model_patch: record.samples.find((s) => s.id === runnerUp.representative)!.diff,
    });
    expect(readArtifactFile<Selection>(path.join(runDir, 'select', 'acme__calc-1.json')).output!.filter).toBe('regression+reproduction');
  });

  it('reports an instance whose snapshot fails and carries on with the others', async () => {
    const runDir = path.join(dir, 'run2');
    const broken: RepoSnapshot = {
      ...snapshot,
      repo: 'x/y',
      commit: 'c',
      listFiles: async () => [],
      readFile: async () => undefined,
      readBlob: async () => Buffer.alloc(0),
      readFiles: async () => {
        throw new Error('bad object c');
      },
    };
    const model = new ScriptedModel(() => [GOOD]);
    const result = await runRepairStage(runDir, [{ ...input('bad-1', fourSets), snapshot: broken }, input('good-1', fourSets.slice(0, 1))], {
      model,
      analyzer,
      config: { samplesPerSet: 1 },
    });
    expect(result.failed).toEqual([{ instanceId: 'bad-1', error: 'bad object c' }]);
    expect(result.done).toEqual(['good-1']);
    expect(readArtifactFile(path.join(runDir, 'repair', 'bad-1.json'))).toMatchObject({ status: 'error', error: { message: 'bad object c' } });
    // a recorded error is kept on resume unless errors are retried; an error of no known cause counts as the
    // method's, so the plain --retry-errors keeps it too, and --retry-errors all reruns it
    const again = await runRepairStage(runDir, [{ ...input('bad-1', fourSets), snapshot }], { model, analyzer, config: { samplesPerSet: 1 } });
    expect(again.skipped).toEqual(['bad-1']);
    const kept = await runRepairStage(runDir, [{ ...input('bad-1', fourSets), snapshot }], {
      model,
      analyzer,
      config: { samplesPerSet: 1 },
      retryErrors: true,
    });
    expect(kept.skipped).toEqual(['bad-1']);
    const retried = await runRepairStage(runDir, [{ ...input('bad-1', fourSets), snapshot }], {
      model,
      analyzer,
      config: { samplesPerSet: 1 },
      retryErrors: 'all',
    });
    expect(retried.done).toEqual(['bad-1']);
    expect(readArtifactFile(path.join(runDir, 'repair', 'bad-1.json'))).toMatchObject({ status: 'ok', attempt: 2 });
  });
});
