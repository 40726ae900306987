/**
 * The ChatModel every stage uses. It wraps a provider transport (openai.ts, ollama.ts) with what all
 * providers share: the per-endpoint concurrency queue, per-request timeouts, retries with backoff, the
 * on-disk response cache (per sample), reasoning separation, usage and cost accounting, and traces.
 */
import { serverBreaker, type BreakerOptions } from './circuit-breaker.ts';
import { fitPromptBudget } from './prompt-budget.ts';
import { activeSpendScope, type Spent, type SpendEstimate } from './spend.ts';
import path from 'node:path';
import { ResponseCache, requestKey, type CachedSample } from './cache.ts';
import { endpointQueue, normalizeBaseURL } from './endpoint-queue.ts';
import { LlmError, describeError } from './errors.ts';
import { splitReasoning } from './reasoning.ts';
import { withRetries } from './retry.ts';
import { countChatTokens } from './tokens.ts';
import { attribute, spendOf, type SampleRecord } from './sample-usage.ts';
import type { ChatTransport, RawCompletion } from './transport.ts';
import type { ChatChoice, ChatModel, ChatRequest, ChatResponse, ChatTrace, Usage } from './types.ts';
import { addUsage, costOf, emptyUsage, findPrice, type PriceTable, type TokenPrice, type UsageMeter } from './usage.ts';
import { capCompletion, MAX_REPLY_CHARS } from './reply-cap.ts';

export interface ChatModelOptions {
  /** concurrent HTTP requests to this model's base URL, shared with every model on that URL (default 4) */
  concurrency?: number;
  /** per HTTP request, queue time excluded (default 300 000 ms) */
  timeoutMs?: number;
  /** HTTP attempts per call including the first (default 5) */
  maxAttempts?: number;
  /** first backoff ceiling, doubled per retry (default 1 000 ms) */
  retryBaseDelayMs?: number;
  /** backoff cap (default 60 000 ms) */
  retryMaxDelayMs?: number;
  /** USD per 1M tokens by model id or glob */
  prices?: PriceTable;
  /** responses are cached under `<cacheDir>/llm`; no cache when absent */
  cacheDir?: string;
  /** every call's usage is recorded here under its `purpose` */
  meter?: UsageMeter;
  /** receives every call's trace (in addition to a per-request `trace`) */
  trace?: (trace: ChatTrace) => void;
  /** prompt tokens a call may send; a longer prompt loses the middle of its longest message (prompt-budget.ts) */
  maxPromptTokens?: number;
  /** characters a reply may have; a longer one is cut and marked (reply-cap.ts; default MAX_REPLY_CHARS) */
  maxReplyChars?: number;
  /** the server's circuit breaker (circuit-breaker.ts); none when absent (the config's factory turns it on) */
  breaker?: BreakerOptions | false;
}

interface NormalizedRequest {
  provider: string;
  baseURL: string;
  model: string;
  messages: ChatRequest['messages'];
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  options: Record<string, unknown>;
}

export class ManagedChatModel implements ChatModel {
  readonly id: string;
  private readonly cache?: ResponseCache;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseDelayMs: number;
  private readonly retryMaxDelayMs: number;
  private readonly concurrency: number;
  /** set when a server answered a request for n > 1 choices with fewer */
  private serverIgnoresN = false;

  constructor(
    private readonly transport: ChatTransport,
    private readonly options: ChatModelOptions = {},
  ) {
    this.id = `${transport.provider}:${transport.model}`;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 1_000;
    this.retryMaxDelayMs = options.retryMaxDelayMs ?? 60_000;
    this.concurrency = options.concurrency ?? 4;
    if (!(this.timeoutMs > 0)) throw new Error(`LLM timeoutMs must be positive, got ${this.timeoutMs}`);
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) throw new Error(`LLM maxAttempts must be an integer >= 1, got ${this.maxAttempts}`);
    endpointQueue(transport.baseURL, this.concurrency);
    if (options.cacheDir) this.cache = new ResponseCache(path.join(options.cacheDir, 'llm'));
  }

  /** this model's price from the configured table; undefined when it has none (a dollar cap cannot apply) */
  get price(): TokenPrice | undefined {
    return findPrice(this.options.prices, this.id);
  }

  async chat(original: ChatRequest): Promise<ChatResponse> {
    const fitted = this.options.maxPromptTokens ? fitPromptBudget(original.messages, this.options.maxPromptTokens) : undefined;
    const request = fitted?.cut ? { ...original, messages: fitted.messages } : original;
    const promptCut = fitted?.cut ? { promptCut: fitted.cut } : {};
    const started = Date.now();
    const startedAt = new Date(started).toISOString();
    const n = request.n ?? 1;
    const traceRequest = {
      messages: request.messages,
      temperature: request.temperature,
      n,
      maxTokens: request.maxTokens,
      stop: request.stop,
      seed: request.seed,
    };
    const emit = (trace: ChatTrace): void => {
      this.options.trace?.(trace);
      request.trace?.(trace);
    };
    const retries: NonNullable<ChatTrace['retries']> = [];
    try {
      validate(request, n);
      const response = await this.serve(request, n, started, retries);
      this.options.meter?.record(request.purpose, response);
      emit({
        modelId: this.id,
        purpose: request.purpose,
        startedAt,
        request: traceRequest,
        response,
        ...(retries.length ? { retries } : {}),
        ...promptCut,
        latencyMs: response.latencyMs,
      });
      return response;
    } catch (err) {
      // Anything that is not an LlmError (a cache folder that cannot be written, ...) is locfix's own fault:
      // traced as 'internal' and rethrown unchanged.
      const error = err instanceof LlmError ? err.toJSON() : { kind: 'internal', message: describeError(err), attempts: 0 };
      this.options.meter?.recordFailure(request.purpose);
      emit({
        modelId: this.id,
        purpose: request.purpose,
        startedAt,
        request: traceRequest,
        error,
        ...(retries.length ? { retries } : {}),
        ...promptCut,
        latencyMs: Date.now() - started,
      });
      throw err;
    }
  }

  private normalize(request: ChatRequest): NormalizedRequest {
    return {
      provider: this.transport.provider,
      baseURL: normalizeBaseURL(this.transport.baseURL),
      model: this.transport.model,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: request.temperature,
      maxTokens: request.maxTokens,
      stop: request.stop?.length ? request.stop : undefined,
      seed: request.seed,
      options: this.transport.answerOptions,
    };
  }

  private async serve(request: ChatRequest, n: number, started: number, retries: NonNullable<ChatTrace['retries']>): Promise<ChatResponse> {
    const normalized = this.normalize(request);
    const key = requestKey(normalized);
    const useCache = this.cache !== undefined && request.cache !== false;
    const samples: (SampleRecord | undefined)[] = new Array(n).fill(undefined);

    if (useCache) {
      const hits = await Promise.all(Array.from({ length: n }, (_, i) => this.cache!.get(key, i)));
      hits.forEach((hit, i) => {
        if (hit) samples[i] = { ...pick(hit), cached: true };
      });
    }

    let requests = 0;
    const store = async (index: number, sample: SampleRecord): Promise<void> => {
      samples[index] = sample;
      if (!useCache) return;
      const entry: CachedSample = {
        version: 1,
        key,
        sampleIndex: index,
        modelId: this.id,
        raw: sample.raw,
        ...(sample.thinking !== undefined ? { thinking: sample.thinking } : {}),
        ...(sample.finishReason !== undefined ? { finishReason: sample.finishReason } : {}),
        promptTokens: sample.promptTokens,
        completionTokens: sample.completionTokens,
        createdAt: new Date().toISOString(),
      };
      await this.cache!.put(entry, normalized);
    };

    let pending = samples.flatMap((s, i) => (s ? [] : [i]));
    if (pending.length > 0 && this.transport.supportsN && !this.serverIgnoresN) {
      // One call for all missing samples.
      const { completion, attempts } = await this.call(request, pending.length, pending[0]!, retries);
      requests += attempts;
      const got = completion.samples.slice(0, pending.length);
      const records = attribute(completion, got.length, request);
      await Promise.all(got.map((_, j) => store(pending[j]!, records[j]!)));
      // Fewer choices than asked: the server ignores `n` (Ollama's /v1, llama.cpp). From now on this model
      // samples by repeated calls, which run in parallel instead of asking n-1, n-2, ... in turn.
      if (got.length < pending.length) this.serverIgnoresN = true;
      pending = pending.slice(got.length);
    }
    if (pending.length > 0) {
      // One call per sample, all queued at once; the endpoint queue bounds how many run together.
      const results = await Promise.allSettled(
        pending.map(async (index) => {
          const { completion, attempts } = await this.call(request, 1, index, retries).catch((err: unknown) => {
            if (err instanceof LlmError) requests += err.attempts;
            throw err;
          });
          requests += attempts;
          await store(index, attribute(completion, 1, request)[0]!);
        }),
      );
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) throw failure.reason;
    }

    const price = findPrice(this.options.prices, this.id);
    const choices: ChatChoice[] = samples.map((sample) => {
      const s = sample!;
      const split = splitReasoning(s.raw, s.thinking);
      const usage: Usage = {
        promptTokens: s.promptTokens,
        completionTokens: s.completionTokens,
        cost: costOf(price, s.promptTokens, s.completionTokens),
      };
      return {
        content: split.content,
        ...(split.reasoning !== undefined ? { reasoning: split.reasoning } : {}),
        ...(s.finishReason !== undefined ? { finishReason: s.finishReason } : {}),
        raw: s.raw,
        cached: s.cached,
        usage,
        ...(s.replyCut ? { replyCut: s.replyCut } : {}),
      };
    });
    let paidUsage = emptyUsage();
    let cachedUsage = emptyUsage();
    for (const choice of choices) {
      if (choice.cached) cachedUsage = addUsage(cachedUsage, choice.usage!);
      else paidUsage = addUsage(paidUsage, choice.usage!);
    }
    return {
      model: this.id,
      choices,
      usage: addUsage(paidUsage, cachedUsage),
      cached: choices.every((c) => c.cached),
      latencyMs: Date.now() - started,
      paidUsage,
      cachedUsage,
      requests,
    };
  }

  /** One logical call: queued per endpoint, each attempt with its own timeout, retried with backoff. */
  private async call(
    request: ChatRequest,
    count: number,
    firstIndex: number,
    retries: NonNullable<ChatTrace['retries']>,
  ): Promise<{ completion: RawCompletion; attempts: number }> {
    const queue = endpointQueue(this.transport.baseURL, this.concurrency);
    // With a seed, sample i uses seed + i, so repeated calls give different samples and the same ones on rerun.
    const seed = request.seed === undefined ? undefined : request.seed + firstIndex;
    let attempts = 0;
    const breaker = this.options.breaker ? serverBreaker(this.transport.baseURL, this.options.breaker) : undefined;
    /** one HTTP attempt in the endpoint queue, with its own timeout */
    const attempt = async (): Promise<RawCompletion> => {
      const run = async (): Promise<RawCompletion> => {
        const timeout = AbortSignal.timeout(this.timeoutMs);
        const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
        try {
          if (signal.aborted) throw signal.reason;
          const completion = await this.transport.complete({
            messages: request.messages,
            n: count,
            temperature: request.temperature,
            maxTokens: request.maxTokens,
            stop: request.stop?.length ? request.stop : undefined,
            seed,
            signal,
          });
          if (completion.samples.length === 0) throw new LlmError('parse', `${this.id}: the server returned no choices`, { modelId: this.id });
          return capCompletion(completion, this.options.maxReplyChars ?? MAX_REPLY_CHARS);
        } catch (err) {
          if (request.signal?.aborted) throw new LlmError('aborted', `${this.id}: chat call aborted`, { modelId: this.id, cause: err });
          if (timeout.aborted) throw new LlmError('timeout', `${this.id}: no answer within ${this.timeoutMs} ms`, { modelId: this.id, cause: err });
          if (err instanceof LlmError) throw err;
          throw new LlmError('connection', `${this.id}: ${describeError(err)}`, { modelId: this.id, cause: err });
        }
      };
      try {
        return await queue.add(run, { signal: request.signal });
      } catch (err) {
        if (!(err instanceof LlmError) && request.signal?.aborted)
          throw new LlmError('aborted', `${this.id}: chat call aborted`, { modelId: this.id, cause: err });
        throw err;
      }
    };
    // spend caps of the instance and run this call belongs to (spend.ts), checked before every attempt
    const spendScope = activeSpendScope();
    const price = spendScope ? this.price : undefined;
    let estimate: SpendEstimate | undefined;
    const retried = () =>
      withRetries(
        async () => {
          let settle: ((actual: Omit<Spent, 'calls'>) => void) | undefined;
          if (spendScope?.budgets.length) {
            estimate ??= {
              promptTokens: countChatTokens(request.messages),
              ...(request.maxTokens !== undefined ? { completionTokens: request.maxTokens * count } : {}),
              samples: count,
              ...(price ? { price } : {}),
            };
            settle = await spendScope.admit(estimate, request.signal);
          }
          attempts++;
          try {
            const completion = await attempt();
            settle?.(spendOf(completion, request, price));
            return completion;
          } catch (err) {
            // no answer, no usage reported: the attempt counts as a call with no tokens
            settle?.({ promptTokens: 0, completionTokens: 0, cost: 0 });
            throw err;
          }
        },
        {
          maxAttempts: this.maxAttempts,
          baseDelayMs: this.retryBaseDelayMs,
          maxDelayMs: this.retryMaxDelayMs,
          signal: request.signal,
          onRetry: (error, attempt, delayMs) =>
            retries.push({ kind: error.kind, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}), attempt, delayMs }),
        },
      );
    const completion = breaker ? await breaker.run(retried, this.id) : await retried();
    return { completion, attempts };
  }
}

function pick(hit: CachedSample): Omit<SampleRecord, 'cached'> {
  return {
    raw: hit.raw,
    ...(hit.thinking !== undefined ? { thinking: hit.thinking } : {}),
    ...(hit.finishReason !== undefined ? { finishReason: hit.finishReason } : {}),
    promptTokens: hit.promptTokens,
    completionTokens: hit.completionTokens,
  };
}

function validate(request: ChatRequest, n: number): void {
  if (!Array.isArray(request.messages) || request.messages.length === 0) throw new LlmError('invalid', 'chat request has no messages');
  for (const [i, m] of request.messages.entries()) {
    if (!['system', 'user', 'assistant'].includes(m.role)) throw new LlmError('invalid', `chat message ${i} has an unknown role "${String(m.role)}"`);
    if (typeof m.content !== 'string') throw new LlmError('invalid', `chat message ${i} has no text content`);
  }
  if (!Number.isInteger(n) || n < 1) throw new LlmError('invalid', `chat request n must be an integer >= 1, got ${n}`);
  if (request.maxTokens !== undefined && (!Number.isInteger(request.maxTokens) || request.maxTokens < 1))
    throw new LlmError('invalid', `chat request maxTokens must be a positive integer, got ${request.maxTokens}`);
}
