/**
 * Transport for Ollama's native /api/chat over the official `ollama` package. Ollama has no `n`: samples
 * come from repeated calls, and when a seed is given sample i uses seed + i so that samples differ.
 */
import { Ollama } from 'ollama';
import { ManagedChatModel, type ChatModelOptions } from './chat-model.ts';
import { LlmError, describeError, isConnectionFailure } from './errors.ts';
import { parseRetryAfter } from './openai.ts';
import type { ChatTransport, RawCompletion, TransportCall } from './transport.ts';

export interface OllamaTransportOptions {
  /** e.g. "gpt-oss:120b", "qwen3:8b" */
  model: string;
  /** default $OLLAMA_HOST or http://127.0.0.1:11434 */
  baseURL?: string;
  /** context window; Ollama's default (2k-8k depending on version) silently truncates long prompts */
  numCtx?: number;
  /** Ollama's `think` switch (gpt-oss takes "low" | "medium" | "high") */
  think?: boolean | 'low' | 'medium' | 'high';
  /** how long the server keeps the model loaded after a call, e.g. "30m" (not part of the cache key) */
  keepAlive?: string | number;
  /** extra Ollama options (top_k, top_p, repeat_penalty, ...); part of the cache key */
  extraOptions?: Record<string, unknown>;
}

export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434';

export class OllamaTransport implements ChatTransport {
  readonly provider = 'ollama' as const;
  readonly baseURL: string;
  readonly model: string;
  readonly supportsN = false;
  readonly answerOptions: Record<string, unknown>;
  private readonly keepAlive?: string | number;

  constructor(private readonly options: OllamaTransportOptions) {
    if (!options.model) throw new Error('ollama transport: a model name is required');
    this.model = options.model;
    this.baseURL = options.baseURL ?? process.env.OLLAMA_HOST ?? OLLAMA_DEFAULT_BASE_URL;
    if (!/^https?:\/\//.test(this.baseURL)) this.baseURL = `http://${this.baseURL}`;
    this.keepAlive = options.keepAlive;
    this.answerOptions = {
      ...(options.extraOptions ?? {}),
      ...(options.numCtx !== undefined ? { num_ctx: options.numCtx } : {}),
      ...(options.think !== undefined ? { think: options.think } : {}),
    };
  }

  async complete(call: TransportCall): Promise<RawCompletion> {
    const client = new Ollama({ host: this.baseURL, fetch: abortableFetch(call.signal) });
    const modelOptions: Record<string, unknown> = { ...(this.options.extraOptions ?? {}) };
    if (this.options.numCtx !== undefined) modelOptions.num_ctx = this.options.numCtx;
    if (call.temperature !== undefined) modelOptions.temperature = call.temperature;
    if (call.maxTokens !== undefined) modelOptions.num_predict = call.maxTokens;
    if (call.stop?.length) modelOptions.stop = call.stop;
    if (call.seed !== undefined) modelOptions.seed = call.seed;

    let response: unknown;
    try {
      response = await client.chat({
        model: this.model,
        messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
        stream: false,
        options: modelOptions,
        ...(this.options.think !== undefined ? { think: this.options.think } : {}),
        ...(this.keepAlive !== undefined ? { keep_alive: this.keepAlive } : {}),
      });
    } catch (err) {
      throw classifyOllamaError(err, this.model);
    }
    return toRawCompletion(response, this.model);
  }
}

/**
 * fetch with the call's AbortSignal (the ollama client passes none for non-streaming calls) that turns
 * HTTP errors into LlmError itself, so Retry-After is kept and the client's console logging is skipped.
 */
function abortableFetch(signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, signal });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let message = text;
      try {
        const parsed = JSON.parse(text) as { error?: unknown };
        if (typeof parsed.error === 'string') message = parsed.error;
      } catch {
        // not JSON: keep the text
      }
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      throw new LlmError('http', `HTTP ${response.status}: ${message.slice(0, 500) || response.statusText}`, {
        status: response.status,
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      });
    }
    return response;
  };
}

function toRawCompletion(response: unknown, model: string): RawCompletion {
  const r = response as {
    message?: { content?: unknown; thinking?: unknown };
    done_reason?: unknown;
    prompt_eval_count?: unknown;
    eval_count?: unknown;
  };
  if (!r || typeof r !== 'object' || !r.message || typeof r.message !== 'object') throw new LlmError('parse', `ollama:${model}: response has no "message"`);
  const content = r.message.content;
  if (content !== undefined && content !== null && typeof content !== 'string') throw new LlmError('parse', `ollama:${model}: message content is not text`);
  const thinking = typeof r.message.thinking === 'string' && r.message.thinking ? r.message.thinking : undefined;
  // Ollama leaves prompt_eval_count out when the whole prompt came from its KV cache; count locally then.
  const hasUsage = typeof r.prompt_eval_count === 'number' && typeof r.eval_count === 'number';
  return {
    samples: [
      {
        text: (content as string | undefined) ?? '',
        ...(thinking !== undefined ? { thinking } : {}),
        ...(typeof r.done_reason === 'string' ? { finishReason: r.done_reason } : {}),
      },
    ],
    ...(hasUsage ? { usage: { promptTokens: r.prompt_eval_count as number, completionTokens: r.eval_count as number } } : {}),
  };
}

export function classifyOllamaError(err: unknown, model: string): LlmError {
  const prefix = `ollama:${model}`;
  if (err instanceof LlmError) {
    return new LlmError(err.kind, `${prefix}: ${err.message}`, {
      cause: err,
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    });
  }
  const e = err as { name?: string; status_code?: unknown };
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number')
    return new LlmError('http', `${prefix}: HTTP ${e.status_code}: ${describeError(err)}`, { status: e.status_code, cause: err });
  if (err instanceof SyntaxError) return new LlmError('parse', `${prefix}: unparseable response: ${err.message}`, { cause: err });
  if (isConnectionFailure(err)) return new LlmError('connection', `${prefix}: ${describeError(err)}`, { cause: err });
  if ((err as Error)?.name === 'AbortError') return new LlmError('aborted', `${prefix}: request aborted`, { cause: err });
  return new LlmError('parse', `${prefix}: ${describeError(err)}`, { cause: err });
}

/** A ready ChatModel for an Ollama server. */
export function createOllamaChatModel(transport: OllamaTransportOptions, options: ChatModelOptions = {}): ManagedChatModel {
  return new ManagedChatModel(new OllamaTransport(transport), options);
}
