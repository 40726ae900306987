/**
 * End to end: `locfix localize --localizer locagent` on the mini-benchmark, the CLI in a child process
 * talking to the scripted model server over loopback, then `eval-loc`. The scripted agent
 * (scripted-agent.ts) knows no answer: it searches the identifiers, follows the graph and answers
 * with the files of the entities it saw, so what it names comes from the real tools on the real git snapshot. The graph's file facts persist in the
 * cache; a second run asks the model nothing.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runLocfix } from '../support/cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { searchingAgent } from './scripted-agent.ts';

const scripted = useScriptedModelServer();
let dir: string;
let bench: MiniBenchBuild;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-locagent-e2e-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locfix = (args: string[]) => runLocfix(args, path.join(dir, 'cache'));

describe('locfix localize --localizer locagent', () => {
  it('localizes every instance through the real tools, persists graph facts, eval-loc scores it, resume asks nothing', { timeout: 300_000 }, async () => {
    const chosen = bench.instances.filter((i) => i.instance_id.startsWith('minibench__urlkit-'));
    expect(chosen.length).toBeGreaterThan(1);
    scripted.server.setScenario({ policy: searchingAgent });
    const run = path.join(dir, 'runs', 'l1');
    const args = [
      'localize',
      '--localizer',
      'locagent',
      '--localizer-options',
      JSON.stringify({ samples: 1, temperature: 0 }),
      '--llm',
      `openai:scripted@${scripted.server.openaiURL}`,
      '--dataset',
      bench.datasetPath,
      '--mirrors',
      bench.mirrorsDir,
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
    for (const inst of chosen) {
      const artifact = JSON.parse(await readFile(layout.artifactPath('localize-files', inst.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
      const out = artifact.output!;
      expect(out.localizer).toBe('locagent');
      expect(out.usage.calls).toBeGreaterThanOrEqual(2);
      const outputs = out.trace.flatMap((e) => (e.type === 'tool' ? [e.output] : []));
      expect(outputs[0]).toContain('##Searching for term');
      // what the agent named is what the tools showed it
      const named = out.files.filter((f) => f.evidence?.source === 'agent').map((f) => f.path);
      expect(named.length).toBeGreaterThan(0);
      for (const f of named) expect(outputs.join('\n')).toContain(f);
    }
    const graphDir = path.join(dir, 'cache', 'graph');
    const repos = await readdir(graphDir);
    expect((await readdir(path.join(graphDir, repos[0]!))).some((f) => /^facts-[0-9a-f]{16}\.jsonl$/.test(f))).toBe(true);

    const evalRes = await locfix(['eval-loc', run, '--stage', 'localize-files', '--json']);
    expect(evalRes.code, evalRes.stderr).toBe(0);
    expect((JSON.parse(evalRes.stdout.trim()) as { n: number }).n).toBe(chosen.length);

    const before = scripted.server.chatRequests().length;
    const again = await locfix(args);
    expect(again.code, again.stderr).toBe(0);
    expect(scripted.server.chatRequests().length).toBe(before);
  });
});
