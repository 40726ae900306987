/**
 * `locfix retrieve`: model-free file retrieval (dense + BM25 + structural signals) for a dataset selection.
 *
 *   locfix retrieve --dataset FILE [--instances id,id | --pattern P | --repo R | --limit N]
 *     [--embedder lexical|ollama:nomic-embed-text|openai:…] [--mirrors DIR] [--mirror owner/name=PATH]
 *     [--chroma-url URL] [--queries raw|structural|raw+structural] [--queries-file FILE] --out runs/ID
 *
 * Writes runs/ID/retrieve/<instance>.json per instance and resumes where it stopped. Exits non-zero only
 * when not a single instance could be done.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createEmbedder } from '../embedding/factory.ts';
import { buildRepoIndex } from '../index/repo-index.ts';
import { parseMirrorSpecs, RepoStore } from '../repo/store.ts';
import { openChromaStore } from '../vectorstore/chroma.ts';
import { createProgress } from '../orchestrator/progress.ts';
import { defaultCacheDir, loadDataset } from '../dataset/load.ts';
import { selectInstances } from '../dataset/select.ts';
import { runRetrieval } from '../../localizer/retrieval/run.ts';
import { assertQueries, externalQuery, type QueryPreset, type RetrievalQuery } from '../../localizer/retrieval/query.ts';
import type { DeepPartial, RetrievalOptions } from '../../localizer/retrieval/options.ts';

export interface RetrieveCommandOptions {
  dataset: string;
  instances?: string;
  pattern?: string;
  repo?: string;
  limit?: string;
  embedder: string;
  mirrors?: string;
  mirror: string[];
  chromaUrl?: string;
  cacheDir: string;
  queries: string;
  queriesFile?: string;
  fusion?: string;
  poolCap?: string;
  out: string;
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive integer, got "${value}"`);
  return n;
}

/**
 * Queries written by another stage (e.g. an LLM's T0/T1): a JSON object mapping instance ids to lists of
 * {label, text}. Their structural signals come from the issue text so traceback frames survive a rewrite.
 */
async function loadQueriesFile(file: string): Promise<Map<string, Array<{ label: string; text: string }>>> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as unknown;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${file}: expected an object {instance_id: [{label, text}, …]}`);
  const out = new Map<string, Array<{ label: string; text: string }>>();
  for (const [id, list] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw new Error(`${file}: "${id}" must map to a list of {label, text}`);
    assertQueries(list as RetrievalQuery[]);
    out.set(id, list as Array<{ label: string; text: string }>);
  }
  return out;
}

export async function retrieveCommand(opts: RetrieveCommandOptions): Promise<{ ok: number; failed: number; total: number }> {
  const preset = opts.queries as QueryPreset;
  if (!['raw', 'structural', 'raw+structural'].includes(preset)) throw new Error(`--queries must be raw, structural or raw+structural, got "${opts.queries}"`);
  const retrievalOptions: DeepPartial<RetrievalOptions> = {};
  if (opts.fusion) retrievalOptions.fusion = opts.fusion as RetrievalOptions['fusion'];
  const poolCap = positiveInt('--pool-cap', opts.poolCap);
  if (poolCap) retrievalOptions.poolCap = poolCap;

  const cacheDir = path.resolve(opts.cacheDir);
  const dataset = await loadDataset(opts.dataset, { cacheDir });
  // bad rows are reported, not fatal: the other instances can still run
  for (const e of dataset.errors) process.stderr.write(`retrieve: skipping ${e.message}\n`);
  const { instances, unknownIds, unknownRepos } = selectInstances(dataset.instances, {
    ids: opts.instances ? opts.instances.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    pattern: opts.pattern,
    repos: opts.repo ? [opts.repo] : undefined,
    limit: positiveInt('--limit', opts.limit),
  });
  if (unknownIds.length) process.stderr.write(`retrieve: not in ${opts.dataset}: ${unknownIds.join(', ')}\n`);
  if (unknownRepos.length) process.stderr.write(`retrieve: no instance of ${unknownRepos.join(', ')} in ${opts.dataset}\n`);
  if (instances.length === 0) throw new Error(`no instance of ${opts.dataset} matches the selection`);
  const external = opts.queriesFile ? await loadQueriesFile(opts.queriesFile) : undefined;

  const embedder = createEmbedder(opts.embedder);
  const store = new RepoStore({ cacheDir, mirrors: parseMirrorSpecs(opts.mirror), mirrorsDir: opts.mirrors });
  const chroma = await openChromaStore({ url: opts.chromaUrl, cacheDir });
  const progress = createProgress({ tty: Boolean(process.stderr.isTTY) });
  progress.begin('retrieve', instances.length);
  try {
    const artifacts = await runRetrieval(
      instances,
      {
        snapshot: (repo, commit) => store.snapshot(repo, commit),
        openIndex: async (snapshot) => {
          const index = await buildRepoIndex(snapshot, { embedder, vectorStore: chroma.store, cacheDir });
          return { index, stats: { ...index.timings } };
        },
      },
      {
        runDir: path.resolve(opts.out),
        // a Hub name (owner/name) is not a path; only files are made absolute
        dataset: existsSync(opts.dataset) ? path.resolve(opts.dataset) : opts.dataset,
        embedderId: embedder.id,
        options: retrievalOptions,
        queryPreset: preset,
        queriesFor: external
          ? (inst) => external.get(inst.instance_id)?.map((q) => externalQuery(q.label, q.text, { signalsFrom: inst.problem_statement }))
          : undefined,
        onEvent: (e) => progress.event(e),
      },
    );
    const ok = artifacts.filter((a) => a.status === 'ok').length;
    return { ok, failed: artifacts.length - ok, total: artifacts.length };
  } finally {
    progress.end();
    await chroma.close();
    await store.close();
  }
}

export function register(program: Command): void {
  program
    .command('retrieve')
    .description('model-free file retrieval: dense + BM25 + structural signals, one artifact per instance')
    .requiredOption('--dataset <file>', 'SWE-bench instances (.json, .jsonl or .parquet)')
    .option('--instances <ids>', 'comma-separated instance ids')
    .option('--pattern <pattern>', 'instance ids matching this glob or /regex/')
    .option('--repo <owner/name>', 'instances of this repository')
    .option('--limit <n>', 'at most this many instances')
    .option('--embedder <spec>', 'lexical | ollama:nomic-embed-text | openai:<model>[@url]', 'lexical')
    .option('--mirrors <dir>', 'folder with mirrors laid out as owner+name/repo')
    .option('--mirror <owner/name=path>', 'a local mirror for one repository (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--chroma-url <url>', 'a running Chroma server (default: start a local one)')
    .option('--cache-dir <dir>', 'mirrors, embeddings and the local Chroma database', defaultCacheDir())
    .option('--queries <preset>', 'raw | structural | raw+structural', 'raw+structural')
    .option('--queries-file <file>', 'JSON {instance_id: [{label, text}]} of queries written by another stage (e.g. T0/T1)')
    .option('--fusion <method>', 'weighted | rrf')
    .option('--pool-cap <n>', 'candidate pool size (default 15)')
    .requiredOption('--out <dir>', 'run directory, e.g. runs/my-run')
    .action(async (opts: RetrieveCommandOptions) => {
      const { ok, failed, total } = await retrieveCommand(opts);
      process.stderr.write(`retrieve: ${ok} of ${total} instances ok, ${failed} failed -> ${path.join(opts.out, 'retrieve')}\n`);
      if (ok === 0) process.exitCode = 1;
    });
}
