/**
 * The Agentless 1.5 file localizer: (1) the model reads the repository tree and lists up to 5 files to
 * edit; (2) the model names irrelevant folders; (3) embedding retrieval (Agentless' ~512-token whole-file
 * chunks, top 100 chunks) over the files outside those folders; (4) the top 3 of (1) and (3) are combined
 * by count, ties in model order. Every LLM call is in the trace.
 *
 * Retrieval index: with `retrievalIndex` deps (embedder, vector store, cache dir) the Agentless chunking
 * is indexed through buildRepoIndex with its own FileParser; without them the context indexes the snapshot
 * with the same parser through the run's own embedder, vector store and caches (`ctx.index(parser)`).
 */
import { agreementWith, signals } from '../../src/artifacts/confidence.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import type { RepoIndex } from '../../src/index/types.ts';
import type { Embedder } from '../../src/embedding/types.ts';
import type { VectorStore } from '../../src/vectorstore/types.ts';
import { ChromaVectorStore } from '../../src/vectorstore/chroma.ts';
import { createEmbedder } from '../../src/embedding/factory.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { renderPrompt } from '../../src/prompts.ts';
import type { ContextWith, FileLocalizer, LocalizerContext } from '../types.ts';
import { usageOfTrace, type FileLocalization, type TraceEvent } from '../../src/artifacts/localization.ts';
import { AGENTLESS_SYSTEM_MESSAGE } from '../hierarchy/related-elements.ts';
import { parseFileList, parseIrrelevantFolders, splitByIrrelevant } from './answers.ts';
import { combineFileLists } from './combine.ts';
import type { z } from 'zod';
import { AgentlessOptionsSchema, type AgentlessOptions } from './options.ts';
import { createAgentlessFileParser, retrieveAgentlessFiles } from './retrieval.ts';
import { agentlessTree } from './tree.ts';

export interface AgentlessRetrievalDeps {
  embedder: Embedder;
  vectorStore: VectorStore;
  cacheDir: string;
}

/** The localizer's options as the registry or a caller gives them (what a user writes), and the retrieval index
 * a caller may build it with (not serializable, so not an option a config can hold). */
export type AgentlessLocalizerOptions = z.input<typeof AgentlessOptionsSchema> & {
  /** builds the Agentless-chunk index; without it the context's shared index is used */
  retrievalIndex?: AgentlessRetrievalDeps;
};

export interface AgentlessFileEvidence {
  count: number;
  llmRank?: number;
  retrievalRank?: number;
  [key: string]: unknown;
}

/** The file-level prompt (Agentless strips it). */
/** `ext`: the extension the answer format's example paths show (the repository's main language) */
export function filesPrompt(problem: string, treeText: string, ext = '.py'): string {
  return renderPrompt('agentless-files', { problem_statement: problem, structure: treeText, ext }).trim();
}

export function irrelevantPrompt(problem: string, treeText: string): string {
  return renderPrompt('agentless-irrelevant', { problem_statement: problem, structure: treeText }).trim();
}

async function chat(llm: ChatModel, trace: TraceEvent[], step: string, prompt: string, maxTokens: number | undefined, signal?: AbortSignal): Promise<string> {
  const response = await llm.chat({
    messages: [
      { role: 'system', content: AGENTLESS_SYSTEM_MESSAGE },
      { role: 'user', content: prompt },
    ],
    temperature: 0,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    purpose: `agentless.${step}`,
    ...(signal ? { signal } : {}),
    trace: (t) => trace.push({ type: 'llm', step, trace: t }),
  });
  return response.choices[0]?.content ?? '';
}

export class AgentlessLocalizer implements FileLocalizer<'model'> {
  readonly name = 'agentless';

  /** resolved once: every option its schema gives a default has it */
  private readonly options: AgentlessOptions & { retrievalIndex?: AgentlessRetrievalDeps };

  constructor(options: AgentlessLocalizerOptions = {}) {
    const { retrievalIndex, ...given } = options;
    this.options = { ...AgentlessOptionsSchema.parse(given), ...(retrievalIndex ? { retrievalIndex } : {}) };
  }

  private fromSpec?: AgentlessRetrievalDeps;

  private depsFromSpec(): AgentlessRetrievalDeps | undefined {
    const spec = this.options.agentlessIndex;
    if (!spec) return undefined;
    if (typeof spec.chromaUrl !== 'string' || typeof spec.cacheDir !== 'string')
      throw new Error('agentless localizer: agentlessIndex needs "chromaUrl" and "cacheDir" strings');
    this.fromSpec ??= {
      embedder: createEmbedder(spec.embedder ?? 'lexical'),
      vectorStore: new ChromaVectorStore({ url: spec.chromaUrl }),
      cacheDir: spec.cacheDir,
    };
    return this.fromSpec;
  }

  private async retrievalIndex(ctx: LocalizerContext): Promise<RepoIndex> {
    const deps = this.options.retrievalIndex ?? this.depsFromSpec();
    if (!deps) {
      // the run's own embedder and vector store, with Agentless' chunking
      return ctx.index(await createAgentlessFileParser(this.options.chunkTokens));
    }
    return buildRepoIndex(ctx.snapshot as RepoSnapshot, {
      embedder: deps.embedder,
      vectorStore: deps.vectorStore,
      cacheDir: deps.cacheDir,
      parser: await createAgentlessFileParser(this.options.chunkTokens),
    });
  }

  async localize(ctx: ContextWith<'model'>): Promise<FileLocalization> {
    const timings: Record<string, number> = {};
    const trace: TraceEvent[] = [];
    let t = performance.now();
    const tree = agentlessTree((await ctx.snapshot.listFiles()).map((e) => e.path));
    timings.tree = performance.now() - t;
    const problem = ctx.instance.problem_statement;

    t = performance.now();
    const filesAnswer = await chat(ctx.llm, trace, 'files', filesPrompt(problem, tree.text, tree.extensions[0]), this.options.maxTokens, ctx.signal);
    const llmList = parseFileList(filesAnswer, tree.files);
    trace.push({ type: 'note', step: 'files', message: `model listed ${llmList.files.length} files`, data: llmList });
    timings.llmFiles = performance.now() - t;

    let retrieved: string[] = [];
    if (this.options.retrieval) {
      t = performance.now();
      const folderAnswer = await chat(ctx.llm, trace, 'irrelevant', irrelevantPrompt(problem, tree.text), this.options.irrelevantMaxTokens, ctx.signal);
      const folders = parseIrrelevantFolders(folderAnswer, tree.extensions);
      const { kept, filtered } = splitByIrrelevant(tree.files, folders);
      trace.push({
        type: 'note',
        step: 'irrelevant',
        message: `${folders.length} irrelevant folders: ${filtered.length} files left out, ${kept.length} kept`,
        data: { folders, filtered },
      });
      timings.irrelevant = performance.now() - t;

      t = performance.now();
      const index = await this.retrievalIndex(ctx);
      timings.index = performance.now() - t;
      t = performance.now();
      const hits = await retrieveAgentlessFiles(index, problem, new Set(kept), this.options.retrievalTopChunks);
      retrieved = hits.files;
      trace.push({
        type: 'note',
        step: 'retrieval',
        message: `${hits.chunks.length} chunks from ${hits.files.length} files`,
        data: { files: hits.files, chunks: hits.chunks.slice(0, 20) },
      });
      timings.retrieve = performance.now() - t;
    }

    const combined = combineFileLists(llmList.files, retrieved, this.options.combineTopN);
    return {
      localizer: this.name,
      files: combined.map((c) => ({
        path: c.path,
        score: c.count,
        evidence: {
          count: c.count,
          ...(c.llmRank ? { llmRank: c.llmRank } : {}),
          ...(c.retrievalRank ? { retrievalRank: c.retrievalRank } : {}),
        } satisfies AgentlessFileEvidence,
      })),
      trace,
      usage: usageOfTrace(trace),
      timingsMs: timings,
      // the model's list and the embedding list are two independent answers to the same question
      confidence: signals({ 'stage-agreement': retrieved.length ? agreementWith(combined[0]?.path, [llmList.files, retrieved]) : undefined }),
    };
  }
}
