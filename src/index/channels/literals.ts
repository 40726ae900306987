/**
 * The literals channel: which files hold the string literals an issue quotes. An error message, a log line or
 * a warning an issue pastes names the code that raises it (`ValueError: Unknown format code 'd'` is written
 * in one `raise` somewhere), and no other channel reads literals as a phrase: BM25 and the dense channel see
 * their words among the file's other words, the definition channel sees identifiers only.
 *
 * A file's literals are the quoted strings of its chunks, cut at format placeholders (`{}`, `%s`, `{name}`)
 * into fragments, since the issue shows the formatted message. A fragment counts only when it is long and
 * phrase-like (MIN_FRAGMENT characters and MIN_WORDS words after normalising): short ones, two-word phrases and bare
 * identifiers match by chance. A query matches a fragment when its normalised text contains it; a file scores the sum over
 * its matching fragments of their rarity in the repository (log(1 + files / files holding it)) times their
 * length in units of MIN_FRAGMENT, square-rooted: one long specific message outweighs several common words.
 */
import type { FileHit } from '../types.ts';
import type { IndexChannel } from './types.ts';
import { bestFiles, termHolders, termsPerRecord } from './term-holders.ts';

/** a fragment shorter than this (normalised) is too likely to occur by chance */
export const MIN_FRAGMENT = 12;
/** nor one of fewer words: two-word phrases ("data elements", "function names") are ordinary prose in an issue */
const MIN_WORDS = 3;
/** fragments longer than this are cut: a query rarely quotes more of one literal */
const MAX_FRAGMENT = 200;
/**
 * the query text read, at most: each fragment is looked for in it, so the cost is fragments × length (measured:
 * 20,000 fragments in 1 MB of text take 6 s, in this much 0.6 s). The longest issue of SWE-bench Lite and of the
 * development sets is under 25,000 characters; a log pasted past this point is not read.
 */
export const MAX_LITERAL_QUERY = 100_000;

export interface LiteralsPart {
  /** files holding literals the text contains, best first */
  searchLiterals(text: string, k: number): Promise<FileHit[]>;
}

// "…", '…' and `…` on one line (escaped quotes kept inside; string prefixes such as f"…" allowed); triple-quoted
// docstrings are prose, not messages, and a quote right after another quote is the inside of one
const QUOTED = /(?<!["'`\\])(?:"((?:[^"\\\n]|\\.){12,}?)"|'((?:[^'\\\n]|\\.){12,}?)'|`((?:[^`\\\n]|\\.){12,}?)`)(?!["'`])/g;
// printf and format placeholders: `%s`, `%(name)s`, `%.2f`, `{}`, `{0}`, `{name!r:>10}`, `${x}`
const PLACEHOLDER = /%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|\$?\{[^{}]*\}/g;

/** quotes, spaces and punctuation at a fragment's ends (around a placeholder: `code '%s' for`) */
const EDGES = /^[\s'"`:,.;=()[\]-]+|[\s'"`:,.;=()[\]-]+$/g;

/** Lowercase, escapes and runs of space collapsed: how literals and query texts are compared. */
export function normalizeLiteral(text: string): string {
  return text
    .replace(/\\[nt]/g, ' ')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The phrase-like fragments of the string literals in `code`. */
export function literalFragments(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(QUOTED)) {
    const literal = m[1] ?? m[2] ?? m[3] ?? '';
    for (const part of literal.split(PLACEHOLDER)) {
      const fragment = normalizeLiteral(part).slice(0, MAX_FRAGMENT).replace(EDGES, '');
      if (fragment.length >= MIN_FRAGMENT && fragment.split(' ').length >= MIN_WORDS) out.add(fragment);
    }
  }
  return [...out];
}

/** A record's fragments, kept while the record is (term-holders.ts): unchanged files are not cut again per instance. */
const fragmentsOf = termsPerRecord(literalFragments);

export const literalsChannel: IndexChannel<LiteralsPart> = {
  name: 'literals',
  async open(ctx) {
    return {
      async finish(records) {
        const started = performance.now();
        // fragment -> the files holding it
        const holders = termHolders(records, fragmentsOf);
        const files = Math.max(records.length, 1);
        const entries = [...holders].map(([fragment, paths]) => ({
          fragment,
          paths,
          weight: Math.log(1 + files / paths.length) * Math.sqrt(fragment.length / MIN_FRAGMENT),
        }));
        ctx.timings.literalsMs = performance.now() - started;
        return {
          async searchLiterals(text, k) {
            const normalized = normalizeLiteral(text.slice(0, 2 * MAX_LITERAL_QUERY)).slice(0, MAX_LITERAL_QUERY);
            if (normalized.length < MIN_FRAGMENT) return [];
            const scores = new Map<string, number>();
            for (const e of entries) {
              if (!normalized.includes(e.fragment)) continue;
              for (const p of e.paths) scores.set(p, (scores.get(p) ?? 0) + e.weight);
            }
            return bestFiles(scores, k);
          },
        };
      },
    };
  },
};
