/**
 * Where a retrieval misses, by what the issue says of the file to find (issue 44): a fix that edits several files,
 * a gold file the issue names by path or dotted module, one it names only by its stem as a word (`latex`, a class
 * named after its file), and one it never names. Mention-based evidence (paths, definitions, literals) can only
 * help the named kinds; the rest needs evidence of meaning.
 */
import path from 'node:path';
import { firstGoldRank } from '../results/loc-metrics.ts';

export type MissCategory = 'multi-file fix' | 'path or module named' | 'stem named as a word' | 'never named';
export const MISS_CATEGORIES: readonly MissCategory[] = ['path or module named', 'stem named as a word', 'never named', 'multi-file fix'];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the issue text says of the gold files. */
export function missCategory(issue: string, gold: readonly string[]): MissCategory {
  if (gold.length > 1) return 'multi-file fix';
  const file = gold[0] ?? '';
  const base = path.posix.basename(file);
  const stem = base.replace(/\.[^.]+$/, '');
  const dotted = file.replace(/\.[^.]+$/, '').replace(/\//g, '.');
  if (issue.includes(base) || (dotted.includes('.') && issue.includes(dotted))) return 'path or module named';
  if (stem.length >= 2 && new RegExp(`\\b${escapeRegExp(stem)}\\b`).test(issue)) return 'stem named as a word';
  return 'never named';
}

export interface CategoryRow {
  category: MissCategory;
  rows: number;
  top1: number;
  top5: number;
}

/** Per category: rows, and how many have a gold file at rank 1 and within 5. */
export function missTable(runs: ReadonlyArray<{ issue: string; gold: readonly string[]; ranking?: readonly string[] }>): CategoryRow[] {
  return MISS_CATEGORIES.map((category) => {
    // a row without a gold file (a patch that names none) has nothing to be named: it is in no category
    const mine = runs.filter((r) => r.gold.length > 0 && missCategory(r.issue, r.gold) === category);
    const ranks = mine.map((r) => (r.ranking ? firstGoldRank(r.ranking, r.gold) : null));
    return {
      category,
      rows: mine.length,
      top1: ranks.filter((x) => x === 1).length,
      top5: ranks.filter((x) => x !== null && x <= 5).length,
    };
  }).filter((r) => r.rows > 0);
}

export function formatMissTable(rows: readonly CategoryRow[]): string {
  const lines = ['what the issue names of the gold file   rows  top-1  top-5  missed@1  missed@5'];
  for (const r of rows) {
    lines.push(
      `${r.category.padEnd(38)} ${String(r.rows).padStart(5)} ${String(r.top1).padStart(6)} ${String(r.top5).padStart(6)} ${String(r.rows - r.top1).padStart(9)} ${String(r.rows - r.top5).padStart(9)}`,
    );
  }
  return lines.join('\n');
}
