/**
 * `locfix demo`: the main job on embedded defaults, needing nothing but Node — builds the bundled
 * mini-benchmark (real git repositories written from fixture files) and runs the whole pipeline on it with
 * `locfix run`: a cascade localizer (model-free retrieval; the least confident 40 % escalated to Agentless),
 * function and line localization, repair, and — when Docker and the base image are there — regression and
 * reproduction validation and SWE-bench-style evaluation, then the failure analysis and the HTML report.
 *
 * No model is called: the model's answers are REPLAYED from the bundled recording (minibench/recording/,
 * made by scripts/record-demo.ts against the scripted model of the end-to-end tests), and a request the
 * recording does not hold fails loudly. With Docker, the demo checks that each instance ends in the category
 * the recorded run ended in. Rerunning resumes; `--fresh` starts over.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { buildMiniBenchmark, DEFAULT_MINIBENCH_DIR } from '../../src/minibench/build.ts';
import { DEMO_RECORDING_DIR, demoRunConfig, LADDER_RECORDING_DIR, type DemoRecordingFile } from '../../src/minibench/demo-run.ts';
import { demoLadder } from './demo-ladder.ts';
import { parseRunConfig } from '../../src/config.ts';
import { runExperiment } from '../engine/experiment.ts';

interface DemoFlags {
  out?: string;
  minibench: string;
  cacheDir: string;
  recording?: string;
  docker: boolean;
  fresh?: boolean;
  /** the counterfactual ladder instead of one run (demo-ladder.ts) */
  ladder?: boolean;
}

/** Why Docker cannot run the validation and evaluation stages here; undefined when it can. */
async function dockerMissing(): Promise<string | undefined> {
  const runtime = new DockerRuntime();
  try {
    await runtime.ping();
  } catch (err) {
    return `no Docker daemon (${(err instanceof Error ? err.message : String(err)).split('\n')[0]})`;
  }
  if (!(await runtime.imageExists(DEFAULT_BASE_IMAGE))) return `the base image ${DEFAULT_BASE_IMAGE} is missing (bash scripts/setup-docker.sh builds it)`;
  return undefined;
}

/** The demo's run; a folder made with other settings (an earlier demo with or without Docker) names --fresh. */
async function runDemoExperiment(...args: Parameters<typeof runExperiment>): ReturnType<typeof runExperiment> {
  try {
    return await runExperiment(...args);
  } catch (err) {
    if (err instanceof Error && /was made with other settings/.test(err.message)) {
      err.message = `${err.message}\nfor the demo: rerun with --fresh to discard the earlier demo run and start over`;
    }
    throw err;
  }
}

export async function demoCommand(flags: DemoFlags): Promise<void> {
  if (flags.ladder) {
    const missing = flags.docker ? await dockerMissing() : 'Docker stages turned off (--no-docker)';
    const ladderFlags = { ...flags, out: flags.out ?? path.join('runs', 'demo-ladder'), recording: flags.recording ?? LADDER_RECORDING_DIR };
    return demoLadder(ladderFlags, missing);
  }
  return demoRun({ ...flags, out: flags.out ?? path.join('runs', 'demo'), recording: flags.recording ?? DEMO_RECORDING_DIR });
}

async function demoRun(flags: DemoFlags & { out: string; recording: string }): Promise<void> {
  const log = (line: string) => process.stderr.write(line + '\n');
  const recordingDir = path.resolve(flags.recording);
  const recording = JSON.parse(await readFile(path.join(recordingDir, 'recording.json'), 'utf8')) as DemoRecordingFile;
  log(`demo: building the mini-benchmark in ${flags.minibench} …`);
  const bench = await buildMiniBenchmark(flags.minibench);
  const missing = flags.docker ? await dockerMissing() : 'Docker stages turned off (--no-docker)';
  if (missing) log(`demo: ${missing}: validation and evaluation are left out; the run stops after patch selection`);
  if (flags.fresh) await rm(flags.out, { recursive: true, force: true });
  log(`demo: REPLAY of the model answers recorded ${recording.recordedAt} in ${recordingDir} — no model is called`);
  const out = path.resolve(flags.out);
  const result = await runDemoExperiment(
    parseRunConfig(
      demoRunConfig({
        runId: path.basename(out),
        runsDir: path.dirname(out),
        datasetPath: bench.datasetPath,
        mirrorsDir: bench.mirrorsDir,
        cacheDir: path.resolve(flags.cacheDir),
        llm: `replay:${recordingDir}`,
        instances: recording.instances,
        docker: !missing,
      }),
    ),
    { log, ...(missing ? { leftOut: { validate: missing, evaluate: missing } } : {}) },
  );
  if (result.interrupted) {
    if (result.diskFull) process.exitCode = 75;
    return;
  }

  const analysis = JSON.parse(await readFile(path.join(out, 'analysis.json'), 'utf8')) as {
    instances: Array<{ instanceId: string; category: string; cascadeTier?: string }>;
    localization: { hit1: number; hit3: number; hit10: number; mrr: number };
  };
  const l = analysis.localization;
  process.stdout.write(
    `file localization (cascade: retrieval → agentless): Hit@1 ${l.hit1.toFixed(3)}  Hit@3 ${l.hit3.toFixed(3)}  Hit@10 ${l.hit10.toFixed(3)}  MRR ${l.mrr.toFixed(3)}\n\n`,
  );
  let differ = 0;
  process.stdout.write('instance                 answered by   category\n');
  for (const a of analysis.instances) {
    const recorded = recording.categories[a.instanceId];
    const same = !missing && recorded !== undefined && recorded !== a.category ? `   (recorded run: ${recorded})` : '';
    if (same) differ += 1;
    process.stdout.write(`${a.instanceId.padEnd(24)} ${(a.cascadeTier ?? '').padEnd(13)} ${a.category}${same}\n`);
  }
  // the run's closing lines named the report already: one path, once
  process.stdout.write(`\nArtifacts: ${out}/<stage>/<instance>.json\n`);
  if (missing) process.stdout.write(`Validation and evaluation need Docker: ${missing}.\n`);
  else if (differ) {
    process.stdout.write(`${differ} instance(s) ended in another category than in the recorded run\n`);
    process.exitCode = 1;
  } else process.stdout.write('Every instance ended in the category of the recorded run.\n');
}

export function register(program: Command): void {
  const command = program
    .command('demo')
    .description('build the bundled mini-benchmark and run the whole pipeline on it, replaying recorded model answers (no model, no network)');
  useFlags(command, ['out', 'minibench', 'cacheDir', 'recording', 'docker', 'fresh', 'ladder'], {
    out: { description: 'run directory (default runs/demo; with --ladder, the ladder folder runs/demo-ladder)' },
    minibench: { default: DEFAULT_MINIBENCH_DIR },
    cacheDir: { default: defaultCacheDir() },
    recording: {
      description: `the recorded model answers to replay (default ${path.relative(process.cwd(), DEMO_RECORDING_DIR) || DEMO_RECORDING_DIR}; with --ladder, its ladder-recording)`,
    },
    fresh: { description: 'discard an earlier demo run instead of resuming it' },
  }).action(demoCommand);
}
