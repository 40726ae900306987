/** Builds a ChatModel from a spec string ("ollama:gpt-oss:120b") or an `llm` config section. */
import { ManagedChatModel, type ChatModelOptions } from './chat-model.ts';
import { DEFAULT_PRICES, parseLlmConfig, type LlmConfig, type LlmConfigInput } from './config.ts';
import { OllamaTransport } from './ollama.ts';
import { OpenAITransport } from './openai.ts';
import { openRecording, REPLAY_PREFIX, ReplayTransport } from './replay.ts';

export type Provider = 'openai' | 'ollama';

export interface ModelSpec {
  provider: Provider;
  model: string;
  baseURL?: string;
}

/**
 * "provider:model[@baseURL]". The model may itself contain ':' and '/' ("gpt-oss:120b",
 * "Qwen/Qwen2.5-Coder-32B"); the base URL starts at the last "@http://" or "@https://".
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(':');
  if (colon <= 0) throw new Error(`model spec "${spec}" must look like "openai:<model>[@<baseURL>]" or "ollama:<model>[@<baseURL>]"`);
  const provider = spec.slice(0, colon);
  if (provider !== 'openai' && provider !== 'ollama') throw new Error(`model spec "${spec}": unknown provider "${provider}" (known: openai, ollama)`);
  let rest = spec.slice(colon + 1);
  let baseURL: string | undefined;
  const at = rest.search(/@https?:\/\/(?!.*@https?:\/\/)/);
  if (at >= 0) {
    baseURL = rest.slice(at + 1);
    rest = rest.slice(0, at);
    try {
      new URL(baseURL);
    } catch {
      throw new Error(`model spec "${spec}": "${baseURL}" is not a valid URL`);
    }
  }
  if (!rest) throw new Error(`model spec "${spec}" names no model`);
  return { provider, model: rest, ...(baseURL ? { baseURL } : {}) };
}

/** What the config cannot hold: the meter and trace sink of this run. Explicit values override the config's. */
export type CreateChatModelOptions = Pick<ChatModelOptions, 'meter' | 'trace'> & Partial<Omit<LlmConfigInput, 'model'>>;

export function createChatModel(specOrConfig: string | LlmConfigInput, options: CreateChatModelOptions = {}): ManagedChatModel {
  const { meter, trace, ...overrides } = options;
  const base: LlmConfigInput = typeof specOrConfig === 'string' ? { model: specOrConfig } : specOrConfig;
  const config: LlmConfig = parseLlmConfig({ ...base, ...dropUndefined(overrides) });
  if (config.model.startsWith(REPLAY_PREFIX)) {
    // recorded answers only: the recording's own cache, and a transport that refuses anything else. A run
    // folder's recording is keyed by the transport that run built, so build the same one for its identity.
    const recording = openRecording(config.model.slice(REPLAY_PREFIX.length), (llm) => transportFor(parseLlmConfig(llm)));
    return new ManagedChatModel(new ReplayTransport(recording), {
      concurrency: config.concurrency,
      timeoutMs: config.timeoutMs,
      maxAttempts: 1,
      prices: { ...DEFAULT_PRICES, ...config.prices },
      cacheDir: recording.cacheDir,
      ...(meter ? { meter } : {}),
      ...(trace ? { trace } : {}),
      maxPromptTokens: config.maxPromptTokens,
      maxReplyChars: config.maxReplyChars,
    });
  }
  const transport = transportFor(config);
  return new ManagedChatModel(transport, {
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    maxAttempts: config.maxRetries + 1,
    retryBaseDelayMs: config.retryBaseDelayMs,
    retryMaxDelayMs: config.retryMaxDelayMs,
    prices: { ...DEFAULT_PRICES, ...config.prices },
    ...(config.cacheDir ? { cacheDir: config.cacheDir } : {}),
    ...(meter ? { meter } : {}),
    ...(trace ? { trace } : {}),
    breaker: config.circuitBreaker,
    maxPromptTokens: config.maxPromptTokens,
    maxReplyChars: config.maxReplyChars,
  });
}

/** The provider transport a config names (no connection is made). */
function transportFor(config: LlmConfig): OpenAITransport | OllamaTransport {
  const spec = parseModelSpec(config.model);
  const baseURL = config.baseURL ?? spec.baseURL;
  return spec.provider === 'openai'
    ? new OpenAITransport({
        model: spec.model,
        ...(baseURL ? { baseURL } : {}),
        ...(config.apiKeyEnv ? { apiKeyEnv: config.apiKeyEnv } : {}),
        ...(config.supportsN !== undefined ? { supportsN: config.supportsN } : {}),
        ...(config.maxTokensField ? { maxTokensField: config.maxTokensField } : {}),
        ...(config.extra ? { extraBody: config.extra } : {}),
      })
    : new OllamaTransport({
        model: spec.model,
        ...(baseURL ? { baseURL } : {}),
        ...(config.numCtx !== undefined ? { numCtx: config.numCtx } : {}),
        ...(config.think !== undefined ? { think: config.think } : {}),
        ...(config.keepAlive !== undefined ? { keepAlive: config.keepAlive } : {}),
        ...(config.extra ? { extraOptions: config.extra } : {}),
      });
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
