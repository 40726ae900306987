/** The LLM layer's public surface. */
export type { ChatMessage, ChatRequest, ChatChoice, ChatResponse, ChatTrace, ChatModel, Usage } from './types.ts';
export { ManagedChatModel, type ChatModelOptions } from './chat-model.ts';
export { createChatModel, parseModelSpec, type ModelSpec, type CreateChatModelOptions } from './factory.ts';
export { LlmConfigSchema, parseLlmConfig, DEFAULT_PRICES, type LlmConfig, type LlmConfigInput } from './config.ts';
export { LlmError, type LlmErrorKind } from './errors.ts';
export { UsageMeter, findPrice, costOf, type PriceTable, type TokenPrice, type UsageRecord, type UsageTotals } from './usage.ts';
export { splitReasoning } from './reasoning.ts';
export { countTokens, countChatTokens } from './tokens.ts';
export { createOpenAIChatModel, OpenAITransport } from './openai.ts';
export { createOllamaChatModel, OllamaTransport } from './ollama.ts';
