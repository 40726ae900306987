/**
 * Python's `difflib.SequenceMatcher(None, a, b).ratio()` for strings, ported faithfully (Ratcliff/Obershelp
 * with difflib's "autojunk" popularity heuristic), because the BLAgent paper's line-level approximation is
 * defined with it and its 0.6 threshold only means the same thing with the same measure.
 *
 * ratio = 2·M / (|a| + |b|), where M is the number of characters in the matching blocks found by
 * recursively taking the longest common substring (leftmost in a, then in b, on ties) and repeating on the
 * pieces to its left and right.
 */

interface Match {
  a: number;
  b: number;
  size: number;
}

function buildB2j(b: string): Map<string, number[]> {
  const b2j = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const ch = b[j];
    const list = b2j.get(ch);
    if (list) list.push(j);
    else b2j.set(ch, [j]);
  }
  // difflib's autojunk: in sequences of 200+ elements, elements making up more than 1% are "popular" and
  // ignored as match anchors.
  const n = b.length;
  if (n >= 200) {
    const limit = Math.floor(n / 100) + 1;
    for (const [ch, list] of [...b2j]) if (list.length > limit) b2j.delete(ch);
  }
  return b2j;
}

function findLongestMatch(a: string, b: string, b2j: Map<string, number[]>, alo: number, ahi: number, blo: number, bhi: number): Match {
  let besti = alo;
  let bestj = blo;
  let bestsize = 0;
  let j2len = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    j2len = next;
  }
  // Extend with equal elements that were excluded as popular (difflib does the same for "junk").
  while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1] && !b2j.has(b[bestj - 1])) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize] && !b2j.has(b[bestj + bestsize])) {
    bestsize++;
  }
  return { a: besti, b: bestj, size: bestsize };
}

export function matchingCharacters(a: string, b: string): number {
  const b2j = buildB2j(b);
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  let matched = 0;
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const m = findLongestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (m.size === 0) continue;
    matched += m.size;
    if (alo < m.a && blo < m.b) queue.push([alo, m.a, blo, m.b]);
    if (m.a + m.size < ahi && m.b + m.size < bhi) queue.push([m.a + m.size, ahi, m.b + m.size, bhi]);
  }
  return matched;
}

/** difflib.SequenceMatcher(None, a, b).ratio() */
export function sequenceRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, b)) / total;
}
