/**
 * Fault: token counting was quadratic in the length of a run of one character (js-tiktoken's byte-pair merge), and
 * synchronous, so 20,000 `=` in an issue or a model reply took ~80 s during which no timeout, SIGTERM or SIGINT
 * could act. Long runs are now encoded in bounded pieces; ordinary text is encoded exactly as before.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countChatTokens, countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';

describe('token counting on hostile text', () => {
  it('counts 20,000 "=" and 50,000 "x" in seconds, not minutes', () => {
    const started = performance.now();
    expect(countTokens('='.repeat(20_000))).toBeGreaterThan(0);
    expect(countChatTokens([{ role: 'user', content: `issue text ${'x'.repeat(50_000)} end` }])).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('encodes ordinary text exactly as the tokenizer does, and every text back to itself', () => {
    const plain = new Tiktoken(o200kBase);
    const prose = 'The `Engine.run` method returns the wrong value when called twice:\n\n    def run(self):\n        return self._x + 1\n';
    expect(encodeTokens(prose)).toEqual(plain.encode(prose, [], []));
    const hostile = `héllo 😀 ${'a'.repeat(1_001)}${'😀'.repeat(450)} ${'='.repeat(900)} end`;
    expect(decodeTokens(encodeTokens(hostile))).toBe(hostile);
  });
});
