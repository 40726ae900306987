/**
 * Records the bundled demo (minibench/recording/): runs the demo's pipeline (src/minibench/demo-run.ts)
 * against the scripted model server of the end-to-end tests, which steers each instance to a planned failure
 * category, and keeps the answers it gave as a response cache that `locfix demo` replays:
 *
 *   node --import tsx scripts/record-demo.ts [--out minibench/recording]
 *   node --import tsx scripts/record-demo.ts --ladder [--out minibench/ladder-recording]
 *
 * `--ladder` records `locfix ladder` on the mini-benchmark instead (the ladder demo, `locfix demo --ladder`),
 * against the ladder's scripted model (test/e2e/ladder-policy.ts), and keeps the cause of each instance.
 *
 * Needs Docker and the base image (validation and evaluation run, so their model calls are recorded too).
 * Only the answers are kept (`llm/<key[0..2]>/<key>/<i>.json`); the prompts are not, they are rebuilt by the
 * replaying run, and a prompt that changed since the recording is refused by the replay.
 */
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runExperiment } from '../app/engine/experiment.ts';
import { parseRunConfig } from '../src/config.ts';
import { buildMiniBenchmark } from '../src/minibench/build.ts';
import {
  DEMO_RECORDING_DIR,
  demoRunConfig,
  ladderDemoConfig,
  LADDER_RECORDING_DIR,
  type DemoRecordingFile,
  type LadderRecordingFile,
} from '../src/minibench/demo-run.ts';
import { runLadder } from '../app/engine/ladder.ts';
import { LadderPolicy } from '../test/e2e/ladder-policy.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { PipelinePolicy } from '../test/e2e/pipeline-policy.ts';
import { DEMO_PLAN, instanceScripts, LADDER_PLAN } from '../test/e2e/minibench-scripts.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, ladder: { type: 'boolean', default: false } } });

const PLAN = DEMO_PLAN;

type RecordingIdentity = { provider: 'openai' | 'ollama'; baseURL: string; model: string; answerOptions: Record<string, unknown> };

/** Copies the answers a recording run cached into `out/llm/` (prompts are not kept); returns the model's identity. */
async function copyAnswers(cacheDir: string, out: string): Promise<RecordingIdentity> {
  await rm(path.join(out, 'llm'), { recursive: true, force: true });
  let answers = 0;
  let identity: RecordingIdentity | undefined;
  for (const shard of await readdir(path.join(cacheDir, 'llm'))) {
    for (const key of await readdir(path.join(cacheDir, 'llm', shard))) {
      const from = path.join(cacheDir, 'llm', shard, key);
      identity ??= (({ provider, baseURL, model, options }) => ({ provider, baseURL, model, answerOptions: options ?? {} }))(
        JSON.parse(await readFile(path.join(from, 'request.json'), 'utf8')),
      );
      for (const file of await readdir(from)) {
        if (file === 'request.json') continue;
        await cp(path.join(from, file), path.join(out, 'llm', shard, key, file));
        answers += 1;
      }
    }
  }
  if (!identity) throw new Error('the recording run asked the model nothing');
  process.stderr.write(`record-demo: ${answers} answers kept\n`);
  return identity;
}

async function main(): Promise<void> {
  if (values.ladder) return recordLadder();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-record-demo-'));
  const ids = Object.keys(PLAN);
  const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  const policy = new PipelinePolicy(instanceScripts(bench, ids));
  policy.setPlan(PLAN);
  const server = new ScriptedModelServer({ policy: (request) => policy.respond(request) });
  await server.start();
  const cacheDir = path.join(dir, 'cache');
  try {
    const result = await runExperiment(
      parseRunConfig(
        demoRunConfig({
          runId: 'demo-recording',
          runsDir: path.join(dir, 'runs'),
          datasetPath: bench.datasetPath,
          mirrorsDir: bench.mirrorsDir,
          cacheDir,
          llm: `openai:scripted@${server.openaiURL}`,
          instances: ids,
          docker: true,
        }),
      ),
    );
    if (result.failed || policy.unplaced.length)
      throw new Error(`the recording run failed: ${result.failed} instances failed, ${policy.unplaced.length} requests unplaced`);
    // what the replay must reproduce: the categories this run ended in (the cascade's retrieval tier answers
    // the instances it is sure of without the model, so not every instance follows the steering plan)
    const analysis = JSON.parse(await readFile(path.join(result.runDir, 'analysis.json'), 'utf8')) as {
      instances: Array<{ instanceId: string; category: string }>;
    };
    const categories = Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a.category]));
    const out = path.resolve(values.out ?? DEMO_RECORDING_DIR);
    const identity = await copyAnswers(cacheDir, out);
    const recording: DemoRecordingFile = { ...identity, instances: ids, steering: PLAN, categories, recordedAt: new Date().toISOString() };
    await writeJsonAtomic(path.join(out, 'recording.json'), recording);
    process.stderr.write(`record-demo: ${server.requests.filter((r) => r.kind === 'chat').length} requests -> ${out}\n`);
  } finally {
    await server.stop();
    if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
    else process.stderr.write(`kept ${dir}\n`);
  }
}

/** Records the ladder demo: `locfix ladder` on the mini-benchmark against the ladder's scripted model. */
async function recordLadder(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-record-ladder-'));
  const ids = Object.keys(LADDER_PLAN);
  const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  const policy = new LadderPolicy(instanceScripts(bench, ids), LADDER_PLAN);
  const server = new ScriptedModelServer({ policy: (request) => policy.respond(request) });
  await server.start();
  const cacheDir = path.join(dir, 'cache');
  try {
    const config = ladderDemoConfig({
      runId: 'ladder-recording',
      runsDir: path.join(dir, 'runs'),
      datasetPath: bench.datasetPath,
      mirrorsDir: bench.mirrorsDir,
      cacheDir,
      llm: `openai:scripted@${server.openaiURL}`,
      instances: ids,
    });
    const outcome = await runLadder(parseRunConfig(config), { seeds: 1 });
    if (!outcome.result || policy.unplaced.length)
      throw new Error(`the recording ladder did not finish (${outcome.stoppedAt?.how ?? 'finished'}); unplaced requests: ${policy.unplaced.join(' | ')}`);
    const out = path.resolve(values.out ?? LADDER_RECORDING_DIR);
    const identity = await copyAnswers(cacheDir, out);
    const causes = Object.fromEntries(outcome.result.instances.map((i) => [i.instanceId, i.cause]));
    const recording: LadderRecordingFile = { ...identity, instances: ids, weakness: LADDER_PLAN, causes, recordedAt: new Date().toISOString() };
    await writeJsonAtomic(path.join(out, 'recording.json'), recording);
    process.stderr.write(`record-demo: ladder causes ${JSON.stringify(causes)} -> ${out}\n`);
  } finally {
    await server.stop();
    if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
    else process.stderr.write(`kept ${dir}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`record-demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
