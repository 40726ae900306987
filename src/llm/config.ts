/** The `llm` section of locfix's configuration, validated with zod. */
import { z } from 'zod';
import { MAX_REPLY_CHARS } from './reply-cap.ts';

export const TokenPriceSchema = z.object({
  /** USD per 1M prompt tokens */
  input: z.number().nonnegative(),
  /** USD per 1M completion tokens */
  output: z.number().nonnegative(),
});

export const LlmConfigSchema = z
  .object({
    /** "provider:model[@baseURL]", e.g. "ollama:gpt-oss:120b", "openai:Qwen/Qwen2.5-Coder-32B@http://localhost:8000/v1" */
    model: z.string().min(3),
    /** overrides the base URL of the spec and the provider default */
    baseURL: z.url().optional(),
    /** environment variable holding the API key (openai provider; default OPENAI_API_KEY) */
    apiKeyEnv: z.string().min(1).optional(),
    /** concurrent requests per server base URL */
    concurrency: z.number().int().positive().default(4),
    /** prompt tokens one call may send; a longer prompt loses the middle of its longest message, traced */
    maxPromptTokens: z.number().int().positive().default(128_000),
    /** characters one reply may have; a longer one is cut where it passes this, marked and traced (reply-cap.ts) */
    maxReplyChars: z.number().int().positive().default(MAX_REPLY_CHARS),
    /** per HTTP request */
    timeoutMs: z.number().int().positive().default(300_000),
    /** retries after the first attempt on 429 / 5xx / connection errors / timeouts */
    maxRetries: z.number().int().nonnegative().default(4),
    retryBaseDelayMs: z.number().int().nonnegative().default(1_000),
    retryMaxDelayMs: z.number().int().nonnegative().default(60_000),
    /** after `threshold` calls in a row failed for good on an unreachable server, calls fail at once for
     * `coolDownMs`, then one probe goes through (circuit-breaker.ts); false turns it off */
    circuitBreaker: z
      .union([
        z.literal(false),
        z.object({ threshold: z.number().int().positive().default(3), coolDownMs: z.number().int().nonnegative().default(60_000) }).strict(),
      ])
      .default({ threshold: 3, coolDownMs: 60_000 }),
    /** USD per 1M tokens by model id or glob ("gpt-4o*", "ollama:*"); merged over DEFAULT_PRICES */
    prices: z.record(z.string(), TokenPriceSchema).default({}),
    /** responses cached under <cacheDir>/llm; omit for no cache */
    cacheDir: z.string().min(1).optional(),
    /** openai provider: the server honours `n` (default true; false for Ollama's /v1 and llama.cpp) */
    supportsN: z.boolean().optional(),
    /** openai provider: name of the max-tokens field */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** ollama provider: context window */
    numCtx: z.number().int().positive().optional(),
    /** ollama provider: thinking switch */
    think: z.union([z.boolean(), z.enum(['low', 'medium', 'high'])]).optional(),
    /** ollama provider: keep the model loaded, e.g. "30m" */
    keepAlive: z.union([z.string(), z.number()]).optional(),
    /** extra request fields (openai body) or model options (ollama); part of the cache key */
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;

/**
 * The one normal form of an `llm` setting, which a config may write as a model spec ("openai:m@URL") or as the
 * whole section: always the section ({model, …}), or undefined when there is no model.
 */
export function llmSection<T extends { model: string }>(llm: string | T | undefined | null): T | { model: string } | undefined {
  if (llm === undefined || llm === null) return undefined;
  return typeof llm === 'string' ? { model: llm } : llm;
}

/**
 * List prices (USD per 1M tokens) of models the papers locfix reproduces used; local servers cost nothing.
 * A configured `prices` table overrides these entry by entry.
 */
export const DEFAULT_PRICES: Record<string, z.infer<typeof TokenPriceSchema>> = {
  'gpt-4o-2024-05-13': { input: 5, output: 15 },
  'gpt-4o-2024-08-06': { input: 2.5, output: 10 },
  'gpt-4o-2024-11-20': { input: 2.5, output: 10 },
  'gpt-4o-mini*': { input: 0.15, output: 0.6 },
  'ollama:*': { input: 0, output: 0 },
};

/** Parses and fills defaults; throws an error that names every bad field. */
export function parseLlmConfig(input: unknown): LlmConfig {
  const result = LlmConfigSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(llm)'}: ${i.message}`).join('; ');
    throw new Error(`invalid llm configuration: ${problems}`);
  }
  return result.data;
}
