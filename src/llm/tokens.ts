/**
 * Local token counting (o200k_base, the GPT-4o / gpt-oss vocabulary). Used when a server reports no usage,
 * by the scripted test server, and by benchmarks that compare prompt sizes with one counter.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import type { ChatMessage } from './types.ts';

let encoder: Tiktoken | undefined;

function o200k(): Tiktoken {
  // Building the rank table takes ~100 ms; do it once, on first use.
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

/** Token ids of `text`; special-token spellings in the text are encoded as ordinary text. */
export function encodeTokens(text: string): number[] {
  return o200k().encode(text, [], []);
}

export function decodeTokens(tokens: number[]): string {
  return o200k().decode(tokens);
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encodeTokens(text).length;
}

/**
 * Prompt tokens of a chat as OpenAI counts them for GPT-4o-style chat templates: each message costs its
 * role and content plus 3 framing tokens, and every reply is primed with 3 more.
 */
export function countChatTokens(messages: readonly ChatMessage[]): number {
  let total = 3;
  for (const message of messages) total += 3 + countTokens(message.role) + countTokens(message.content);
  return total;
}
