/**
 * End to end: `locfix localize --localizer blagent` on the mini-benchmark, the CLI in a child process
 * talking to the scripted model server over loopback (real OpenAI client), a real Chroma server, then
 * `locfix eval-loc --stage localize-files`; a failing model endpoint is a recorded failure, resume
 * re-asks nothing, `--retry-errors` finishes the failed instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { blagentPolicy, issueOf } from './scripted-policy.ts';

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
const scripted = useScriptedModelServer();

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-blagent-e2e-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  chroma = await startChromaServer({ dataDir: path.join(dir, 'chroma'), reuse: false });
});

afterAll(async () => {
  await chroma?.stop();
  await rm(dir, { recursive: true, force: true });
});

function locfix(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return exec(process.execPath, [BIN, ...args], { env: { ...process.env, LOCFIX_CACHE_DIR: path.join(dir, 'cache') }, maxBuffer: 1 << 24 })
    .then((r) => ({ ...r, code: 0 }))
    .catch((e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }));
}

/** An informed scripted model: it knows each issue's gold files and puts them first in both phases. */
function informedPolicy(failingIssue: string | undefined): (request: ScriptedChatRequest) => ScriptedReply | undefined {
  const goldByIssue = new Map(bench.instances.map((i) => [i.problem_statement.trim(), bench.catalog.find((c) => c.instance_id === i.instance_id)!.goldFiles]));
  return (request) => {
    const issue = issueOf(request).trim();
    if (failingIssue !== undefined && issue === failingIssue.trim()) return { status: 503 };
    const gold = goldByIssue.get(issue) ?? [];
    const goldFirst = (files: string[]): string[] => [...files.filter((f) => gold.includes(f)), ...files.filter((f) => !gold.includes(f))];
    return blagentPolicy({
      scores: (candidates, inspected) =>
        `Final Answer: ${JSON.stringify(Object.fromEntries([...new Set([...goldFirst(candidates).filter((c) => gold.includes(c)), ...inspected])].map((p) => [p, gold.includes(p) ? 10 : 2])))}`,
      ear: (files) => JSON.stringify(goldFirst(files)),
    })(request);
  };
}

describe('locfix localize --localizer blagent', () => {
  it('localizes every instance, records the failing one, and eval-loc scores the run', { timeout: 600_000 }, async () => {
    // three instances of one project keep the (cold) indexing short; one of them meets a failing endpoint
    const chosen = bench.instances.filter((i) => i.instance_id.startsWith('minibench__confetti-'));
    expect(chosen).toHaveLength(3);
    const failing = chosen[1]!;
    scripted.server.setScenario({ policy: informedPolicy(failing.problem_statement) });
    const run = path.join(dir, 'runs', 'b1');
    const args = [
      'localize',
      '--localizer',
      'blagent',
      '--llm',
      `openai:scripted@${scripted.server.openaiURL}`,
      '--dataset',
      bench.datasetPath,
      '--mirrors',
      bench.mirrorsDir,
      '--chroma-url',
      chroma.url,
      '--cache-dir',
      path.join(dir, 'cache'),
      '--instances',
      chosen.map((i) => i.instance_id).join(','),
      '--out',
      run,
    ];
    const res = await locfix(args);
    expect(res.code, res.stderr).toBe(0);
    const layout = new RunLayout(run);
    let goldInPool = 0;
    for (const inst of chosen) {
      const artifact = JSON.parse(await readFile(layout.artifactPath('localize-files', inst.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      if (inst.instance_id === failing.instance_id) {
        expect(artifact.status).toBe('error');
        expect(artifact.error!.message).toMatch(/503/);
        continue;
      }
      expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
      const out = artifact.output!;
      expect(out.localizer).toBe('blagent');
      expect(out.usage.calls).toBeGreaterThanOrEqual(4);
      expect(out.trace.some((e) => e.type === 'llm' && e.step === 'phase2')).toBe(true);
      const pool = (out.trace.find((e) => e.type === 'note' && e.step === 'retrieval') as { data: { pool: string[] } }).data.pool;
      const gold = bench.catalog.find((c) => c.instance_id === inst.instance_id)!.goldFiles;
      if (pool.some((p) => gold.includes(p))) {
        goldInPool += 1;
        expect(gold, inst.instance_id).toContain(out.files[0]!.path);
      }
    }
    expect(goldInPool).toBe(chosen.length - 1);
    const evalRes = await locfix(['eval-loc', run, '--stage', 'localize-files', '--json']);
    expect(evalRes.code, evalRes.stderr).toBe(0);
    const metrics = JSON.parse(evalRes.stdout.trim()) as {
      n: number;
      top1: number;
      notReached: Array<{ id: string; cause: string }>;
      reached: { n: number; top1: number };
    };
    // the server's 503 is not the method's failure: listed with its cause (issue 41), a miss in the headline until
    // rerun (issue 52: every selected instance), and out of the rates over the reached
    expect(metrics.n).toBe(chosen.length);
    expect(metrics.notReached).toEqual([{ id: failing.instance_id, cause: 'infrastructure: server-error' }]);
    expect(metrics.top1).toBeCloseTo(goldInPool / chosen.length, 5);
    expect(metrics.reached.n).toBe(chosen.length - 1);
    expect(metrics.reached.top1).toBeCloseTo(goldInPool / (chosen.length - 1), 5);

    // resume: nothing is asked again; the failure stays recorded until --retry-errors
    const before = scripted.server.chatRequests().length;
    const again = await locfix(args);
    expect(again.code, again.stderr).toBe(0);
    expect(scripted.server.chatRequests().length).toBe(before);
    scripted.server.setScenario({ policy: informedPolicy(undefined) });
    const retried = await locfix([...args, '--retry-errors']);
    expect(retried.code, retried.stderr).toBe(0);
    const fixed = JSON.parse(await readFile(layout.artifactPath('localize-files', failing.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
    expect(fixed.status).toBe('ok');
    expect(scripted.server.chatRequests().length).toBeGreaterThan(0);
    for (const r of scripted.server.chatRequests())
      expect(issueOf({ messages: (r.body as { messages: ScriptedChatRequest['messages'] }).messages } as ScriptedChatRequest).trim()).toBe(
        failing.problem_statement.trim(),
      );
  });
});
