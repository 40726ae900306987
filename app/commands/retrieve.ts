/**
 * `locfix retrieve`: model-free file retrieval (dense + BM25 + structural signals + similar past commits) for
 * a dataset selection; repositories, indexes and Chroma come from the shared Services (app/services.ts).
 *
 *   locfix retrieve --dataset FILE [--instances id,id | --pattern P | --repo R… | --limit N]
 *     [--embedder lexical|ollama:nomic-embed-text|openai:…] [--mirrors DIR] [--mirror owner/name=PATH]
 *     [--chroma-url URL] [--queries PRESET (QUERY_PRESETS in localizer/retrieval/query.ts)] [--queries-file FILE]
 *     [--keep-environment-reports] --out runs/ID
 *
 * Writes runs/ID/retrieve/<instance>.json per instance (the file-localization artifact every localizer writes)
 * and resumes where it stopped; --retry-errors reruns the errors that were not the method's own. Exits non-zero only
 * when not a single instance could be done.
 */
import { useFlags } from './flag-table.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createProgress } from '../../src/run/progress.ts';
import { RetrievalLocalizer } from '../../localizer/retrieval/localizer.ts';
import { resolveLocalizer, type ResolvedLocalizer } from '../../localizer/registry.ts';
import { assembleFileLocalization } from '../engine/file-localization.ts';
import { runFileLocalization } from '../../localizer/stage.ts';
import { assertQueries, DEFAULT_QUERY_PRESET, externalQuery, issueQueryText, type QueryPreset, type RetrievalQuery } from '../../localizer/retrieval/query.ts';
import { resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from '../../localizer/retrieval/options.ts';
import { addSelectionOptions, addServiceOptions, servicesFrom, type ServiceFlags } from './common.ts';
import { loadSelection, selectionOfFlags, type SelectionFlags } from '../engine/selection.ts';

export interface RetrieveCommandOptions extends SelectionFlags, Omit<ServiceFlags, 'llm'> {
  queries: string;
  queriesFile?: string;
  keepEnvironmentReports?: boolean;
  retryErrors?: RetryErrors;
  fusion?: string;
  rankerModel?: string;
  poolCap?: number;
  out: string;
}

/** `locfix retrieve` writes its artifacts here; `eval-loc`'s default stage. */
export const RETRIEVE_STAGE = 'retrieve';

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
  const retrievalOptions: DeepPartial<RetrievalOptions> = {};
  if (opts.fusion) retrievalOptions.fusion = opts.fusion as RetrievalOptions['fusion'];
  if (opts.rankerModel) {
    if (opts.fusion !== 'learned') throw new Error('--ranker-model needs --fusion learned');
    retrievalOptions.rankerModel = path.resolve(opts.rankerModel);
  }
  if (opts.poolCap) retrievalOptions.poolCap = opts.poolCap;
  const environmentReports = opts.keepEnvironmentReports ? 'keep' : 'drop';
  // the retrieval localizer's registry entry parses the flags' options, as `run` and `localize` parse theirs: a
  // wrong --queries or --fusion stops here; a model file that is missing or does not fit, when the localizer is made
  const registered = await resolveLocalizer('retrieval', { queries: opts.queries, environmentReports, retrieval: retrievalOptions }, 'retrieve');
  const preset = registered.options.queries as QueryPreset;
  // resolved after every flag is in, so the recorded settings hold the pool cap the run used
  const resolved = resolveRetrievalOptions(retrievalOptions);

  const instances = await loadSelection(selectionOfFlags(opts), 'retrieve');
  const external = opts.queriesFile ? await loadQueriesFile(opts.queriesFile) : undefined;
  // queries another stage wrote are given in code, not as an option: the entry's parsed options, plus them
  const withExternalQueries: ResolvedLocalizer = {
    ...registered,
    create: async () =>
      new RetrievalLocalizer({
        queries: preset,
        environmentReports,
        retrieval: retrievalOptions,
        queriesFor: external
          ? (inst) =>
              external
                .get(inst.instance_id)
                ?.map((q) => externalQuery(q.label, q.text, { signalsFrom: issueQueryText(inst.problem_statement, { environmentReports }) }))
          : undefined,
      }),
  };
  const services = servicesFrom(opts);
  const files = assembleFileLocalization(external ? withExternalQueries : registered, services, { runDir: path.resolve(opts.out), stage: RETRIEVE_STAGE });
  const progress = createProgress({ tty: Boolean(process.stderr.isTTY) });
  progress.begin(RETRIEVE_STAGE, instances.length);
  try {
    const localizer = (await files.localizer) as RetrievalLocalizer;
    files.assertReady();
    const artifacts = await runFileLocalization(instances, localizer, services, {
      ...files.runSettings,
      // retrieve's settings below say what its options are, as its manifests always have
      localizerOptions: undefined,
      // a Hub name (owner/name) is not a path; only files are made absolute
      dataset: existsSync(opts.dataset) ? path.resolve(opts.dataset) : opts.dataset,
      retryErrors: opts.retryErrors,
      onEvent: (e) => progress.event(e),
      settings: {
        queryPreset: preset,
        environmentReports,
        options: resolved,
        // a run made with one model is not resumed with another
        ...(localizer.ranker ? { ranker: localizer.ranker } : {}),
        ...(opts.queriesFile ? { queriesFile: path.resolve(opts.queriesFile) } : {}),
      },
    });
    const ok = artifacts.filter((a) => a.status === 'ok').length;
    return { ok, failed: artifacts.length - ok, total: artifacts.length };
  } finally {
    progress.end();
    await services.close();
  }
}

export function register(program: Command): void {
  const command = program
    .command('retrieve')
    .description('model-free file retrieval: dense + BM25 + structural signals + similar past commits, one artifact per instance');
  addSelectionOptions(command);
  addServiceOptions(command, { llm: false });
  useFlags(command, ['queries', 'queriesFile', 'keepEnvironmentReports', 'fusion', 'rankerModel', 'poolCap', 'retryErrors', 'out'], {
    // the localizer's own default: one default, so `retrieve` and `localize --localizer retrieval` stay one arm
    queries: { default: DEFAULT_QUERY_PRESET },
    out: { required: true },
  }).action(async (opts: RetrieveCommandOptions) => {
    const { ok, failed, total } = await retrieveCommand(opts);
    process.stderr.write(`retrieve: ${ok} of ${total} instances ok, ${failed} failed -> ${path.join(opts.out, RETRIEVE_STAGE)}\n`);
    if (ok === 0) process.exitCode = 1;
  });
}
