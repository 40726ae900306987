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

/**
 * The longest run of non-space characters encoded as one piece. js-tiktoken merges a pre-token's byte pairs in
 * time quadratic in its length, so one long run (20,000 `=` take ~80 s, synchronously: no timeout or signal can
 * act meanwhile) is encoded in pieces of this length. Text whose runs are shorter — every ordinary prompt — is
 * encoded exactly as before; a longer run may count a token or so more per piece, and decodes to the same text.
 */
const MAX_RUN = 400;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'gu');

/** Token ids of `text`; special-token spellings in the text are encoded as ordinary text. */
export function encodeTokens(text: string): number[] {
  const encoder = o200k();
  if (!LONG_RUN.test(text)) return encoder.encode(text, [], []);
  LONG_RUN.lastIndex = 0;
  const out: number[] = [];
  let at = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > at) out.push(...encoder.encode(text.slice(at, m.index), [], []));
    // split at code points, so no surrogate pair is cut
    const points = [...m[0]];
    for (let i = 0; i < points.length; i += MAX_RUN) out.push(...encoder.encode(points.slice(i, i + MAX_RUN).join(''), [], []));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(...encoder.encode(text.slice(at), [], []));
  return out;
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
