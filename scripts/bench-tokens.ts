/**
 * Token counting on hostile text (issue 42): one MiB of each kind of run that once made counting quadratic, and
 * prose, counted with locfix's counter (src/llm/tokens.ts). The time is what a spend-capped run spends counting
 * an issue of that size before its first model call; the counter is synchronous, so it is also how long the event
 * loop (timeouts, signals) waits.
 *
 *   npm run bench:tokens
 */
import { randomBytes } from 'node:crypto';
import { countTokens } from '../src/llm/tokens.ts';

countTokens('warm up the rank table');
const MiB = 1 << 20;
const cases: Record<string, string> = {
  spaces: ' '.repeat(MiB),
  newlines: '\n'.repeat(MiB),
  'U+3000 (ideographic space)': '\u3000'.repeat(Math.floor(MiB / 3)),
  '= (one non-space character)': '='.repeat(MiB),
  'CJK 中': '中'.repeat(Math.floor(MiB / 3)),
  'e + combining acute': 'e\u0301'.repeat(Math.floor(MiB / 3)),
  'emoji 😀': '😀'.repeat(MiB / 4),
  'random base64, no space': randomBytes((MiB * 3) / 4).toString('base64'),
  'prose and code': 'The `Engine.run` method returns the wrong value when called twice: def run(self): return self._x + 1\n'.repeat(MiB / 100),
};
console.log('| text (1 MiB) | tokens | seconds |\n|---|--:|--:|');
for (const [name, text] of Object.entries(cases)) {
  const started = performance.now();
  const tokens = countTokens(text);
  console.log(`| ${name} | ${tokens} | ${((performance.now() - started) / 1000).toFixed(2)} |`);
}
