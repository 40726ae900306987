/** How the tokens of one answered HTTP call are split over its samples, and what an attempt cost. */
import { countChatTokens, countTokens } from './tokens.ts';
import type { Spent } from './spend.ts';
import type { RawCompletion } from './transport.ts';
import type { ChatRequest } from './types.ts';
import { costOf, type TokenPrice } from './usage.ts';
import type { ReplyCut } from './reply-cap.ts';

/** One generated or cached sample before it becomes a ChatChoice. */
export interface SampleRecord {
  raw: string;
  thinking?: string;
  finishReason?: string;
  promptTokens: number;
  completionTokens: number;
  cached: boolean;
  /** the reply was over the size cap and cut (reply-cap.ts) */
  replyCut?: ReplyCut;
}

/**
 * Usage per sample of one HTTP call. The prompt was paid once per call, so it goes to the call's first
 * sample. Servers report completion tokens summed over choices; they are split in proportion to each
 * sample's locally counted tokens (rounding kept exact). Without server usage, everything is counted locally.
 */
export function attribute(completion: RawCompletion, count: number, request: ChatRequest): SampleRecord[] {
  const samples = completion.samples.slice(0, count);
  // Local counting (a one-time tokenizer load of a few seconds) only when the server's numbers don't suffice.
  const needLocal = !completion.usage || samples.length > 1;
  const local = needLocal ? samples.map((s) => countTokens(s.text) + (s.thinking ? countTokens(s.thinking) : 0)) : [];
  const promptTokens = completion.usage?.promptTokens ?? countChatTokens(request.messages);
  let completionShares = local;
  if (completion.usage && samples.length === 1) {
    completionShares = [completion.usage.completionTokens];
  } else if (completion.usage) {
    const total = completion.usage.completionTokens;
    const localSum = local.reduce((a, b) => a + b, 0);
    completionShares = samples.map((_, i) => (localSum > 0 ? Math.floor((total * local[i]!) / localSum) : Math.floor(total / samples.length)));
    let rest = total - completionShares.reduce((a, b) => a + b, 0);
    for (let i = 0; rest > 0; i = (i + 1) % samples.length, rest--) completionShares[i]!++;
  }
  return samples.map((s, i) => ({
    raw: s.text,
    ...(s.thinking !== undefined ? { thinking: s.thinking } : {}),
    ...(s.finishReason !== undefined ? { finishReason: s.finishReason } : {}),
    ...(s.replyCut ? { replyCut: s.replyCut } : {}),
    promptTokens: i === 0 ? promptTokens : 0,
    completionTokens: completionShares[i]!,
    cached: false,
  }));
}

/** What one answered HTTP attempt cost: the server's usage, or locally counted tokens when it reports none. */
export function spendOf(completion: RawCompletion, request: ChatRequest, price: TokenPrice | undefined): Omit<Spent, 'calls'> {
  const promptTokens = completion.usage?.promptTokens ?? countChatTokens(request.messages);
  const completionTokens =
    completion.usage?.completionTokens ?? completion.samples.reduce((sum, s) => sum + countTokens(s.text) + (s.thinking ? countTokens(s.thinking) : 0), 0);
  return { promptTokens, completionTokens, cost: costOf(price, promptTokens, completionTokens) };
}
