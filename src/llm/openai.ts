/**
 * Transport for any OpenAI-compatible /v1/chat/completions server (OpenAI, vLLM, Ollama's /v1, llama.cpp)
 * over the official `openai` package. The package's own retries are off: retries, timeouts and the
 * concurrency limit live in ManagedChatModel so they behave the same for every provider.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ManagedChatModel, type ChatModelOptions } from './chat-model.ts';
import { LlmError, describeError, isConnectionFailure } from './errors.ts';
import type { ChatTransport, RawCompletion, TransportCall } from './transport.ts';

export interface OpenAITransportOptions {
  model: string;
  /** e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama); default $OPENAI_BASE_URL or https://api.openai.com/v1 */
  baseURL?: string;
  /** the key itself; when absent it is read from the environment variable `apiKeyEnv` */
  apiKey?: string;
  /** default OPENAI_API_KEY */
  apiKeyEnv?: string;
  /** the server honours `n` (OpenAI and vLLM do; default true). When false, samples come from repeated calls. */
  supportsN?: boolean;
  /** newer OpenAI reasoning models accept only `max_completion_tokens`; default `max_tokens` (vLLM, Ollama) */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** extra body fields sent with every request (e.g. vLLM `top_k`, `reasoning_effort`); part of the cache key */
  extraBody?: Record<string, unknown>;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export class OpenAITransport implements ChatTransport {
  readonly provider = 'openai' as const;
  readonly baseURL: string;
  readonly model: string;
  readonly supportsN: boolean;
  readonly answerOptions: Record<string, unknown>;
  private readonly client: OpenAI;
  private readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';

  constructor(options: OpenAITransportOptions) {
    if (!options.model) throw new Error('openai transport: a model name is required');
    this.model = options.model;
    this.baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL;
    this.supportsN = options.supportsN ?? true;
    this.maxTokensField = options.maxTokensField ?? 'max_tokens';
    this.answerOptions = { ...(options.extraBody ?? {}) };
    const apiKey = options.apiKey ?? process.env[options.apiKeyEnv ?? 'OPENAI_API_KEY'];
    this.client = new OpenAI({
      baseURL: this.baseURL,
      // Local servers (vLLM, Ollama) accept any key; the client refuses to start without one.
      apiKey: apiKey || 'no-key',
      maxRetries: 0,
      // The per-request AbortSignal from ManagedChatModel is the effective timeout.
      timeout: 24 * 3600 * 1000,
    });
  }

  async complete(call: TransportCall): Promise<RawCompletion> {
    const body: Record<string, unknown> = {
      ...this.answerOptions,
      model: this.model,
      messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (call.temperature !== undefined) body.temperature = call.temperature;
    if (call.maxTokens !== undefined) body[this.maxTokensField] = call.maxTokens;
    if (call.stop?.length) body.stop = call.stop;
    if (call.seed !== undefined) body.seed = call.seed;
    // Only sent when > 1: some OpenAI-compatible servers reject the field altogether.
    if (call.n > 1) body.n = call.n;

    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = (await this.client.chat.completions.create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, {
        signal: call.signal,
      })) as OpenAI.Chat.Completions.ChatCompletion;
    } catch (err) {
      throw classifyOpenAIError(err, this.model);
    }
    return toRawCompletion(completion, this.model);
  }
}

function toRawCompletion(completion: unknown, model: string): RawCompletion {
  const choices = (completion as { choices?: unknown })?.choices;
  if (!Array.isArray(choices)) throw new LlmError('parse', `openai:${model}: response has no "choices" array`);
  const ordered = [...choices].sort((a, b) => ((a as { index?: number }).index ?? 0) - ((b as { index?: number }).index ?? 0));
  const samples = ordered.map((choice, i) => {
    const message = (choice as { message?: Record<string, unknown> }).message;
    if (!message || typeof message !== 'object') throw new LlmError('parse', `openai:${model}: choice ${i} has no message`);
    const content = message.content;
    if (content !== null && content !== undefined && typeof content !== 'string')
      throw new LlmError('parse', `openai:${model}: choice ${i} content is not text`);
    // vLLM's reasoning parsers use `reasoning_content`; Ollama's /v1 and newer vLLM use `reasoning`.
    const thinking = [message.reasoning_content, message.reasoning].find((v): v is string => typeof v === 'string' && v.length > 0);
    const finishReason = (choice as { finish_reason?: unknown }).finish_reason;
    return {
      text: content ?? '',
      ...(thinking !== undefined ? { thinking } : {}),
      ...(typeof finishReason === 'string' ? { finishReason } : {}),
    };
  });
  const usage = (completion as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
  const hasUsage = usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number';
  return {
    samples,
    ...(hasUsage ? { usage: { promptTokens: usage.prompt_tokens as number, completionTokens: usage.completion_tokens as number } } : {}),
  };
}

export function classifyOpenAIError(err: unknown, model: string): LlmError {
  const prefix = `openai:${model}`;
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError) return new LlmError('aborted', `${prefix}: request aborted`, { cause: err });
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', `${prefix}: request timed out`, { cause: err });
  if (err instanceof APIConnectionError) return new LlmError('connection', `${prefix}: ${describeError(err)}`, { cause: err });
  if (err instanceof APIError && typeof err.status === 'number') {
    const retryAfter = parseRetryAfter(err.headers?.get?.('retry-after') ?? undefined);
    return new LlmError('http', `${prefix}: HTTP ${err.status}: ${err.message}`, {
      status: err.status,
      cause: err,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    });
  }
  if (err instanceof SyntaxError) return new LlmError('parse', `${prefix}: unparseable response: ${err.message}`, { cause: err });
  if (isConnectionFailure(err)) return new LlmError('connection', `${prefix}: ${describeError(err)}`, { cause: err });
  return new LlmError('parse', `${prefix}: ${describeError(err)}`, { cause: err });
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A ready ChatModel for an OpenAI-compatible server. */
export function createOpenAIChatModel(transport: OpenAITransportOptions, options: ChatModelOptions = {}): ManagedChatModel {
  return new ManagedChatModel(new OpenAITransport(transport), options);
}
