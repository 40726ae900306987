/**
 * `locfix demo`: the main job on embedded defaults, needing nothing but Node — builds the bundled
 * mini-benchmark (real git repositories written from fixture files), runs model-free file retrieval on all
 * its instances (local Chroma server, offline lexical embedder + BM25 + structural signals) and prints the
 * localization metrics. Rerunning resumes; `--fresh` starts a new run directory.
 */
import type { Command } from 'commander';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { defaultCacheDir } from '../dataset/load.ts';
import { buildMiniBenchmark, DEFAULT_MINIBENCH_DIR } from '../minibench/build.ts';
import { retrieveCommand } from './retrieve.ts';
import { evaluateRun } from './eval-loc.ts';
import { formatLocMetricsTable } from '../../results/loc-metrics.ts';

interface DemoFlags {
  out: string;
  minibench: string;
  cacheDir: string;
  embedder: string;
  fresh?: boolean;
}

export async function demoCommand(flags: DemoFlags): Promise<void> {
  const log = (line: string) => process.stderr.write(line + '\n');
  log(`demo: building the mini-benchmark in ${flags.minibench} …`);
  const bench = await buildMiniBenchmark(flags.minibench);
  log(`demo: ${bench.instances.length} instances in ${bench.catalog.map((c) => c.repo).filter((r, i, a) => a.indexOf(r) === i).length} repositories`);
  if (flags.fresh) await rm(flags.out, { recursive: true, force: true });
  const result = await retrieveCommand({
    dataset: bench.datasetPath,
    mirrors: bench.mirrorsDir,
    mirror: [],
    embedder: flags.embedder,
    cacheDir: flags.cacheDir,
    queries: 'raw+structural',
    out: flags.out,
  });
  log(`demo: retrieval ${result.ok}/${result.total} instances ok -> ${path.join(flags.out, 'retrieve')}`);
  const metrics = await evaluateRun(path.resolve(flags.out), 'retrieve');
  process.stdout.write(formatLocMetricsTable([{ label: `mini-benchmark (${flags.embedder} + BM25 + structural)`, metrics }]) + '\n');
  process.stdout.write(`\nPer-instance artifacts: ${path.join(flags.out, 'retrieve')}/<instance>.json\n`);
  process.stdout.write(`Metrics as JSON:       npx locfix eval-loc ${flags.out} --json\n`);
}

export function register(program: Command): void {
  program
    .command('demo')
    .description('build the bundled mini-benchmark, retrieve files for every instance, print Top-k/MRR (no model, no network)')
    .option('--out <dir>', 'run directory', path.join('runs', 'demo'))
    .option('--minibench <dir>', 'where to build the mini-benchmark', DEFAULT_MINIBENCH_DIR)
    .option('--cache-dir <dir>', 'mirrors, embeddings and the local Chroma database', defaultCacheDir())
    .option('--embedder <spec>', 'lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url]', 'lexical')
    .option('--fresh', 'discard an earlier demo run instead of resuming it')
    .action(demoCommand);
}
