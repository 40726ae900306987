/**
 * The explorer localizer's cost on real SWE-bench Lite instances, with a scripted explorer (no real LLM):
 *
 *   npm run bench:explorer -- [--dataset FILE] [--mirrors DIR] [--every 6] [--limit N] [--pattern P]
 *                             [--no-direct] [--out FILE]
 *
 * The explorer (test/explorer/scripted-explorer.ts) runs a grep/find/sed sequence driven by the issue and
 * by what each command printed. Each command runs in the real read-only Docker workspace at the instance's
 * base commit. Per instance the benchmark records:
 *
 * - tokens: prompt plus completion, over every call;
 * - steps, and seconds;
 * - the workspace's setup (copying the snapshot in).
 *
 * Sandbox overhead: each command that ran in the sandbox is run again, directly (`/bin/sh -c` on the host),
 * in a host copy of the same snapshot. The benchmark reports the per-command difference. The runner metrics
 * printed at the end are a sanity line: a fixed policy is not a model.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ExplorerLocalizer } from '../localizer/explorer/index.ts';
import { ExplorerOptionsSchema } from '../localizer/explorer/options.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { loadDataset } from '../src/dataset/load.ts';
import { selectInstances } from '../src/dataset/select.ts';
import { createChatModel } from '../src/llm/factory.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { groupByRepo } from '../src/run/repo-release.ts';
import { Services } from '../app/services.ts';
import { LocalDockerBackend } from '../sandbox/docker/local-backend.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { computeRunnerMetrics, formatRunnerMetrics, type RunnerRow } from '../results/runner-metrics.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { scriptedExplorer } from '../test/explorer/scripted-explorer.ts';
import { benchInput } from './bench-inputs.ts';

interface Row {
  id: string;
  ok: boolean;
  error?: string;
  steps: number;
  tokens: number;
  promptTokens: number;
  seconds: number;
  setupMs: number;
  files: number;
  commands: Array<{ script: string; sandboxMs: number; directMs?: number }>;
  predicted: string[];
  gold: string[];
}

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** a host copy of the snapshot, for running the same commands without the sandbox */
async function hostCopy(snapshot: RepoSnapshot, dir: string): Promise<void> {
  for (const file of await snapshot.listFiles()) {
    const target = path.join(dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, await snapshot.readBlob(file.blob));
  }
}

function runDirect(script: string, cwd: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('close', () => resolve(performance.now() - t0));
    child.on('error', () => resolve(performance.now() - t0));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string' },
      mirrors: { type: 'string' },
      every: { type: 'string', default: '6' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      'no-direct': { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results/explorer.json' },
    },
  });
  const dataset = await loadDataset(benchInput(values, 'dataset'));
  const { instances: all } = selectInstances(dataset.instances, { pattern: values.pattern, limit: values.limit ? Number(values.limit) : undefined });
  const selected = groupByRepo(all.filter((_, i) => i % Number(values.every) === 0));
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-explorer-'));
  const server = new ScriptedModelServer({ policy: scriptedExplorer });
  await server.start();
  const runId = `bench-explorer-${process.pid}`;
  const services = new Services({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), allowClone: false, runId });
  // workspaces open through the execution backend, as in a run
  const backend = new LocalDockerBackend(services.store, { memoryGiB: 4, cpus: 1, images: {}, concurrency: 1 });
  const llm = createChatModel(`openai:scripted@${server.openaiURL}`);
  const localizer = new ExplorerLocalizer(ExplorerOptionsSchema.parse({}));
  const rows: Row[] = [];
  const runnerRows: RunnerRow[] = [];
  const t0 = performance.now();
  try {
    for (const [n, inst] of selected.entries()) {
      const gold = goldPaths(inst.patch);
      const ti = performance.now();
      try {
        const snapshot = await services.snapshot(inst.repo, inst.base_commit);
        const loc = await localizer.localize({
          instance: inst,
          snapshot,
          index: () => Promise.reject(new Error('not used')),
          workspace: (o) => backend.openWorkspace(snapshot, { ...o, runId }),
          llm,
        });
        const commands: Row['commands'] = loc.trace.flatMap((e) =>
          e.type === 'tool' && e.tool !== 'refused' ? [{ script: (e.input as { script: string }).script, sandboxMs: e.durationMs }] : [],
        );
        if (!values['no-direct']) {
          const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-explorer-host-'));
          try {
            await hostCopy(snapshot, dir);
            for (const c of commands) c.directMs = await runDirect(c.script, dir);
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        }
        const sandbox = loc.details!.sandbox as { setupMs: number };
        const row: Row = {
          id: inst.instance_id,
          ok: true,
          steps: loc.agent!.steps,
          tokens: loc.usage.promptTokens + loc.usage.completionTokens,
          promptTokens: loc.usage.promptTokens,
          seconds: loc.agent!.elapsedMs / 1000,
          setupMs: sandbox.setupMs,
          files: (await snapshot.listFiles()).length,
          commands,
          predicted: loc.predicted ?? [],
          gold,
        };
        rows.push(row);
        runnerRows.push({ instanceId: row.id, gold, status: 'ok', ranking: row.predicted, predicted: row.predicted, agent: loc.agent!, usage: loc.usage });
        const over = commands.filter((c) => c.directMs !== undefined).map((c) => c.sandboxMs - c.directMs!);
        process.stderr.write(
          `[${n + 1}/${selected.length}] ${inst.instance_id} steps ${row.steps} tokens ${row.tokens} ${row.seconds.toFixed(1)}s setup ${(row.setupMs / 1000).toFixed(2)}s (${row.files} files) overhead/cmd median ${median(over).toFixed(0)} ms gold ${row.predicted.some((p) => gold.includes(p)) ? 'found' : '-'}\n`,
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        rows.push({
          id: inst.instance_id,
          ok: false,
          error: message,
          steps: 0,
          tokens: 0,
          promptTokens: 0,
          seconds: (performance.now() - ti) / 1000,
          setupMs: 0,
          files: 0,
          commands: [],
          predicted: [],
          gold,
        });
        runnerRows.push({ instanceId: inst.instance_id, gold, status: 'error', errorKind: (err as { kind?: string }).kind ?? 'error' });
        process.stderr.write(`[${n + 1}/${selected.length}] ${inst.instance_id} FAILED: ${message}\n`);
      }
      services.releaseRepo(inst.repo);
    }
  } finally {
    await services.close();
    await server.stop();
    await rm(cacheDir, { recursive: true, force: true });
  }
  const ok = rows.filter((r) => r.ok);
  const allCommands = ok.flatMap((r) => r.commands);
  const paired = allCommands.filter((c) => c.directMs !== undefined);
  const summary = {
    instances: rows.length,
    failed: rows.filter((r) => !r.ok).map((r) => ({ id: r.id, error: r.error })),
    tokensPerInstance: { mean: Math.round(mean(ok.map((r) => r.tokens))), median: median(ok.map((r) => r.tokens)), max: max(ok.map((r) => r.tokens)) },
    steps: { median: median(ok.map((r) => r.steps)), max: max(ok.map((r) => r.steps)) },
    secondsPerInstance: { median: +median(ok.map((r) => r.seconds)).toFixed(2), max: +max(ok.map((r) => r.seconds)).toFixed(2) },
    setupSeconds: { median: +(median(ok.map((r) => r.setupMs)) / 1000).toFixed(2), max: +(max(ok.map((r) => r.setupMs)) / 1000).toFixed(2) },
    commands: allCommands.length,
    sandboxMsPerCommand: { median: +median(allCommands.map((c) => c.sandboxMs)).toFixed(1) },
    directMsPerCommand: { median: +median(paired.map((c) => c.directMs!)).toFixed(1) },
    overheadMsPerCommand: {
      median: +median(paired.map((c) => c.sandboxMs - c.directMs!)).toFixed(1),
      p90: +([...paired.map((c) => c.sandboxMs - c.directMs!)].sort((a, b) => a - b)[Math.floor(paired.length * 0.9)] ?? 0).toFixed(1),
    },
    wallSeconds: +((performance.now() - t0) / 1000).toFixed(1),
    runner: computeRunnerMetrics(runnerRows),
  };
  console.log(JSON.stringify({ ...summary, runner: undefined }, null, 2));
  console.log(`\n${formatRunnerMetrics('scripted explorer policy (sanity only, not a model)', summary.runner)}`);
  await writeJsonAtomic(path.resolve(values.out!), { command: `npm run bench:explorer -- ${process.argv.slice(2).join(' ')}`.trim(), ...summary, rows });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
