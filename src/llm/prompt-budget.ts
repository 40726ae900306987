/**
 * A token budget per prompt, enforced where every call passes (ManagedChatModel), so no stage can send a
 * prompt nobody meant to pay for: one 5 MB issue once became 9.5 M prompt tokens in BLAgent. An
 * over-budget prompt loses the middle of its longest message — issues and logs carry their point at the
 * start (the report) and the end (the traceback) — with a marker in the text saying how much went, and
 * the call's trace records the cut.
 */
import type { ChatMessage, PromptCut } from './types.ts';
import { countChatTokens, decodeTokens, encodeTokens } from './tokens.ts';

const marker = (dropped: number) => `\n\n[… ${dropped} tokens left out here by locfix: the prompt was over its token budget …]\n\n`;

/**
 * The messages within `budget` prompt tokens (countChatTokens), and what was cut; unchanged when they fit.
 * Cheap for prompts that fit: a UTF-8 byte never yields more than one token, so a short prompt is not tokenized.
 */
export function fitPromptBudget(messages: readonly ChatMessage[], budget: number): { messages: ChatMessage[]; cut?: PromptCut } {
  const copy = messages.map((m) => ({ ...m }));
  const bytes = copy.reduce((n, m) => n + Buffer.byteLength(m.content) + Buffer.byteLength(m.role) + 6, 3);
  if (bytes <= budget) return { messages: copy };
  const total = countChatTokens(copy);
  if (total <= budget) return { messages: copy };
  let longest = 0;
  for (let i = 1; i < copy.length; i++) if (copy[i]!.content.length > copy[longest]!.content.length) longest = i;
  const original = copy[longest]!.content;
  const tokens = encodeTokens(original);
  // what the rest of the prompt needs, and room for the marker (its digits included); decoding a cut through
  // a multi-byte character can re-encode a few tokens longer, so tighten until it fits
  let excess = total - budget + encodeTokens(marker(total)).length;
  let after = total;
  for (let round = 0; round < 4 && after > budget; round++) {
    const keep = Math.max(0, tokens.length - excess);
    const head = Math.ceil(keep / 2);
    const tail = keep - head;
    copy[longest]!.content =
      decodeTokens(tokens.slice(0, head)) + marker(tokens.length - keep) + (tail > 0 ? decodeTokens(tokens.slice(tokens.length - tail)) : '');
    after = countChatTokens(copy);
    excess += after - budget + 8;
  }
  return {
    messages: copy,
    cut: { message: longest, tokensBefore: tokens.length, tokensAfter: encodeTokens(copy[longest]!.content).length, promptBefore: total, promptAfter: after },
  };
}
