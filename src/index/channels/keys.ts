/**
 * The keys channel: which files read the configuration keys and command-line flags an issue names. A setting
 * (`FILE_UPLOAD_PERMISSIONS`, `autodoc_typehints`, `max-line-length`) or a flag (`--collect-only`) is read where
 * the code spells it as a string literal: `getattr(settings, "…")`, `config.getini("…")`, `add_config_value("…")`,
 * `parser.addoption("--…")`, `Option("--…")`. The literals channel skips such strings (one token, not a phrase),
 * the definitions channel sees identifiers only, and BM25 splits `max-line-length` into three common words.
 *
 * A key is a quoted string that is one token with a separator (`_`, `.`, `-`) between alphanumeric parts, or a
 * long flag (`--x…`). A query names a key when one of its tokens equals it exactly (case kept: `DEBUG` is a
 * setting, `debug` a word). A file scores the sum of log(1 + files / files holding the key) over the keys it
 * holds that the query names, so a key read in one place counts far more than one spelled everywhere.
 */
import type { FileHit } from '../types.ts';
import type { IndexChannel } from './types.ts';
import { bestFiles, termHolders, termsPerRecord } from './term-holders.ts';

/** shorter keys (`utf-8`, `a_b`) are too likely to be named by chance */
const MIN_KEY = 6;
const MAX_KEY = 80;
/** the query text read, at most (a token lookup per word: linear) */
export const MAX_KEYS_QUERY = 200_000;

/** one quoted token of 5-80 characters, not inside a longer string (a quote right before or after) */
const QUOTED_TOKEN = /(?<![\w"'`\\])(["'`])([^"'`\s\\]{5,80})\1(?![\w"'`])/g;
const FLAG = /^--[a-z0-9][a-z0-9-]*[a-z0-9]$/i;
const SEPARATED = /^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+$/;
/** a file name or a MIME type is a path, which the paths channel reads */
const FILE_NAME = /\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|json|txt|html?|css|rst|md|cfg|ini|toml|ya?ml|c|h|cc|cpp|hpp|rs|go|java|rb|php|cs|xml|csv|png|svg)$/i;
/** the same two shapes in prose: a token ends at a space, a quote, a bracket or a sentence's full stop */
const QUERY_TOKEN = /(?<![\w.-])(?:--[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]|[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+)/g;

/** Whether a quoted string is a configuration key or a flag. */
export function isKey(text: string): boolean {
  if (text.length < MIN_KEY || text.length > MAX_KEY) return false;
  if (FLAG.test(text)) return true;
  return SEPARATED.test(text) && !FILE_NAME.test(text) && /[A-Za-z]{2}/.test(text);
}

/** The configuration keys and flags spelled as string literals in `code`. */
export function keyLiterals(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(QUOTED_TOKEN)) if (isKey(m[2]!)) out.add(m[2]!);
  return [...out];
}

/** The tokens of a query that could name a key. */
export function queryKeyTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, MAX_KEYS_QUERY).matchAll(QUERY_TOKEN)) if (isKey(m[0])) out.add(m[0]);
  return out;
}

/** a record's keys, kept while the record is */
const keysOf = termsPerRecord(keyLiterals);

export interface KeysPart {
  /** files reading the configuration keys and flags the text names, best first */
  searchKeys(text: string, k: number): Promise<FileHit[]>;
}

export const keysChannel: IndexChannel<KeysPart> = {
  name: 'keys',
  async open(ctx) {
    return {
      async finish(records) {
        // built on the first search: the channel is off by default, and an index build should not pay for it
        let holders: Map<string, string[]> | undefined;
        const table = (): Map<string, string[]> => {
          if (!holders) {
            const started = performance.now();
            holders = termHolders(records, keysOf);
            ctx.timings.keysMs = performance.now() - started;
          }
          return holders;
        };
        const files = Math.max(records.length, 1);
        return {
          async searchKeys(text, k) {
            const tokens = queryKeyTokens(text);
            if (tokens.size === 0) return [];
            const scores = new Map<string, number>();
            for (const token of tokens) {
              const paths = table().get(token);
              if (!paths) continue;
              const weight = Math.log(1 + files / paths.length);
              for (const p of paths) scores.set(p, (scores.get(p) ?? 0) + weight);
            }
            return bestFiles(scores, k);
          },
        };
      },
    };
  },
};
