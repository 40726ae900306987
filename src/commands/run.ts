/**
 * `locfix run`: a whole SWE-bench experiment — file → function → line localization, repair, validation,
 * selection, evaluation — then the analysis and reports. Every stage's output per instance is an atomic file
 * under runs/<id>/, so an interrupted run (Ctrl-C, a crash, `kill -9`) resumes by running the same command.
 *
 *   locfix run --config experiment.json [--run-id ID] [--llm SPEC] [--localizer NAME] [--limit N] …
 */
import type { Command } from 'commander';
import path from 'node:path';
import { loadRunConfig, type RunConfig } from '../config.ts';
import { loadSelection, positiveInt } from './common.ts';
import { defaultCacheDir } from '../dataset/load.ts';
import { Services } from '../services.ts';
import { RunLayout } from '../run/run-layout.ts';
import { closeInvocation, openManifest } from '../run/manifest.ts';
import { runPipeline } from '../orchestrator/pipeline.ts';
import { groupByRepo, releaseAfterLastInstance } from '../run/repo-release.ts';
import { createProgress } from '../run/progress.ts';
import { assembleStages } from '../orchestrator/stages.ts';
import { readArtifact } from '../run/stage-runner.ts';
import { STAGE } from '../run/stage.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../util/fsx.ts';
import { writeRunAnalysis, writeRunInstances } from '../../results/run-analysis.ts';
import { writeReports } from './report.ts';
import type { Selection } from '../../repair/types.ts';
import { makeRunSummary } from '../../validation/evaluate.ts';
import type { SweInstance } from '../dataset/schema.ts';

interface RunFlags {
  config?: string;
  runId?: string;
  dataset?: string;
  instances?: string;
  pattern?: string;
  repo?: string[];
  limit?: string;
  llm?: string;
  localizer?: string;
  embedder?: string;
  mirrors?: string;
  cacheDir?: string;
  chromaUrl?: string;
  runsDir?: string;
  stopAfter?: string;
  concurrency?: string;
  seed?: string;
  retryErrors?: boolean;
}

function overridesFrom(flags: RunFlags): Record<string, unknown> {
  return {
    runId: flags.runId,
    dataset: flags.dataset,
    instances: flags.instances?.split(',').map((s) => s.trim()).filter(Boolean),
    pattern: flags.pattern,
    repos: flags.repo?.length ? flags.repo : undefined,
    limit: positiveInt('--limit', flags.limit),
    llm: flags.llm,
    embedder: flags.embedder,
    mirrorsDir: flags.mirrors,
    cacheDir: flags.cacheDir,
    chromaUrl: flags.chromaUrl,
    runsDir: flags.runsDir,
    stopAfter: flags.stopAfter,
    seed: flags.seed === undefined ? undefined : Number(flags.seed),
  };
}

async function writePredictions(layout: RunLayout, instances: readonly SweInstance[], modelName: string): Promise<Array<{ instance_id: string; model_name_or_path: string; model_patch: string }>> {
  const rows = [];
  for (const instance of instances) {
    const selection = await readArtifact<Selection>(layout, STAGE.select, instance.instance_id);
    if (selection?.status !== 'ok') continue; // not selected yet: left out, so the harness reports it incomplete
    rows.push({ instance_id: instance.instance_id, model_name_or_path: modelName, model_patch: selection.output?.patch ?? '' });
  }
  await writeJsonlAtomic(layout.file('predictions.jsonl'), rows);
  return rows;
}

export async function runExperiment(config: RunConfig, options: { retryErrors?: boolean; log?: (line: string) => void } = {}): Promise<{ runDir: string }> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const cacheDir = path.resolve(config.cacheDir ?? defaultCacheDir());
  const layout = new RunLayout(path.resolve(config.runsDir, config.runId));
  const instances = await loadSelection(
    { dataset: config.dataset, instances: config.instances?.join(','), pattern: config.pattern, repo: config.repos, limit: config.limit?.toString(), cacheDir },
    'run',
  );
  const services = new Services({
    cacheDir,
    mirrors: config.mirrors,
    mirrorsDir: config.mirrorsDir,
    embedder: config.embedder,
    chromaUrl: config.chromaUrl,
    llm: config.llm,
  });
  const modelName = services.llm?.id ?? 'locfix';
  await writeRunInstances(layout, instances);
  await openManifest(layout, {
    runId: config.runId,
    config: config as unknown as Record<string, unknown>,
    models: { llm: services.llm?.id, embedder: services.embedder.id },
    seed: config.seed,
    localizer: config.localizer.name,
    instances: instances.map((i) => i.instance_id),
  });
  const { stages, docker } = assembleStages(config, services, layout);
  if (stages.some((s) => s.name === STAGE.validate || s.name === STAGE.evaluate)) {
    // An invocation killed with -9 leaves its sandboxes (`sleep infinity`) running; they carry this run's id.
    try {
      const removed = await docker.runtime.sweepContainers(layout.id);
      if (removed) log(`removed ${removed} container(s) left behind by an interrupted invocation of run ${layout.id}`);
    } catch {
      // Docker not reachable now: the Docker stages record that themselves
    }
  }
  log(`run ${config.runId}: ${instances.length} instances, localizer ${config.localizer.name}, model ${modelName}, stages ${stages.map((s) => s.name).join(' → ')}`);
  const progress = createProgress({ concurrency: config.concurrency.instances });
  for (const stage of stages) progress.begin(stage.name, instances.length);
  // Ctrl-C: stop taking new work; artifacts already written stay, the in-flight stage reruns on resume.
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log('\ninterrupted: finishing the stages in flight (press Ctrl-C again to quit now); rerun the same command to resume');
  };
  process.on('SIGINT', onSigint);
  try {
    // repository by repository (index caches are reused), each repository's memory released after its last instance
    const ordered = groupByRepo(instances);
    await runPipeline({
      layout,
      instances: ordered,
      onInstanceDone: releaseAfterLastInstance(ordered, (repo) => services.releaseRepo(repo)),
      stages: stages.map((s) => ({ ...s, run: (input) => (interrupted ? Promise.reject(new Error('interrupted')) : s.run(input)) })),
      concurrency: config.concurrency.instances,
      retryErrors: options.retryErrors,
      onEvent: (e) => progress.event(e),
    });
  } finally {
    process.off('SIGINT', onSigint);
    progress.end();
  }
  const predictions = await writePredictions(layout, instances, modelName);
  if (stages.some((s) => s.name === STAGE.evaluate)) {
    const summary = await makeRunSummary(path.dirname(layout.root), layout.id, instances, predictions);
    await writeJsonAtomic(layout.file(`${modelName.replace(/[^\w.-]+/g, '_')}.${layout.id}.json`), summary);
    log(`evaluation: ${summary.resolved_instances} resolved, ${summary.unresolved_instances} unresolved, ${summary.empty_patch_instances} empty, ${summary.error_instances} errors of ${summary.total_instances}`);
  }
  await writeJsonAtomic(layout.file('usage.json'), services.meter.toJSON());
  const analysis = await writeRunAnalysis(layout.root, { topFiles: config.topFiles, snapshot: (i) => services.snapshot(i.repo, i.base_commit) });
  await writeReports([analysis], layout.file('report'));
  const counts = progress.counts();
  await closeInvocation(
    layout,
    Object.fromEntries(Object.entries(counts).map(([stage, c]) => [stage, { ok: c.done - c.failed, failed: c.failed, reused: c.skipped }])),
  );
  await services.close();
  const cats = analysis.report.failures.categories;
  log(
    `analysis: resolved ${cats.resolved.count}, empty ${cats['empty-patch'].count}, file ${cats.file.count}, function ${cats.function.count}, line ${cats.line.count}, patch generation ${cats['patch-generation'].count}, evaluation errors ${cats['evaluation-error'].count}`,
  );
  log(`report: ${layout.file('report', 'report.html')}`);
  return { runDir: layout.root };
}

export function register(program: Command): void {
  program
    .command('run')
    .description('a whole experiment: localization → repair → validation → selection → evaluation → analysis (resumable)')
    .option('--config <file>', 'JSON run configuration (see README); flags override it')
    .option('--run-id <id>', 'names runs/<id>')
    .option('--dataset <source>', 'SWE-bench instances: file or Hub name')
    .option('--instances <ids>', 'comma-separated instance ids')
    .option('--pattern <pattern>', 'instance ids matching this glob or /regex/')
    .option('--repo <owner/name>', 'instances of this repository (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--limit <n>', 'at most this many instances')
    .option('--llm <spec>', 'chat model, e.g. ollama:gpt-oss:120b or openai:gpt-4o@http://localhost:8000/v1')
    .option('--localizer <name>', 'file localizer: blagent | agentless | retrieval | oracle')
    .option('--embedder <spec>', 'lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url]')
    .option('--mirrors <dir>', 'folder with bare mirrors laid out as owner+name/repo')
    .option('--cache-dir <dir>', 'mirrors, embeddings, LLM responses, local Chroma')
    .option('--chroma-url <url>', 'a running Chroma server')
    .option('--runs-dir <dir>', 'where run directories go (default runs)')
    .option('--stop-after <stage>', 'stop after this stage, e.g. localize-files')
    .option('--seed <n>', 'seed recorded in the manifest and used for sampling')
    .option('--concurrency <n>', 'instances in flight through the pipeline')
    .option('--retry-errors', 'rerun instance stages that recorded an error')
    .action(async (flags: RunFlags) => {
      const overrides = overridesFrom(flags);
      if (flags.localizer) overrides.localizer = { name: flags.localizer, options: {} };
      if (flags.concurrency) overrides.concurrency = { instances: positiveInt('--concurrency', flags.concurrency) };
      const config = await loadRunConfig(flags.config, overrides);
      await runExperiment(config, { retryErrors: flags.retryErrors });
    });
}
