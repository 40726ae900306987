/**
 * Names declared once: the backends (`BACKEND_NAMES`) and the localizers (the registry's keys) each have one
 * declaration, which the config, the flags and the commands take. A list or a union of those names written out
 * again elsewhere is a second declaration that the next name added will miss (`locfix sweep --backend` once took
 * its own list); the architecture check refuses one. Harness releases have a rule of their own (no comparison
 * with a version outside the release table).
 */
import { LOCALIZERS } from '../localizer/registry.ts';
import { BACKEND_NAMES } from '../src/sandbox/types.ts';

export interface DeclaredNames {
  what: string;
  /** where the names are declared (the file may list them) */
  file: string;
  names: readonly string[];
  /** the fewest of them a list must hold to count: two localizer names together are often another vocabulary
   * (the published formats named after the tools that wrote them) */
  least: number;
}

export const DECLARED_NAMES: readonly DeclaredNames[] = [
  { what: 'backend names (BACKEND_NAMES)', file: 'src/sandbox/types.ts', names: BACKEND_NAMES, least: 2 },
  { what: 'localizer names (the registry)', file: 'localizer/registry.ts', names: Object.keys(LOCALIZERS), least: 3 },
];

const QUOTED = String.raw`['"\`][\w.-]+['"\`]`;
/** an array literal of quoted words, or a union of quoted words */
const LISTS = new RegExp(String.raw`\[\s*(?:${QUOTED}\s*,\s*)+${QUOTED}\s*,?\s*\]|(?:${QUOTED}\s*\|\s*)+${QUOTED}`, 'g');

/**
 * Lines of `text` with an array or union of quoted words that are all names of one declared set, at least its
 * `least` of them (a list with other words in it is another vocabulary: published formats, failure categories).
 */
export function restatedNames(
  file: string,
  text: string,
  sets: readonly DeclaredNames[] = DECLARED_NAMES,
): Array<{ line: number; what: string; file: string }> {
  const out: Array<{ line: number; what: string; file: string }> = [];
  for (const match of text.matchAll(LISTS)) {
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    if (/^\s*(\/\/|\*|\/\*)/.test(text.slice(lineStart, match.index))) continue; // in a comment
    const words = [...match[0].matchAll(/['"`]([\w.-]+)['"`]/g)].map((m) => m[1]!);
    for (const set of sets) {
      if (set.file === file || words.length < set.least || !words.every((w) => set.names.includes(w))) continue;
      out.push({ line: text.slice(0, match.index).split('\n').length, what: set.what, file: set.file });
    }
  }
  return out;
}
