/**
 * End to end: `locfix localize --localizer explorer` on the mini-benchmark. The CLI runs in a child process
 * and talks to the scripted model server over loopback. The commands run in the real read-only Docker
 * workspace, on each instance's git snapshot. The scripted explorer (scripted-explorer.ts) knows no
 * answer: it greps the names and reads what it finds. One instance answers malformed twice and
 * becomes an error row. `eval-loc` then shows the runner metrics with the study's denominators, and a
 * second run asks the model nothing: ok rows and recorded errors are both kept.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runLocfix } from '../support/cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { ensureDocker } from '../support/docker.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { scriptedExplorer } from './scripted-explorer.ts';

const hasDocker = await ensureDocker('explorer end to end');
const scripted = useScriptedModelServer();
let dir: string;
let bench: MiniBenchBuild;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-explorer-e2e-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locfix = (args: string[]) => runLocfix(args, path.join(dir, 'cache'));

describe.skipIf(!hasDocker)('locfix localize --localizer explorer', () => {
  it('explores every instance in the sandbox, records an error row, eval-loc gives the runner metrics, resume asks nothing', { timeout: 300_000 }, async () => {
    const chosen = bench.instances.filter((i) => i.instance_id.startsWith('minibench__urlkit-')).slice(0, 3);
    expect(chosen.length).toBe(3);
    const broken = chosen[2]!;
    scripted.server.setScenario({
      policy: (request) =>
        request.messages[1]?.content.includes(broken.problem_statement.slice(0, 80))
          ? 'THOUGHT: done\n```json\n{"files": [1, 2]}\n```'
          : scriptedExplorer(request),
    });
    const run = path.join(dir, 'runs', 'e1');
    const args = [
      'localize',
      '--localizer',
      'explorer',
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
    for (const inst of chosen.slice(0, 2)) {
      const artifact = JSON.parse(await readFile(layout.artifactPath('localize-files', inst.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
      const out = artifact.output!;
      expect(out.agent).toMatchObject({ stop: 'answer', writes: 0, refused: 0 });
      expect(out.agent!.commands).toBeGreaterThanOrEqual(3);
      // what it answered, it had seen in its commands' output
      const outputs = out.trace.flatMap((e) => (e.type === 'tool' ? [e.output] : [])).join('\n');
      expect(out.predicted!.length).toBeGreaterThan(0);
      for (const f of out.predicted!) expect(outputs).toContain(f);
    }
    const failed = JSON.parse(await readFile(layout.artifactPath('localize-files', broken.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
    expect(failed).toMatchObject({ status: 'error', error: { kind: 'invalid-answer', details: { agent: { steps: 2 } } } });

    const evalRes = await locfix(['eval-loc', run, '--stage', 'localize-files', '--json']);
    expect(evalRes.code, evalRes.stderr).toBe(0);
    const { runner } = JSON.parse(evalRes.stdout.trim()) as { runner: Record<string, unknown> & { tokens: { n: number }; steps: { n: number } } };
    expect(runner).toMatchObject({ attempted: 3, scored: 3, errors: 1, errorKinds: { 'invalid-answer': 1 } });
    expect(runner.errorRate).toBeCloseTo(1 / 3, 12);
    // the error row recorded its usage: tokens average over all three
    expect(runner.tokens.n).toBe(3);
    expect(runner.steps.n).toBe(3);

    const before = scripted.server.chatRequests().length;
    const again = await locfix(args);
    expect(again.code, again.stderr).toBe(0);
    expect(scripted.server.chatRequests().length).toBe(before);
  });
});
