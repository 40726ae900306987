/** What a provider file (openai.ts, ollama.ts) implements: one HTTP call, no retries, no cache, no accounting. */
import type { ChatMessage } from './types.ts';

export interface TransportCall {
  messages: ChatMessage[];
  /** samples wanted from this one HTTP call; > 1 only when the transport supports native `n` */
  n: number;
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** fires on timeout or when the caller aborts */
  signal: AbortSignal;
}

export interface RawSample {
  /** the answer text as sent (may contain <think> blocks or harmony channels) */
  text: string;
  /** reasoning the server sent in a separate field */
  thinking?: string;
  finishReason?: string;
  /** set when the text was over the reply cap and was cut (reply-cap.ts) */
  replyCut?: { keptChars: number; totalChars: number };
}

export interface RawCompletion {
  /** may hold fewer samples than asked (servers that ignore `n`); the caller asks again for the rest */
  samples: RawSample[];
  /** as reported by the server; absent when it reports none */
  usage?: { promptTokens: number; completionTokens: number };
}

export interface ChatTransport {
  readonly provider: 'openai' | 'ollama';
  readonly baseURL: string;
  readonly model: string;
  /** the server honours `n` (several samples per HTTP call) */
  readonly supportsN: boolean;
  /** provider options that change answers (e.g. Ollama num_ctx, think); part of the cache key */
  readonly answerOptions: Record<string, unknown>;
  /** must throw LlmError ('http' with status, 'connection', 'parse') for failures it can classify */
  complete(call: TransportCall): Promise<RawCompletion>;
}
