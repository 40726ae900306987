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
 * The most bytes of one run encoded as one piece. js-tiktoken merges a pre-token's byte pairs in time quadratic in
 * its length in bytes, and the pre-tokenizer makes one pre-token of a run of non-space characters (20,000 `=` took
 * ~80 s, synchronously: no timeout or signal can act meanwhile) and one of a run of whitespace (20,000 spaces took
 * 64 s, U+3000, three bytes each, 564 s). A pre-token is at most one character longer than the run it comes from,
 * so both kinds of run are encoded in pieces of at most this many bytes, and equal pieces (a run of one character)
 * are encoded once: every count is linear in its input. Text whose runs are shorter — every ordinary prompt, URLs
 * and long identifiers included — is encoded exactly as before; a longer run may count a token or so more per
 * piece, and decodes to the same text.
 */
const MAX_PIECE_BYTES = 128;
/** runs that may be longer than a piece (a code point takes at most 4 bytes); the byte length decides */
const LONG_RUN = new RegExp(`\\S{${MAX_PIECE_BYTES / 4 + 1},}|\\s{${MAX_PIECE_BYTES / 4 + 1},}`, 'gu');

/** `run` cut at code points into pieces of at most MAX_PIECE_BYTES bytes of UTF-8. */
function pieces(run: string): string[] {
  const out: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const point of run) {
    const size = Buffer.byteLength(point);
    if (bytes + size > MAX_PIECE_BYTES && piece) {
      out.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += point;
    bytes += size;
  }
  if (piece) out.push(piece);
  return out;
}

/** Token ids of `text`; special-token spellings in the text are encoded as ordinary text. */
export function encodeTokens(text: string): number[] {
  const encoder = o200k();
  if (!LONG_RUN.test(text)) return encoder.encode(text, [], []);
  LONG_RUN.lastIndex = 0;
  const out: number[] = [];
  // equal pieces encode alike: a run of one character costs one piece, however long
  const encoded = new Map<string, number[]>();
  const encodePiece = (piece: string) => {
    let tokens = encoded.get(piece);
    if (!tokens) {
      tokens = encoder.encode(piece, [], []);
      encoded.set(piece, tokens);
    }
    for (const t of tokens) out.push(t);
  };
  let at = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (Buffer.byteLength(m[0]) <= MAX_PIECE_BYTES) continue; // short enough: encoded with the text around it
    if (m.index > at) for (const t of encoder.encode(text.slice(at, m.index), [], [])) out.push(t);
    for (const piece of pieces(m[0])) encodePiece(piece);
    at = m.index + m[0].length;
  }
  if (at < text.length) for (const t of encoder.encode(text.slice(at), [], [])) out.push(t);
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
