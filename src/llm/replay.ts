/**
 * Replay of recorded model answers: `--llm replay:<run folder or cache>` serves a run's answers from the
 * response cache it left, so any recorded run — a cascade included — is reproduced exactly without the model.
 * A request that was not recorded fails at once, naming what was asked, instead of reaching any server.
 *
 * The cache is keyed by the full request, including the recorded model's provider, base URL and name, so the
 * replay presents the recorded model's identity: from the run's manifest (`config.llm`) when given a run
 * folder, else from `recording.json` or the requests stored in the cache.
 */
import { llmSection } from './config.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LlmError } from './errors.ts';
import type { ChatTransport, RawCompletion, TransportCall } from './transport.ts';
import { currentManifest } from '../util/legacy.ts';

export const REPLAY_PREFIX = 'replay:';

export interface Recording {
  /** the folder whose `llm/` holds the cache entries */
  cacheDir: string;
  provider: 'openai' | 'ollama';
  baseURL: string;
  model: string;
  /** provider options that were part of the recorded keys (Ollama num_ctx …) */
  answerOptions: Record<string, unknown>;
}

/** What `recording.json` next to a bundled cache says (written by whoever bundles a recording). */
export interface RecordingFile {
  provider: 'openai' | 'ollama';
  baseURL: string;
  model: string;
  answerOptions?: Record<string, unknown>;
}

interface StoredRequest {
  provider?: unknown;
  baseURL?: unknown;
  model?: unknown;
  options?: unknown;
}

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** The recorded model identities in a cache's llm/ folder; the scan ends at the second one (ambiguous already). */
function identitiesInCache(llmDir: string): RecordingFile[] {
  const seen = new Map<string, RecordingFile>();
  for (const shard of list(llmDir)) {
    for (const key of list(path.join(llmDir, shard))) {
      if (seen.size > 1) break;
      const text = readText(path.join(llmDir, shard, key, 'request.json'));
      if (!text) continue;
      let r: StoredRequest;
      try {
        r = JSON.parse(text) as StoredRequest;
      } catch {
        continue;
      }
      if ((r.provider !== 'openai' && r.provider !== 'ollama') || typeof r.model !== 'string' || typeof r.baseURL !== 'string') continue;
      const id: RecordingFile = { provider: r.provider, baseURL: r.baseURL, model: r.model, answerOptions: (r.options as Record<string, unknown>) ?? {} };
      seen.set(JSON.stringify(id), id);
    }
  }
  return [...seen.values()];
}

/**
 * Finds the cache and the recorded model's identity of `target`: a run folder (its manifest names the model
 * config; `transportOf` builds the transport that run built, whose identity keyed the cache), a cache folder
 * with `recording.json`, or a cache of one model's answers.
 */
export function openRecording(
  target: string,
  transportOf: (llm: unknown) => Pick<ChatTransport, 'provider' | 'baseURL' | 'model' | 'answerOptions'>,
): Recording {
  const dir = path.resolve(target);
  if (!existsSync(dir)) throw new Error(`replay: ${dir} does not exist`);
  const manifestFile = path.join(dir, 'manifest.json');
  if (existsSync(manifestFile)) {
    const manifest = currentManifest(JSON.parse(readFileSync(manifestFile, 'utf8')), manifestFile) as { config?: { llm?: unknown; cacheDir?: unknown } };
    const llm = manifest.config?.llm;
    if (llm === undefined || llm === null) throw new Error(`replay: the run ${dir} used no model, so it has no answers to replay`);
    const cacheDir = typeof manifest.config?.cacheDir === 'string' ? manifest.config.cacheDir : undefined;
    if (!cacheDir) throw new Error(`replay: the manifest of ${dir} names no cacheDir; give the cache folder instead (replay:<cache dir>)`);
    const t = transportOf(llmSection(llm as string | { model: string })!);
    return { cacheDir, provider: t.provider, baseURL: t.baseURL, model: t.model, answerOptions: t.answerOptions };
  }
  const cacheDir = path.basename(dir) === 'llm' && !existsSync(path.join(dir, 'llm')) ? path.dirname(dir) : dir;
  const bundled = path.join(cacheDir, 'recording.json');
  if (existsSync(bundled)) {
    const r = JSON.parse(readFileSync(bundled, 'utf8')) as RecordingFile;
    return { cacheDir, provider: r.provider, baseURL: r.baseURL, model: r.model, answerOptions: r.answerOptions ?? {} };
  }
  const ids = identitiesInCache(path.join(cacheDir, 'llm'));
  if (ids.length === 0) throw new Error(`replay: ${cacheDir} holds no recorded answers (no llm/<key>/request.json)`);
  if (ids.length > 1)
    throw new Error(
      `replay: ${cacheDir} holds answers of more than one model (${ids.map((i) => `${i.provider}:${i.model}@${i.baseURL}`).join(', ')}); write recording.json naming the one to replay`,
    );
  const [only] = ids;
  return { cacheDir, provider: only!.provider, baseURL: only!.baseURL, model: only!.model, answerOptions: only!.answerOptions ?? {} };
}

/** A transport that has nothing but the cache: any call that reaches it was not recorded. */
export class ReplayTransport implements ChatTransport {
  readonly provider: 'openai' | 'ollama';
  readonly baseURL: string;
  readonly model: string;
  readonly supportsN = true;
  readonly answerOptions: Record<string, unknown>;

  constructor(recording: Recording) {
    this.provider = recording.provider;
    this.baseURL = recording.baseURL;
    this.model = recording.model;
    this.answerOptions = recording.answerOptions;
  }

  async complete(call: TransportCall): Promise<RawCompletion> {
    const last = call.messages.at(-1)?.content ?? '';
    const excerpt = last.length > 160 ? `${last.slice(0, 160)}…` : last;
    throw new LlmError(
      'replay-miss',
      `replay: this request was not recorded (${this.provider}:${this.model}, temperature ${call.temperature ?? 'default'}, ${call.messages.length} messages; last: ${JSON.stringify(excerpt)}). The run asks something the recording never answered: a changed prompt, option or instance.`,
      { modelId: `${this.provider}:${this.model}` },
    );
  }
}
