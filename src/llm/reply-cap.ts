/**
 * A reply longer than any answer locfix asks for is cut, and the cut is recorded. A hostile or broken
 * server can send megabytes (a 50 MB explorer reply ran 27 minutes at 2.7 GB): every later step parses,
 * counts, stores and re-sends what it is given, so the cap is applied once, where replies come in, before
 * the cache stores them.
 */

import type { RawCompletion } from './transport.ts';

/** ~250k tokens: past the output limit of every model locfix drives, so a real answer is never cut */
export const MAX_REPLY_CHARS = 1_000_000;

export interface ReplyCut {
  keptChars: number;
  totalChars: number;
}

/** `text` within `max` characters, marked where it was cut; the cut when there was one. */
export function capReply(text: string, max: number): { text: string; cut?: ReplyCut } {
  if (text.length <= max) return { text };
  const kept = text.slice(0, max);
  return {
    text: `${kept}\n[locfix: the reply was cut here: ${max} of ${text.length} characters kept]`,
    cut: { keptChars: max, totalChars: text.length },
  };
}

/** Every sample's text (and separate reasoning) within `max` characters, each cut recorded on its sample. */
export function capCompletion(completion: RawCompletion, max: number): RawCompletion {
  if (completion.samples.every((s) => s.text.length <= max && (s.thinking?.length ?? 0) <= max)) return completion;
  return {
    ...completion,
    samples: completion.samples.map((s) => {
      const reply = capReply(s.text, max);
      return {
        ...s,
        text: reply.text,
        ...(s.thinking !== undefined ? { thinking: capReply(s.thinking, max).text } : {}),
        ...(reply.cut ? { replyCut: reply.cut } : {}),
      };
    }),
  };
}
