/**
 * BlagentLocalizer through the real chat clients against the scripted model server, on the mini-benchmark
 * (real git mirrors, real tree-sitter, real Chroma, lexical embedder): the phases, their limits and
 * fall backs, server failures, the response cache, and the function-level variant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { Services } from '../../app/services.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { BlagentLocalizer, fittedSkeleton } from '../../localizer/blagent/index.ts';
import { outlineOfSkeleton } from '../../localizer/blagent/react.ts';
import type { LocalizerContext } from '../../localizer/types.ts';
import type { FileLocalization, TraceEvent } from '../../src/artifacts/localization.ts';
import { scriptedChatModel, useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest } from '../support/scripted-model-server.ts';
import { blagentPolicy, candidatesOf, earFilesOf, phaseOf, turnOf } from './scripted-policy.ts';

const scripted = useScriptedModelServer();
let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;
let services: Services;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-blagent-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  chroma = await startChromaServer({ dataDir: path.join(dir, 'chroma'), reuse: false });
  services = new Services({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, embedder: 'lexical', chromaUrl: chroma.url });
});

afterAll(async () => {
  await services?.close();
  await chroma?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function contextFor(instance: SweInstance, llm: ChatModel | undefined): Promise<LocalizerContext> {
  const snapshot = await services.snapshot(instance.repo, instance.base_commit);
  return { instance, snapshot, index: () => services.index(snapshot), llm };
}

function instanceWithPool(): SweInstance {
  return bench.instances.find((i) => i.instance_id === 'minibench__confetti-11') ?? bench.instances[0]!;
}

const llmSteps = (trace: TraceEvent[]): string[] => trace.filter((e) => e.type === 'llm').map((e) => e.step);
const notes = (trace: TraceEvent[], step: string): string[] => trace.flatMap((e) => (e.type === 'note' && e.step === step ? [e.message] : []));
const poolOf = (loc: FileLocalization): string[] =>
  (loc.trace.find((e) => e.type === 'note' && e.step === 'retrieval') as { data: { pool: string[] } }).data.pool;

describe('BlagentLocalizer with a scripted model', () => {
  it('runs T0, T1, five inspections, a final answer and one EAR call; records everything', async () => {
    scripted.server.setScenario({ policy: blagentPolicy({ ear: (files) => JSON.stringify([...files].reverse()) }) });
    const instance = instanceWithPool();
    const loc = await new BlagentLocalizer().localize(await contextFor(instance, scriptedChatModel(scripted.server)));
    const pool = poolOf(loc);
    expect(pool.length).toBeGreaterThan(5);
    expect(pool.length).toBeLessThanOrEqual(15);
    expect(llmSteps(loc.trace)).toEqual(['T0', 'T1', 'phase1', 'phase1', 'phase1', 'phase1', 'phase1', 'phase1', 'phase2']);
    const tools = loc.trace.filter((e) => e.type === 'tool');
    expect(tools.map((t) => (t.input as { path: string }).path)).toEqual(pool.slice(0, 5));
    const ctx = await contextFor(instance, undefined);
    // each inspection shows the file's skeleton within the 3,000-token default (a file without a class or function says so)
    for (const t of tools) expect(t.output).toBe(fittedSkeleton((await ctx.snapshot.readFile((t.input as { path: string }).path))!, 3_000));
    // Phase 1 scored the top five in retrieval order, EAR reversed them; then the rest of the pool, then retrieval
    expect(loc.files.slice(0, 5).map((f) => f.path)).toEqual(pool.slice(0, 5).reverse());
    expect(loc.files.slice(5, pool.length).map((f) => f.path)).toEqual(pool.slice(5));
    expect(loc.files[0]!.evidence).toMatchObject({ stage: 'ear', phase1Score: 6 });
    expect(new Set(loc.files.map((f) => f.path)).size).toBe(loc.files.length);
    for (let i = 1; i < loc.files.length; i++) expect(loc.files[i]!.score).toBeLessThan(loc.files[i - 1]!.score);
    // the tool output is what the model saw next
    const phase1Requests = scripted.server.chatRequests().filter((r) => phaseOf(toScripted(r)) === 'phase1');
    expect(phase1Requests).toHaveLength(6);
    const second = phase1Requests[1]!.body as { messages: Array<{ content: string }>; stop: string[] };
    expect(second.messages[3]!.content).toBe(`Observation: ${tools[0]!.output}`);
    expect(second.stop).toContain('Observation:');
    // usage and timings
    const calls = loc.trace.filter((e) => e.type === 'llm');
    expect(loc.usage.calls).toBe(9);
    expect(loc.usage.promptTokens).toBe(calls.reduce((s, e) => s + (e.type === 'llm' ? e.trace.response!.usage.promptTokens : 0), 0));
    expect(loc.usage.completionTokens).toBeGreaterThan(0);
    for (const key of ['index', 'queries', 'retrieval', 'phase1', 'phase2', 'total', 'model', 'overhead', 'model.phase1'])
      expect(loc.timingsMs[key], key).toBeGreaterThanOrEqual(0);
    // EAR saw the pruned views of exactly the Phase 1 top five
    const ear = scripted.server.chatRequests().find((r) => phaseOf(toScripted(r)) === 'phase2')!;
    expect(earFilesOf(toScripted(ear))).toEqual(pool.slice(0, 5));
  });

  it("phase1History 'outline': older skeletons are replaced by their outline, the newest stays in full", async () => {
    scripted.server.setScenario({ policy: blagentPolicy({ inspect: 3 }) });
    const loc = await new BlagentLocalizer({ phase1History: 'outline' }).localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    const tools = loc.trace.filter((e) => e.type === 'tool');
    const paths = tools.map((t) => (t.input as { path: string }).path);
    const last = scripted.server
      .chatRequests()
      .filter((r) => phaseOf(toScripted(r)) === 'phase1')
      .at(-1)!;
    const observations = (last.body as { messages: Array<{ role: string; content: string }> }).messages
      .filter((m) => m.content.startsWith('Observation:'))
      .map((m) => m.content);
    expect(observations).toEqual([
      `Observation: (outline of ${paths[0]}; full skeleton shown earlier)\n${outlineOfSkeleton(tools[0]!.output)}`,
      `Observation: (outline of ${paths[1]}; full skeleton shown earlier)\n${outlineOfSkeleton(tools[1]!.output)}`,
      `Observation: ${tools[2]!.output}`,
    ]);
    expect(loc.files.slice(0, 3).map((f) => f.path)).toEqual(paths);
  });

  it("phase1History 'notes' (default): older skeletons become one-line notes, the agent's Thoughts stay", async () => {
    scripted.server.setScenario({ policy: blagentPolicy({ inspect: 3 }) });
    const loc = await new BlagentLocalizer().localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    const tools = loc.trace.filter((e) => e.type === 'tool');
    const paths = tools.map((t) => (t.input as { path: string }).path);
    const last = scripted.server
      .chatRequests()
      .filter((r) => phaseOf(toScripted(r)) === 'phase1')
      .at(-1)!;
    const messages = (last.body as { messages: Array<{ role: string; content: string }> }).messages;
    const observations = messages.filter((m) => m.content.startsWith('Observation:')).map((m) => m.content);
    expect(observations).toHaveLength(3);
    for (const [i, note] of observations.slice(0, 2).entries()) {
      const outline = outlineOfSkeleton(tools[i]!.output)
        .split('\n')
        .filter((l) => l.trim());
      const classes = outline.filter((l) => /^\s*class /.test(l)).length;
      expect(note).toBe(
        `Observation: (skeleton of ${paths[i]} shown earlier: ${classes} classes, ${outline.length - classes} functions/methods; your Thought after it holds what you concluded)`,
      );
    }
    expect(observations[2]).toBe(`Observation: ${tools[2]!.output}`);
    // every earlier assistant turn (Thought + Action) is still there
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content.match(/ReadFileSkeleton\[(.*)\]/)?.[1])).toEqual(paths);
    expect(loc.files.slice(0, 3).map((f) => f.path)).toEqual(paths);
  });

  it('uses the T0/T1 answers as retrieval queries; Phase 1 scores order the EAR input', async () => {
    const instance = instanceWithPool();
    const gold = bench.catalog.find((c) => c.instance_id === instance.instance_id)!.goldFiles;
    scripted.server.setScenario({
      policy: blagentPolicy({
        t0: () => 'Query: TemplateCompiler filter pipeline split arguments',
        t1: () => 'Splitting on commas inside string literals crashes the compiler.',
        inspect: 2,
        // the least similar candidate is the one the agent believes in
        scores: (candidates) => `Final Answer: {"${candidates[candidates.length - 1]}": 10, "${candidates[0]}": 3}`,
      }),
    });
    const loc = await new BlagentLocalizer({ earFiles: 3 }).localize(await contextFor(instance, scriptedChatModel(scripted.server)));
    const note = loc.trace.find((e) => e.type === 'note' && e.step === 'retrieval') as {
      data: { queries: Array<{ label: string; text: string }>; pool: string[] };
    };
    expect(note.data.queries).toEqual([
      { label: 'T0', text: 'TemplateCompiler filter pipeline split arguments' },
      { label: 'T1', text: 'Splitting on commas inside string literals crashes the compiler.' },
    ]);
    const pool = note.data.pool;
    expect(loc.files.slice(0, 3).map((f) => f.path)).toEqual([pool[pool.length - 1], pool[0], pool[1]]);
    expect(loc.files.map((f) => f.path)).toEqual(expect.arrayContaining(gold));
  });

  it('recovers from malformed and partial answers and hallucinated paths, recording each', async () => {
    scripted.server.setScenario({
      policy: (request) => {
        if (phaseOf(request) !== 'phase1') return blagentPolicy()(request);
        const candidates = candidatesOf(request);
        return [
          'Thought: let me look.\nAction: ReadFileSkeleton[src/nowhere/fake.py]',
          `Thought: ok\nAction: ReadFileSkeleton[${candidates[1]}]`,
          'The bug is probably in the compiler.',
          `Final Answer: {'${candidates[1]}': 9, 'src/nowhere/fake.py': 8,`,
          `Final Answer:\n\`\`\`json\n{'${candidates[1]}': 9, 'src/nowhere/fake.py': 8,}\n\`\`\``,
        ][Math.min(turnOf(request), 4)]!;
      },
    });
    const loc = await new BlagentLocalizer().localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    const pool = poolOf(loc);
    const p1 = notes(loc.trace, 'phase1');
    expect(p1).toEqual([
      'tool argument "src/nowhere/fake.py" is not a candidate',
      'unusable reply (retry 1 of 5): the reply has neither an "Action: ReadFileSkeleton[<path>]" line nor a "Final Answer:"',
      'unusable reply (retry 2 of 5): the Final Answer could not be read: no JSON value in the answer.',
      'final answer: 1 entries dropped',
      'scores for 1 of ' + pool.length + ' candidates',
    ]);
    expect(loc.trace.filter((e) => e.type === 'tool')).toHaveLength(1);
    expect(loc.files[0]!.path).toBe(pool[1]);
    expect(loc.files[0]!.evidence).toMatchObject({ phase1Score: 9 });
    // the model was told about the foreign path
    const third = scripted.server.chatRequests().filter((r) => phaseOf(toScripted(r)) === 'phase1')[1]!;
    expect((third.body as { messages: Array<{ content: string }> }).messages[3]!.content).toMatch(
      /^Observation: "src\/nowhere\/fake.py" is not one of the candidate files/,
    );
  });

  it('step-limit exhaustion: actions past the limit are refused, then retrieval order with the reason', async () => {
    scripted.server.setScenario({
      policy: (request) => {
        if (phaseOf(request) !== 'phase1') return blagentPolicy()(request);
        const candidates = candidatesOf(request);
        return `Thought: more\nAction: ReadFileSkeleton[${candidates[turnOf(request) % candidates.length]}]`;
      },
    });
    const loc = await new BlagentLocalizer({ maxSteps: 3, maxRetries: 2 }).localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    expect(loc.trace.filter((e) => e.type === 'tool')).toHaveLength(3);
    expect(llmSteps(loc.trace).filter((s) => s === 'phase1')).toHaveLength(6);
    const p1 = notes(loc.trace, 'phase1');
    expect(p1.slice(0, 3)).toEqual([
      'unusable reply (retry 1 of 2): the step limit (3 inspections) is reached.',
      'unusable reply (retry 2 of 2): the step limit (3 inspections) is reached.',
      'unusable reply (no retries left): the step limit (3 inspections) is reached.',
    ]);
    expect(p1[3]).toMatch(/^fell back to retrieval order: no usable answer after 2 retries \(6 replies, 3 inspections\)/);
    const pool = poolOf(loc);
    expect(loc.files.slice(0, pool.length).map((f) => f.path)).toEqual(pool);
    // the last inspection told the model to answer
    const fourth = scripted.server.chatRequests().filter((r) => phaseOf(toScripted(r)) === 'phase1')[3]!;
    expect((fourth.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content).toMatch(/That was your last inspection/);
  });

  it('EAR: an unusable answer is retried, then the Phase 1 order is kept', async () => {
    scripted.server.setScenario({ policy: blagentPolicy({ ear: () => 'The second file, clearly.' }) });
    const loc = await new BlagentLocalizer({ maxRetries: 1 }).localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    expect(llmSteps(loc.trace).filter((s) => s === 'phase2')).toHaveLength(2);
    expect(notes(loc.trace, 'phase2').filter((m) => /unusable|kept/.test(m))).toEqual([
      'unusable answer (retry 1 of 1): no JSON value in the answer',
      'unusable answer (no retries left): no JSON value in the answer',
      'kept the Phase 1 order: no usable answer after 1 retries; last problem: no JSON value in the answer',
    ]);
    expect(loc.files.slice(0, 5).map((f) => f.path)).toEqual(poolOf(loc).slice(0, 5));
    expect(loc.files[0]!.evidence).toMatchObject({ stage: 'phase1' });
  });

  it('server errors are retried by the model layer; a server that stays down fails the instance', async () => {
    scripted.server.setScenario({
      rules: [{ name: 'flaky', match: (r) => phaseOf(r) === 'phase1', failures: [{ status: 500 }, { status: 503 }], respond: (r) => blagentPolicy()(r)! }],
      policy: blagentPolicy(),
    });
    const loc = await new BlagentLocalizer().localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server)));
    const firstPhase1 = loc.trace.find((e) => e.type === 'llm' && e.step === 'phase1')!;
    expect(firstPhase1.type === 'llm' && firstPhase1.trace.retries?.map((r) => r.status)).toEqual([500, 503]);
    expect(loc.files.length).toBeGreaterThan(0);

    scripted.server.setScenario({ rules: [{ match: (r) => phaseOf(r) === 'T1', respond: { status: 503 } }], policy: blagentPolicy() });
    await expect(new BlagentLocalizer().localize(await contextFor(instanceWithPool(), scriptedChatModel(scripted.server, { maxAttempts: 3 })))).rejects.toThrow(
      /503/,
    );
    expect(scripted.server.chatRequests().filter((r) => phaseOf(toScripted(r)) === 'T1')).toHaveLength(3);
  });

  it('timeouts: retried, then the instance fails with a timeout error', async () => {
    scripted.server.setScenario({ rules: [{ match: (r) => phaseOf(r) === 'T0', delayMs: 2_000, respond: 'late' }], policy: blagentPolicy() });
    const llm = scriptedChatModel(scripted.server, { timeoutMs: 150, maxAttempts: 2 });
    await expect(new BlagentLocalizer().localize(await contextFor(instanceWithPool(), llm))).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringMatching(/no answer within 150 ms/),
    });
    expect(scripted.server.chatRequests().filter((r) => phaseOf(toScripted(r)) === 'T0')).toHaveLength(2);
  });

  it('a second run is served from the response cache: the server sees no new request, the result is the same', async () => {
    scripted.server.setScenario({ policy: blagentPolicy() });
    const cacheDir = path.join(dir, 'llm-cache');
    const instance = instanceWithPool();
    const first = await new BlagentLocalizer().localize(await contextFor(instance, scriptedChatModel(scripted.server, { cacheDir })));
    const requests = scripted.server.chatRequests().length;
    expect(requests).toBe(9);
    const second = await new BlagentLocalizer().localize(await contextFor(instance, scriptedChatModel(scripted.server, { cacheDir })));
    expect(scripted.server.chatRequests().length).toBe(requests);
    expect(second.files).toEqual(first.files);
    expect(second.usage).toEqual(first.usage);
    for (const e of second.trace) if (e.type === 'llm') expect(e.trace.response!.cached).toBe(true);
  });

  it('function level (§3.7): EAR names entities; functions are checked against the files and fill the output', async () => {
    const instance = instanceWithPool();
    const index = await services.index(await services.snapshot(instance.repo, instance.base_commit));
    let shown: string[] = [];
    // the last shown file that defines something (an __init__.py may define nothing)
    const targetOf = (files: string[]): string => [...files].reverse().find((f) => index.definitionsInFile(f).length > 0)!;
    const definitionOf = (file: string) => index.definitionsInFile(file).find((x) => x.kind === 'method') ?? index.definitionsInFile(file)[0]!;
    scripted.server.setScenario({
      policy: blagentPolicy({
        functions: (files) => {
          shown = files;
          const target = targetOf(files);
          return JSON.stringify([`${target}::${definitionOf(target).qualifiedName.split('.').join('::')}`, `${target}::no_such_function`, 'elsewhere.py::f']);
        },
      }),
    });
    const loc = await new BlagentLocalizer({ level: 'function' }).localize(await contextFor(instance, scriptedChatModel(scripted.server)));
    const target = targetOf(shown);
    expect(loc.functions).toEqual([{ path: target, name: definitionOf(target).qualifiedName, score: 1 }]);
    expect(loc.files.slice(0, shown.length).map((f) => f.path)).toEqual([target, ...shown.filter((f) => f !== target)]);
    expect(notes(loc.trace, 'phase2')).toContain('2 entries dropped');
  });

  it('without a model: a clear error, or retrieval order with allowNoLlm', async () => {
    const ctx = await contextFor(instanceWithPool(), undefined);
    await expect(new BlagentLocalizer().localize(ctx)).rejects.toThrow(/blagent needs a chat model: pass --llm/);
    const loc = await new BlagentLocalizer({ allowNoLlm: true }).localize(ctx);
    expect(loc.usage).toEqual({ promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 });
    expect(loc.files.slice(0, poolOf(loc).length).map((f) => f.path)).toEqual(poolOf(loc));
    expect(notes(loc.trace, 'queries')[0]).toMatch(/no LLM configured/);
  });
});

/** The scripted server's recorded request as the policy helpers see it. */
function toScripted(recorded: { body: unknown }): ScriptedChatRequest {
  const body = recorded.body as { messages: Array<{ role: string; content: string }> };
  const messages = body.messages;
  return {
    messages,
    system: messages.find((m) => m.role === 'system')?.content ?? '',
  } as ScriptedChatRequest;
}
