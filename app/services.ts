/**
 * The long-lived providers a command needs — repository store, embedder, vector store, repository indexes,
 * chat model, usage meter — created lazily from one settings object and closed together.
 *
 * Commands and the orchestrator get everything from here, so a provider is configured in one place and a
 * stage never builds its own Chroma server or cat-file processes.
 */
import { storeOpenFailure, withTypedFailures } from '../src/vectorstore/failures.ts';
import { llmSection } from '../src/llm/config.ts';
import { KindedError } from '../src/run/kinded-error.ts';
import { LRUCache } from 'lru-cache';
import { createEmbedder } from '../src/embedding/factory.ts';
import type { Embedder } from '../src/embedding/types.ts';
import { buildRepoIndex } from '../src/index/repo-index.ts';
import { defaultIndexMemo } from '../src/index/index-memo.ts';
import type { RepoIndex } from '../src/index/types.ts';
import type { FileFilterOptions } from '../src/index/file-filter.ts';
import type { FileParser } from '../src/index/file-parser.ts';
import { createChatModel } from '../src/llm/factory.ts';
import type { LlmConfigInput } from '../src/llm/config.ts';
import type { ChatModel } from '../src/llm/types.ts';
import { UsageMeter } from '../src/llm/usage.ts';
import { RepoStore } from '../src/repo/store.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { openChromaStore } from '../src/vectorstore/supervised.ts';
import { STAGE_ERROR_KIND } from '../src/run/stage-runner.ts';
import { ERROR_KINDS } from '../src/util/error-kinds.ts';
import type { RepoGraph } from '../src/index/graph/repo-graph.ts';
import { codeGraphOf } from '../src/index/channels/graph.ts';
import type { VectorStore } from '../src/vectorstore/types.ts';

export interface ServiceSettings {
  /** mirrors, embeddings, LLM cache, the local Chroma database */
  cacheDir: string;
  mirrors?: Record<string, string>;
  mirrorsDir?: string;
  allowClone?: boolean;
  /** embedder spec: lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url] */
  embedder?: string;
  /** a running Chroma server; default: start a local one under cacheDir */
  chromaUrl?: string;
  fileFilter?: FileFilterOptions;
  /** labels the sandboxes this process creates (the run's id) */
  runId?: string;
  /** model spec or full LLM config; no LLM when absent */
  llm?: string | LlmConfigInput;
}

export class Services {
  readonly store: RepoStore;
  readonly meter = new UsageMeter();
  private embedderInstance?: Embedder;
  private chroma?: Promise<Awaited<ReturnType<typeof openChromaStore>>>;
  private llmInstance?: ChatModel;
  /** the last few indexes, so consecutive stages on one snapshot do not rebuild BM25 and definitions */
  private readonly indexes = new LRUCache<string, Promise<RepoIndex>>({ max: 4 });

  constructor(readonly settings: ServiceSettings) {
    this.store = new RepoStore({
      cacheDir: settings.cacheDir,
      mirrors: settings.mirrors,
      mirrorsDir: settings.mirrorsDir,
      allowClone: settings.allowClone,
    });
  }

  get embedder(): Embedder {
    this.embedderInstance ??= createEmbedder(this.settings.embedder ?? 'lexical');
    return this.embedderInstance;
  }

  async vectorStore(): Promise<VectorStore> {
    this.chroma ??= openChromaStore({
      url: this.settings.chromaUrl,
      cacheDir: this.settings.cacheDir,
      onRestart: (e) =>
        process.stderr.write(`the local Chroma server stopped answering (${e.reason}); restarted it (${e.restart} of at most ${e.maxRestarts})\n`),
    });
    const where = this.settings.chromaUrl ? `Chroma at ${this.settings.chromaUrl}` : 'the local Chroma server';
    const opened = await this.chroma.catch((err: unknown) => {
      this.chroma = undefined; // a later call tries again
      throw storeOpenFailure(err, where);
    });
    return withTypedFailures(opened.store, where);
  }

  /** The chat model, or undefined when none is configured (model-free operation). */
  get llm(): ChatModel | undefined {
    if (!this.settings.llm) return undefined;
    this.llmInstance ??= createChatModel(
      // the LLM layer keeps its response cache under <cacheDir>/llm
      { cacheDir: this.settings.cacheDir, ...llmSection(this.settings.llm)! },
      { meter: this.meter },
    );
    return this.llmInstance;
  }

  /** The chat model for a stage that cannot work without one; the error says how to configure it. */
  requireLlm(purpose: string): ChatModel {
    const llm = this.llm;
    if (!llm) throw new KindedError(STAGE_ERROR_KIND.noModel, `${purpose} needs a chat model: set "llm" in the config or pass --llm`);
    return llm;
  }

  snapshot(repo: string, commit: string): Promise<RepoSnapshot> {
    return this.store.snapshot(repo, commit);
  }

  /**
   * Checks what would otherwise fail every instance the same way, before any instance runs: a chat model for
   * work that needs one (`needsModel` names that work), and a mirror for each repository when --mirrors is
   * given. A configuration error is the run's, not an instance's: it stops the command with the fix named.
   */
  /** A model that cannot even be opened (a replay folder that is not there) is the run's error, not each instance's. */
  checkModel(): void {
    if (!this.settings.llm) return;
    try {
      void this.llm;
    } catch (err) {
      throw new KindedError(STAGE_ERROR_KIND.configuration, `--llm: the chat model cannot be opened: ${(err as Error).message}`);
    }
  }

  async checkConfiguration(check: { repos: readonly string[]; needsModel?: string }): Promise<void> {
    this.checkModel();
    if (check.needsModel && !this.settings.llm) {
      throw new KindedError(
        STAGE_ERROR_KIND.configuration,
        `${check.needsModel} needs a chat model: pass --llm (e.g. ollama:gpt-oss:120b, openai:MODEL@URL) or set "llm" in the config`,
      );
    }
    await this.checkEmbedder();
    if (!this.settings.mirrorsDir) return;
    const missing: string[] = [];
    let first: string | undefined;
    for (const repo of new Set(check.repos)) {
      try {
        await this.store.gitDir(repo);
      } catch (err) {
        missing.push(repo);
        first ??= (err as Error).message.split('\n')[0];
      }
    }
    if (missing.length) {
      throw new KindedError(
        STAGE_ERROR_KIND.configuration,
        `--mirrors ${this.settings.mirrorsDir}: no mirror for ${missing.length} of the selection's ${new Set(check.repos).size} repositories (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}). ${first}. Fix --mirrors (folders laid out as owner+name/repo), or give one with --mirror owner/name=PATH`,
      );
    }
  }

  /**
   * Every instance's index embeds its repository: an embedder that does not answer would fail each one alike, so
   * one short query is asked before any instance (a lexical embedder answers at once, on this machine).
   */
  private async checkEmbedder(): Promise<void> {
    try {
      await this.embedder.embedQuery('locfix start check');
    } catch (err) {
      const message = (err as Error).message.split('\n')[0]!.replace(/\.+$/, '');
      throw new KindedError(
        ERROR_KINDS.embedderFailed,
        `the embedder ${this.embedder.id} does not answer, and every instance's index needs it: ${message}. Start it, or pass another --embedder (lexical needs no server)`,
      );
    }
  }

  /**
   * The retrieval index of a snapshot; built once per (repo, commit, parser) and embedder in this process.
   * `parser` swaps the chunking (e.g. Agentless' whole-file windows); its id keeps the caches apart.
   */
  index(snapshot: RepoSnapshot, parser?: FileParser): Promise<RepoIndex> {
    const key = `${snapshot.repo}@${snapshot.commit}#${parser?.id ?? 'default'}`;
    let index = this.indexes.get(key);
    if (!index) {
      index = (async () =>
        buildRepoIndex(snapshot, {
          embedder: this.embedder,
          vectorStore: await this.vectorStore(),
          cacheDir: this.settings.cacheDir,
          fileFilter: this.settings.fileFilter,
          ...(parser ? { parser } : {}),
        }))();
      index.catch(() => this.indexes.delete(key));
      // indexes hold every chunk of a repository: only the 4 last used stay alive
      this.indexes.set(key, index);
    }
    return index;
  }

  /**
   * The code graph of a snapshot alone (the `graph` capability), from the same cache as the index's graph
   * channel (src/index/channels/graph.ts): built once per commit, incrementally from earlier commits' facts.
   */
  graph(snapshot: RepoSnapshot): Promise<RepoGraph> {
    return codeGraphOf(snapshot, { cacheDir: this.settings.cacheDir, ...(this.settings.fileFilter ? { fileFilter: this.settings.fileFilter } : {}) });
  }

  /** Forgets a repository's indexes, graphs, parse results and commit history (a run that has moved on to another one). */
  releaseRepo(repo: string): void {
    for (const key of [...this.indexes.keys()]) if (key.startsWith(`${repo}@`)) this.indexes.delete(key);
    defaultIndexMemo().forgetRepo(repo);
    this.store.releaseRepo(repo);
  }

  async close(): Promise<void> {
    const chroma = this.chroma;
    this.chroma = undefined;
    await Promise.allSettled([chroma?.then((c) => c.close()), this.store.close()]);
  }
}
