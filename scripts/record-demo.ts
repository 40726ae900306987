/**
 * Records the bundled demo (minibench/recording/): runs the demo's pipeline (src/minibench/demo-run.ts)
 * against the scripted model server of the end-to-end tests, which steers each instance to a planned failure
 * category, and keeps the answers it gave as a response cache that `locfix demo` replays:
 *
 *   node --import tsx scripts/record-demo.ts [--out minibench/recording]
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
import { DEMO_RECORDING_DIR, demoRunConfig, type DemoRecordingFile } from '../src/minibench/demo-run.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { PipelinePolicy } from '../test/e2e/pipeline-policy.ts';
import { DEMO_PLAN, instanceScripts } from '../test/e2e/minibench-scripts.ts';

const { values } = parseArgs({ options: { out: { type: 'string', default: DEMO_RECORDING_DIR } } });

const PLAN = DEMO_PLAN;

async function main(): Promise<void> {
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
    const out = path.resolve(values.out!);
    await rm(path.join(out, 'llm'), { recursive: true, force: true });
    let answers = 0;
    let identity: { provider: 'openai' | 'ollama'; baseURL: string; model: string; answerOptions: Record<string, unknown> } | undefined;
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
    const recording: DemoRecordingFile = { ...identity, instances: ids, steering: PLAN, categories, recordedAt: new Date().toISOString() };
    await writeJsonAtomic(path.join(out, 'recording.json'), recording);
    process.stderr.write(`record-demo: ${answers} answers of ${server.requests.filter((r) => r.kind === 'chat').length} requests -> ${out}\n`);
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
