/**
 * How `locfix run` ends, as a user sees it from the shell: Ctrl-C (SIGINT) in the middle of a run exits
 * with 130 and a one-line summary, records nothing for the work it did not do, and the same command then
 * finishes the run; a run in which every instance failed exits with 1 and says so. Real processes, real
 * Chroma and git mirrors, the scripted model server answering slowly enough to interrupt.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { ScriptedModelServer } from '../support/scripted-model-server.ts';
import { startPipelineWorld, stopPipelineWorld, worldRunConfig } from './pipeline-world.ts';
import type { PipelinePolicy } from './pipeline-policy.ts';
import { MINIBENCH_IDS } from './minibench-scripts.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
const IDS: string[] = Object.values(MINIBENCH_IDS);
const STAGES = ['localize-files', 'localize-functions', 'localize-lines', 'repair'];

let policy: PipelinePolicy | undefined;
// slow answers: the run is still in its first instances when it is interrupted
const scripted = useScriptedModelServer({
  policy: (request) => {
    const answer = policy?.respond(request);
    return answer === undefined ? undefined : { delayMs: 150, then: answer };
  },
});

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;

beforeAll(async () => {
  ({ dir, bench, chroma, policy } = await startPipelineWorld('exit', IDS, 'resolved'));
});

afterAll(() => stopPipelineWorld({ dir, chroma }));

async function configFile(runId: string, llm: string): Promise<string> {
  const file = path.join(dir, `${runId}.json`);
  await writeFile(
    file,
    JSON.stringify({
      ...worldRunConfig({ dir, bench, chroma }, runId, IDS, llm),
      localizer: { name: 'agentless', options: {} },
      repair: { samplesPerSet: 1, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 },
      concurrency: { instances: 1, sandboxes: 1, index: 1 },
      stopAfter: 'repair',
    }),
  );
  return file;
}

interface Finished {
  code: number | null;
  stderr: string;
}

function locfixRun(args: string[], onStart?: (child: ReturnType<typeof spawn>) => void): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // a run that never exits is the failure this guards against
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`locfix run did not exit; stderr:\n${stderr}`));
    }, 240_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
    onStart?.(child);
  });
}

async function artifacts(runId: string): Promise<Array<{ stage: string; artifact: StageArtifact<unknown> }>> {
  const out: Array<{ stage: string; artifact: StageArtifact<unknown> }> = [];
  for (const stage of STAGES) {
    const folder = path.join(dir, 'runs', runId, stage);
    if (!existsSync(folder)) continue;
    for (const name of await readdir(folder)) {
      if (name.endsWith('.json')) out.push({ stage, artifact: JSON.parse(await readFile(path.join(folder, name), 'utf8')) });
    }
  }
  return out;
}

describe('how locfix run exits', () => {
  it('Ctrl-C: exit 130 with a one-line summary, nothing recorded for unstarted work, and the same command finishes', { timeout: 600_000 }, async () => {
    const config = await configFile('sigint', `openai:scripted@${scripted.server.openaiURL}`);
    const firstArtifact = path.join(dir, 'runs', 'sigint', 'localize-files');
    const interrupted = await locfixRun(['--config', config], (child) => {
      const poll = setInterval(() => {
        if (existsSync(firstArtifact) && readdirSync(firstArtifact).some((n) => n.endsWith('.json'))) {
          clearInterval(poll);
          child.kill('SIGINT');
        }
      }, 50);
      child.once('exit', () => clearInterval(poll));
    });
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toMatch(/interrupted: \d of 5 instances done \(0 with errors\), \d not done; rerun the same command to resume/);
    const partial = await artifacts('sigint');
    expect(partial.filter((a) => a.artifact.status === 'error')).toEqual([]);
    expect(partial.filter((a) => a.stage === 'repair').length).toBeLessThan(5);

    const resumed = await locfixRun(['--config', config]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const all = await artifacts('sigint');
    expect(all.filter((a) => a.stage === 'repair' && a.artifact.status === 'ok')).toHaveLength(5);
  });

  it('every instance failed: exit 1, saying so', { timeout: 300_000 }, async () => {
    // a port that was just free: the model server is down
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const config = await configFile('all-failed', `openai:scripted@http://127.0.0.1:${port}/v1`);
    const res = await locfixRun(['--config', config, '--llm-retries', '0']);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/run: every instance \(5\) failed at some stage; each error is recorded in its stage artifact/);
    // and the command that finishes it, this invocation's own with --retry-errors
    expect(res.stderr).toMatch(/run: incomplete: 5 instance\(s\) owe work;.*: locfix run --config \S+ --llm-retries 0 --retry-errors\n/);
    const recorded = await artifacts('all-failed');
    expect(recorded.map((a) => `${a.stage}:${a.artifact.status}`).sort()).toEqual(IDS.map(() => 'localize-files:error'));
    // a dead model server is the infrastructure's failure, not the method's empty patch: no instance is judged,
    // every one is not reached with its cause, and no rate is given over nothing
    expect(res.stderr).toMatch(
      /analysis: 5 instances: resolved 0 of 5 \(0\.0 %\); over the 0 judged: —; not reached 5 \(infrastructure: (model-unreachable|circuit-open) \d(, infrastructure: (model-unreachable|circuit-open) \d)?\); incomplete: 5 instance\(s\) owe work; bring the infrastructure back, then rerun the same command with --retry-errors/,
    );
    const failures = JSON.parse(await readFile(path.join(dir, 'runs', 'all-failed', 'analysis.json'), 'utf8')).summary;
    expect(failures.judged).toBe(0);
    expect(failures.categories['empty-patch'].count).toBe(0);
    expect(failures.categories['not-reached'].count).toBe(5);
    expect(Object.keys(failures.notReachedByCause).every((cause: string) => cause.startsWith('infrastructure: '))).toBe(true);
  });

  it('a server that answers 503 on one instance: exit 4 (incomplete), every instance in the headline, and what finishes it (issue 52)', {
    timeout: 300_000,
  }, async () => {
    const hard = bench.instances.find((i) => i.instance_id === MINIBENCH_IDS.B)!;
    const marker = hard.problem_statement.trim().split('\n')[0]!.slice(0, 60);
    const server = new ScriptedModelServer({ policy: (request) => (JSON.stringify(request).includes(marker) ? { status: 503 } : policy?.respond(request)) });
    await server.start();
    try {
      const config = await configFile('partly-503', `openai:scripted@${server.openaiURL}`);
      const res = await locfixRun(['--config', config, '--llm-retries', '0']);
      // before: exit 0, and the rate over the instances the server let through
      expect(res.code, res.stderr).toBe(4);
      expect(res.stderr).toMatch(
        /analysis: 5 instances: resolved 0 of 5 \(0\.0 %\);.*infrastructure: server-error 1.*; incomplete: 1 instance\(s\) owe work; bring the infrastructure back/,
      );
      expect(res.stderr).toMatch(/run: incomplete: 1 instance\(s\) owe work;.*: locfix run --config \S+ --llm-retries 0 --retry-errors\n/);
    } finally {
      await server.stop();
    }
  });
});
