/**
 * `locfix run --scheduler slurm` on a real single-node Slurm cluster (scripts/setup-slurm.sh): the demo
 * pipeline, replayed from the bundled recording, split into two shards of one sbatch job array, each task
 * running `locfix run --shard i/2` with Docker validation and evaluation, merged into one run folder whose
 * every instance ends in its recorded category. One task is cancelled while it runs and is submitted again;
 * Ctrl-C cancels the job, and the same command resumes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import type { DemoRecordingFile } from '../../src/minibench/demo-run.ts';
import { readDemoRecording, splitDemoConfig } from '../support/demo-shards.ts';
import { ensureDocker } from '../support/docker.ts';
import { ensureSlurm } from '../support/slurm.ts';
import { bwrapTestStore, ensureBwrap } from '../support/sandbox-kinds.ts';

const usable = ensureSlurm('locfix run --scheduler slurm') && (await ensureDocker('locfix run --scheduler slurm'));
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
let dir: string;
let bench: MiniBenchBuild;
let recording: DemoRecordingFile;
let configFile: string;

beforeAll(async () => {
  if (!usable) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-slurm-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  recording = await readDemoRecording();
  const config = await splitDemoConfig(dir, bench, recording, 'unused');
  configFile = path.join(dir, 'config.json');
  // small tasks, so both shards run at once on a 2-core node; a poll a second keeps the test short
  await writeFile(configFile, JSON.stringify({ ...config, cluster: { cpusPerTask: 1, memory: '2G', pollSeconds: 1 } }));
}, 300_000);
afterAll(async () => {
  if (dir && !process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

interface Driver {
  done: Promise<{ code: number | null; log: string }>;
  /** resolves with the first stderr line matching `re` */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  signal(name: NodeJS.Signals): void;
}

function startDriver(runId: string, extra: readonly string[] = [], options: { config?: string; env?: NodeJS.ProcessEnv } = {}): Driver {
  const child = spawn(
    process.execPath,
    [BIN, 'run', '--config', options.config ?? configFile, '--scheduler', 'slurm', '--shards', '2', '--run-id', runId, ...extra],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    },
  );
  let log = '';
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpExecArray) => void }> = [];
  const onData = (chunk: Buffer) => {
    log += chunk.toString();
    for (const w of [...waiters]) {
      const m = w.re.exec(log);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const done = new Promise<{ code: number | null; log: string }>((resolve) => child.on('close', (code) => resolve({ code, log })));
  return {
    done,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const m = re.exec(log);
        if (m) return resolve(m);
        waiters.push({ re, resolve });
        void done.then(() => reject(new Error(`the driver ended before printing ${re}:\n${log}`)));
      }),
    signal: (name) => child.kill(name),
  };
}

const categories = async (runDir: string) => {
  const analysis = JSON.parse(await readFile(path.join(runDir, 'analysis.json'), 'utf8')) as { instances: Array<{ instanceId: string; category: string }> };
  return Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a.category]));
};
const queued = (jobId: string) => execFileSync('squeue', ['-h', '-r', '-j', jobId, '-o', '%i'], { encoding: 'utf8' }).trim();

describe.skipIf(!usable)('locfix run --scheduler slurm', () => {
  it('a task cancelled while it runs is submitted again; the merged run ends like the recorded one', { timeout: 600_000 }, async () => {
    const driver = startDriver('cancel-one');
    const [, jobId] = await driver.waitFor(/job (\d+): shard\(s\) 1, 2 of 2 submitted/);
    await driver.waitFor(/job \d+: shard 1 running/);
    execFileSync('scancel', [`${jobId}_1`]);
    const { code, log } = await driver.done;
    expect(code, log).toBe(0);
    expect(log).toMatch(/shard 1 failed \(CANCELLED.*; submitting it again \(attempt 2 of 3\)/);
    expect(log).toMatch(/shard 2 done: 3 instances, 0 with errors/);
    const runDir = path.join(dir, 'runs', 'cancel-one');
    expect(await categories(runDir)).toEqual(recording.categories);
    const jobs = JSON.parse(await readFile(path.join(dir, 'runs', 'cancel-one.cluster', 'jobs.json'), 'utf8')) as Array<{ shards: number[] }>;
    expect(jobs.map((j) => j.shards)).toEqual([[1, 2], [1]]);
    // each instance evaluated once in the merged run, and its report is there
    const predictions = (await readFile(path.join(runDir, 'predictions.jsonl'), 'utf8')).trim().split('\n');
    expect(predictions).toHaveLength(recording.instances.length);
    expect(await readFile(path.join(runDir, 'report', 'report.html'), 'utf8')).toContain('<h2>Cascade tiers of');
  });

  it('Ctrl-C cancels the job; the same command resumes and merges', { timeout: 600_000 }, async () => {
    const first = startDriver('interrupt');
    const [, jobId] = await first.waitFor(/job (\d+): shard\(s\) 1, 2 of 2 submitted/);
    await first.waitFor(/shard \d running/);
    first.signal('SIGINT');
    const stopped = await first.done;
    expect(stopped.code, stopped.log).toBe(130);
    expect(stopped.log).toContain(`cancelled job ${jobId}`);
    // scancel is asynchronous on the controller's side: the tasks leave the queue within a few seconds
    for (let i = 0; i < 30 && queued(jobId); i++) await new Promise((r) => setTimeout(r, 500));
    expect(queued(jobId)).toBe('');
    const again = await startDriver('interrupt').done;
    expect(again.code, again.log).toBe(0);
    expect(await categories(path.join(dir, 'runs', 'interrupt'))).toEqual(recording.categories);
    // a third time: every shard finished, nothing is submitted, the merge is made again
    const third = await startDriver('interrupt').done;
    expect(third.code, third.log).toBe(0);
    expect(third.log).toContain('all 2 shards finished earlier');
    expect(third.log).not.toContain('submitted');
  });

  it('with sandbox.backend "bwrap" every task validates and evaluates in bubblewrap sandboxes on its node: no Docker engine needed', {
    timeout: 600_000,
  }, async () => {
    if (!(await ensureBwrap('locfix run --scheduler slurm with bwrap'))) return;
    const config = JSON.parse(await readFile(configFile, 'utf8'));
    const bwrapConfig = path.join(dir, 'config-bwrap.json');
    await writeFile(bwrapConfig, JSON.stringify({ ...config, sandbox: { ...config.sandbox, backend: 'bwrap', imageStore: bwrapTestStore().root } }));
    // the tasks inherit the driver's environment: a Docker engine they tried to use would not answer
    const { code, log } = await startDriver('bwrap', [], { config: bwrapConfig, env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } }).done;
    expect(code, log).toBe(0);
    const runDir = path.join(dir, 'runs', 'bwrap');
    expect(await categories(runDir)).toEqual(recording.categories);
    const predictions = (await readFile(path.join(runDir, 'predictions.jsonl'), 'utf8')).trim().split('\n');
    expect(predictions).toHaveLength(recording.instances.length);
    // the cache level "env" removed each instance image of this run once evaluated (the store is shared with other tests)
    const left = (await bwrapTestStore().list()).filter((image) =>
      recording.instances.some((id) => image.name.includes(id.replace(/[^a-z0-9._-]+/gi, '_').toLowerCase())),
    );
    expect(left).toEqual([]);
  });

  it('more shards than instances: one shard per instance, none empty', { timeout: 600_000 }, async () => {
    const { code, log } = await startDriver('many-shards', ['--shards', '9', '--stop-after', 'localize-files']).done;
    expect(code, log).toBe(0);
    expect(log).toContain(`${recording.instances.length} instances: ${recording.instances.length} shards instead of 9, so that none is empty`);
    const merged = await readFile(path.join(dir, 'runs', 'many-shards', 'instances.jsonl'), 'utf8');
    expect(merged.trim().split('\n')).toHaveLength(recording.instances.length);
  });
});
