import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ansiCQuote } from '../../validation/testbed.ts';

describe("ansiCQuote (files written through bash's printf)", () => {
  const roundTrip = (text: string) => execFileSync('bash', ['-c', `printf '%s' ${ansiCQuote(text)}`]).toString('utf8');

  it('keeps patches, quotes, backslashes, tabs, CRLF and non-ASCII text byte for byte', () => {
    const samples = [
      'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-print(\'a\')\n+print("b\\n")\n',
      "it's a \\x41 $HOME `cmd` $(cmd) %s %%\tend\r\n",
      'ünïcödé ✓ 1a\x01\x7f',
      '',
    ];
    for (const text of samples) expect(roundTrip(text)).toBe(text);
  });

  it('round-trips arbitrary text without NUL', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000') && Buffer.from(s).toString() === s),
        (text) => {
          expect(roundTrip(text)).toBe(text);
        },
      ),
      { numRuns: 60 },
    );
  });
});
