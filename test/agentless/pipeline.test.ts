/**
 * The Agentless file localizer and the hierarchy stages on the mini-benchmark through the scripted model
 * server (real git mirrors, tree-sitter, Chroma, lexical embedder): prompts, combine, retries, samples,
 * exact line ranges in the artifacts, and the round trip through Agentless' loc_outputs.jsonl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { Services } from '../../app/services.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readArtifact } from '../../src/run/stage-runner.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { AgentlessLocalizer } from '../../localizer/agentless/index.ts';
import { agentlessTree } from '../../localizer/agentless/tree.ts';
import { combineFileLists } from '../../localizer/agentless/combine.ts';
import { OracleLocalizer } from '../../localizer/oracle/index.ts';
import { runFileLocalization } from '../../localizer/stage.ts';
import { functionLocalizationStage, lineLocalizationStage, type FunctionStageOutput, type LineStageOutput } from '../../localizer/hierarchy/stage.ts';
import { STAGE, runStageOver } from '../../src/run/stage.ts';
import { exportRun, importRecord, readLocOutputs, writeLocOutputs } from '../../localizer/interchange/loc-outputs.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest } from '../support/scripted-model-server.ts';
import { withCapabilities } from '../../localizer/capabilities.ts';

const scripted = useScriptedModelServer();
let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;
let counter = 0;
const opened: Services[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-agentless-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  chroma = await startChromaServer({ dataDir: path.join(dir, 'chroma'), reuse: false });
});

afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await chroma?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** fresh services (own response cache) against the shared Chroma server and the scripted model */
function services(): Services {
  const s = new Services({
    cacheDir: path.join(dir, `cache-${++counter}`),
    mirrorsDir: bench.mirrorsDir,
    embedder: 'lexical',
    chromaUrl: chroma.url,
    llm: `openai:scripted@${scripted.server.openaiURL}`,
  });
  opened.push(s);
  return s;
}

const instance = (id: string): SweInstance => bench.instances.find((i) => i.instance_id === id)!;
const stageOf = (r: ScriptedChatRequest): string =>
  r.lastUser.includes('name the folders')
    ? 'irrelevant'
    : r.lastUser.includes('name the files')
      ? 'files'
      : r.lastUser.includes('skeletons of the relevant files')
        ? 'related'
        : r.lastUser.includes('places that have to be edited')
          ? 'lines'
          : 'unknown';
const bodies = () =>
  scripted.server.chatRequests().map((r) => r.body as { messages: Array<{ role: string; content: string }>; temperature?: number; n?: number; seed?: number });

/** 1-based [start, end] of a top-level `def name` block: to the last non-blank line before the next top-level line */
function topLevelRange(content: string, header: string): { start: number; end: number } {
  const lines = content.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header)) + 1;
  expect(start).toBeGreaterThan(0);
  let end = start;
  for (let i = start; i < lines.length; i++) {
    if (lines[i].length > 0 && !/^\s/.test(lines[i])) break;
    if (lines[i].trim()) end = i + 1;
  }
  return { start, end };
}

// the hierarchy stages run on their own over a run folder, as `locfix localize-functions|lines` runs them
const runFunctionLocalization = (instances: SweInstance[], svc: Services, settings: { runDir: string }) =>
  runStageOver(functionLocalizationStage(svc), instances, { layout: new RunLayout(settings.runDir) });
const runLineLocalization = (instances: SweInstance[], svc: Services, settings: { runDir: string }) =>
  runStageOver(lineLocalizationStage(svc), instances, { layout: new RunLayout(settings.runDir) });

describe('AgentlessLocalizer (file level)', () => {
  it('shows the tree, asks for files and irrelevant folders, retrieves over the rest, combines the top 3 of each', async () => {
    const svc = services();
    const inst = instance('minibench__confetti-5');
    scripted.server.setScenario({
      policy: (r) => {
        const stage = stageOf(r);
        if (stage === 'files') return 'The files:\n```\nconfetti/env.py\nconfetti/nope.py\nconfetti/config.py\n```';
        if (stage === 'irrelevant') return '```\nconfetti/cli.py\nexamples/\n```';
        return undefined;
      },
    });
    const localizer = new AgentlessLocalizer({
      retrievalIndex: { embedder: svc.embedder, vectorStore: await svc.vectorStore(), cacheDir: svc.settings.cacheDir },
    });
    const runDir = path.join(dir, 'runs', 'file-level');
    const [artifact] = await runFileLocalization([inst], localizer, svc, { runDir, dataset: bench.datasetPath });
    expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
    const out = artifact.output!;
    const snapshot = await svc.snapshot(inst.repo, inst.base_commit);
    const tree = agentlessTree((await snapshot.listFiles()).map((e) => e.path));
    expect(tree.text).toContain('confetti/\n    __init__.py');
    expect(tree.text).not.toMatch(/test/);

    const requests = bodies();
    expect(requests.map((b) => stageOf({ lastUser: b.messages[1].content } as ScriptedChatRequest))).toEqual(['files', 'irrelevant']);
    for (const b of requests) {
      expect(b.temperature).toBe(0);
      expect(b.messages[1].content).toContain(`### Repository layout ###\n${tree.text}\n\n###`);
      expect(b.messages[1].content).toContain(inst.problem_statement.trim().slice(0, 200));
    }
    const retrievalNote = out.trace.find((e) => e.type === 'note' && e.step === 'retrieval' && e.data) as {
      data: { files: string[]; chunks: Array<{ path: string }> };
    };
    const retrieved = retrievalNote.data.files;
    expect(retrieved.length).toBeGreaterThan(0);
    // the irrelevant file never comes back from retrieval, the rest can
    expect(retrieved).not.toContain('confetti/cli.py');
    for (const p of retrieved) expect(tree.files).toContain(p);
    expect(out.files.map((f) => f.path)).toEqual(combineFileLists(['confetti/env.py', 'confetti/config.py'], retrieved, 3).map((c) => c.path));
    expect(out.files[0].evidence).toMatchObject({ llmRank: 1 });
    expect(out.usage.calls).toBe(2);
    expect(out.trace.filter((e) => e.type === 'llm').map((e) => e.step)).toEqual(['files', 'irrelevant']);
    expect(out.trace.some((e) => e.type === 'note' && /shared locfix index/.test(e.message))).toBe(false);

    // the same index from JSON options (what `locfix localize --options` passes) retrieves the same files,
    // and so does the default: the run's own embedder and store with Agentless' chunking (ctx.index(parser))
    const fromJson = await new AgentlessLocalizer({ agentlessIndex: { chromaUrl: chroma.url, embedder: 'lexical', cacheDir: svc.settings.cacheDir } }).localize(
      withCapabilities({ instance: inst, snapshot, index: (parser) => svc.index(snapshot, parser), llm: svc.llm }, ['model']),
    );
    expect(fromJson.files.map((f) => f.path)).toEqual(out.files.map((f) => f.path));
    const viaContext = await new AgentlessLocalizer().localize(
      withCapabilities({ instance: inst, snapshot, index: (parser) => svc.index(snapshot, parser), llm: svc.llm }, ['model']),
    );
    expect(viaContext.files.map((f) => f.path)).toEqual(out.files.map((f) => f.path));
  });
});

describe('hierarchy after any file localizer', () => {
  const inst = () => instance('minibench__confetti-5');

  async function oracleRun(svc: Services, name: string): Promise<{ runDir: string; files: string[] }> {
    const runDir = path.join(dir, 'runs', name);
    const [a] = await runFileLocalization([inst()], new OracleLocalizer(), svc, { runDir, dataset: bench.datasetPath });
    expect(a.status).toBe('ok');
    return { runDir, files: a.output!.files.map((f) => f.path) };
  }

  it('related elements: skeleton prompt, retry at temperature 1.0 when nothing resolves, exact ranges; then 4 line-level samples', async () => {
    const svc = services();
    const { runDir, files } = await oracleRun(svc, 'hier');
    expect(files).toContain('confetti/types.py');
    scripted.server.setScenario({
      policy: (r, sample) => {
        const stage = stageOf(r);
        if (stage === 'related') {
          // greedy: names nothing that exists; the retry answers without fences, indented
          if (r.temperature === 0) return '```\nconfetti/types.py\nfunction: to_boolean\nclass: Missing\n```';
          return 'confetti/types.py\n   function: to_bool\n   variable: _FALSE\n';
        }
        if (stage === 'lines') {
          return [
            '```\nconfetti/types.py\nline: 16\nline: 17\n```',
            '```\nconfetti/types.py\nfunction: to_bool\n```',
            '```\nconfetti/types.py\nline: 9999\n```',
            'no locations at all',
          ][sample];
        }
        return undefined;
      },
    });
    const [fa] = await runFunctionLocalization([inst()], svc, { runDir });
    expect(fa.status, JSON.stringify(fa.error)).toBe('ok');
    const related = fa.output!;
    expect(related.attempts).toBe(2);
    const relatedBodies = bodies();
    expect(relatedBodies.map((b) => b.temperature)).toEqual([0, 1]);
    expect(relatedBodies[1].seed).toBe(1);
    const prompt = relatedBodies[0].messages[1].content;
    expect(prompt).toContain('### File: confetti/types.py ###\n```python\n');
    expect(prompt).toContain('def to_bool(value):\n...\n');
    expect(prompt).not.toContain('return value != 0');

    const snapshot = await svc.snapshot(inst().repo, inst().base_commit);
    const content = (await snapshot.readFile('confetti/types.py'))!;
    const toBool = topLevelRange(content, 'def to_bool(');
    const falseLine = content.split('\n').findIndex((l) => l.startsWith('_FALSE = ')) + 1;
    expect(related.elements.map((e) => [e.kind, e.name, e.range])).toEqual([
      ['function', 'to_bool', toBool],
      ['variable', '_FALSE', { start: falseLine, end: falseLine }],
    ]);
    expect(related.codeElements).toEqual([
      { path: 'confetti/types.py', name: 'to_bool' },
      { path: 'confetti/types.py', name: '<module>' },
    ]);
    expect(related.locations['confetti/types.py']).toEqual(['function: to_bool', 'variable: _FALSE']);
    expect(related.fileLocalizer).toBe('oracle');

    scripted.server.reset();
    const [la] = await runLineLocalization([inst()], svc, { runDir });
    expect(la.status, JSON.stringify(la.error)).toBe('ok');
    const lines: LineStageOutput = la.output!;
    const [lineBody] = bodies();
    expect(lineBody.n).toBe(4);
    expect(lineBody.temperature).toBe(0.8);
    const linePrompt = lineBody.messages[1].content;
    const numbered = content.split('\n');
    expect(linePrompt).toContain(`### confetti/types.py\n`);
    expect(linePrompt).toContain(`${toBool.start}|${numbered[toBool.start - 1]}`);
    expect(linePrompt).toContain(`${toBool.end + 10}|${numbered[toBool.end + 9]}`);
    expect(lines.context).toEqual([{ path: 'confetti/types.py', intervals: [{ start: 1, end: Math.min(toBool.end + 10, numbered.length - 1) }] }]);
    expect(lines.locationSets).toEqual([
      {
        files: [
          {
            path: 'confetti/types.py',
            ranges: [
              { start: 16, end: 16 },
              { start: 17, end: 17 },
            ],
            elements: ['line: 16', 'line: 17'],
          },
        ],
      },
      { files: [{ path: 'confetti/types.py', ranges: [toBool], elements: ['function: to_bool'] }] },
      { files: [] },
      { files: [] },
    ]);
    expect(lines.samples[2].unresolved[0].reason).toMatch(/out of range/);
    expect(lines.attempts).toBe(1);

    // the same stages read any localizer's ranking: a different file stage name works alike
    const layout = new RunLayout(runDir);
    expect((await readArtifact<FunctionStageOutput>(layout, STAGE.functions, inst().instance_id))?.status).toBe('ok');
  });

  it('gives up after 5 attempts when nothing ever resolves, and records every answer', async () => {
    const svc = services();
    const { runDir } = await oracleRun(svc, 'exhaust');
    scripted.server.setScenario({ policy: (r) => (stageOf(r) === 'related' ? '```\nconfetti/types.py\nfunction: does_not_exist\n```' : undefined) });
    const [fa] = await runFunctionLocalization([inst()], svc, { runDir });
    expect(fa.status).toBe('ok');
    expect(fa.output!.attempts).toBe(5);
    expect(fa.output!.elements).toEqual([]);
    expect(fa.output!.rawOutputs).toHaveLength(5);
    expect(bodies().map((b) => b.temperature)).toEqual([0, 1, 1, 1, 1]);
    expect(new Set(bodies().map((b) => b.seed)).size).toBe(5);
    // the line stage then has nothing to show and says so, without calling the model
    scripted.server.reset();
    const [la] = await runLineLocalization([inst()], svc, { runDir });
    expect(la.status).toBe('ok');
    expect(la.output!.locationSets).toEqual([]);
    expect(bodies()).toHaveLength(0);
  });

  it('fails the instance clearly when the file stage has not run', async () => {
    const svc = services();
    const [fa] = await runFunctionLocalization([inst()], svc, { runDir: path.join(dir, 'runs', 'empty') });
    expect(fa.status).toBe('error');
    expect(fa.error!.message).toMatch(/no localize-files artifact/);
  });
});

describe("Agentless' loc_outputs.jsonl", () => {
  it('round-trips a locfix run, and imports records written the way Agentless writes them', async () => {
    const svc = services();
    const inst = instance('minibench__confetti-5');
    const runDir = path.join(dir, 'runs', 'export');
    await runFileLocalization([inst], new OracleLocalizer(), svc, { runDir, dataset: bench.datasetPath });
    scripted.server.setScenario({
      policy: (r, sample) =>
        stageOf(r) === 'related'
          ? '```\nconfetti/types.py\nfunction: to_bool\nfunction: to_int\n```'
          : stageOf(r) === 'lines'
            ? `\`\`\`\nconfetti/types.py\nline: ${10 + sample}\nfunction: to_int\n\`\`\``
            : undefined,
    });
    await runFunctionLocalization([inst], svc, { runDir });
    await runLineLocalization([inst], svc, { runDir });
    const records = await exportRun(runDir, [inst.instance_id]);
    const file = path.join(dir, 'loc_outputs.jsonl');
    await writeLocOutputs(file, records);
    const row = JSON.parse((await readFile(file, 'utf8')).split('\n')[0]);
    expect(Object.keys(row)).toEqual([
      'instance_id',
      'found_files',
      'additional_artifact_loc_file',
      'file_traj',
      'found_related_locs',
      'additional_artifact_loc_related',
      'related_loc_traj',
      'found_edit_locs',
      'additional_artifact_loc_edit_location',
      'edit_loc_traj',
    ]);
    expect(row.found_related_locs['confetti/types.py']).toEqual(['function: to_bool\nfunction: to_int']);
    expect(row.found_edit_locs).toHaveLength(4);
    expect(row.found_edit_locs[1]['confetti/types.py']).toEqual(['line: 11\nfunction: to_int']);

    const back = await readLocOutputs(file);
    const importDir = path.join(dir, 'runs', 'imported');
    const snapshot = await svc.snapshot(inst.repo, inst.base_commit);
    const result = await importRecord(importDir, back[0], snapshot);
    expect(result.stages).toEqual([STAGE.files, STAGE.functions, STAGE.lines]);
    const original = new RunLayout(runDir);
    const imported = new RunLayout(importDir);
    const origLines = (await readArtifact<LineStageOutput>(original, STAGE.lines, inst.instance_id))!.output!;
    const impLines = (await readArtifact<LineStageOutput>(imported, STAGE.lines, inst.instance_id))!.output!;
    expect(impLines.locationSets).toEqual(origLines.locationSets);
    const origRel = (await readArtifact<FunctionStageOutput>(original, STAGE.functions, inst.instance_id))!.output!;
    const impRel = (await readArtifact<FunctionStageOutput>(imported, STAGE.functions, inst.instance_id))!.output!;
    expect(impRel.elements).toEqual(origRel.elements);
    expect((await readArtifact<FileLocalization>(imported, STAGE.files, inst.instance_id))!.output!.files.map((f) => f.path)).toEqual(row.found_files);
    // export of the imported run gives the same Agentless locations back
    const again = await exportRun(importDir, [inst.instance_id]);
    expect(again[0].found_related_locs).toEqual(row.found_related_locs);
    expect(again[0].found_edit_locs).toEqual(row.found_edit_locs);

    // a record as Agentless' combine/merge steps write it: no related level, merged edit locations (leading newline)
    const agentlessFile = path.join(dir, 'agentless.jsonl');
    await writeFile(
      agentlessFile,
      JSON.stringify({
        instance_id: inst.instance_id,
        found_files: ['confetti/types.py', 'confetti/env.py'],
        additional_artifact_loc_file: {},
        file_traj: {},
        found_edit_locs: { 'confetti/types.py': ['\nfunction: to_bool\nline: 12'], 'confetti/env.py': [''] },
      }) + '\n',
    );
    const [rec] = await readLocOutputs(agentlessFile);
    expect(rec.found_related_locs).toEqual({});
    const res2 = await importRecord(path.join(dir, 'runs', 'imported2'), rec, snapshot);
    expect(res2.stages).toEqual([STAGE.files, STAGE.lines]);
    const sets = (await readArtifact<LineStageOutput>(new RunLayout(path.join(dir, 'runs', 'imported2')), STAGE.lines, inst.instance_id))!.output!.locationSets;
    const content = (await snapshot.readFile('confetti/types.py'))!;
    const toBool = topLevelRange(content, 'def to_bool(');
    expect(sets).toEqual([{ files: [{ path: 'confetti/types.py', ranges: [toBool], elements: ['function: to_bool', 'line: 12'] }] }]);
    await expect(readLocOutputs(path.join(dir, 'nope.jsonl'))).rejects.toThrow();
    await writeFile(path.join(dir, 'bad.jsonl'), '{"found_files": []}\n');
    await expect(readLocOutputs(path.join(dir, 'bad.jsonl'))).rejects.toThrow(/bad.jsonl:1: not an Agentless localization record: instance_id/);
  });
});
