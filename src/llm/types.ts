/** One chat interface over every model server locfix talks to (Ollama, OpenAI, vLLM, ...). */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  /** number of samples; served natively where the server supports `n`, by repeated calls otherwise */
  n?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** free-form label for traces and usage accounting, e.g. "blagent.phase1" */
  purpose?: string;
}

export interface ChatChoice {
  /** the answer with reasoning blocks (<think>…</think>, gpt-oss analysis channel) removed */
  content: string;
  /** reasoning removed from the answer, kept for traces */
  reasoning?: string;
  finishReason?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** in the price table's currency (USD by default); 0 when the model has no price */
  cost: number;
}

export interface ChatResponse {
  model: string;
  choices: ChatChoice[];
  usage: Usage;
  /** true when every choice came from the on-disk cache (usage is then what the original call cost) */
  cached: boolean;
  latencyMs: number;
}

export interface ChatModel {
  /** "provider:model", e.g. "ollama:gpt-oss:120b" or "openai:gpt-4o-2024-05-13" */
  readonly id: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}
