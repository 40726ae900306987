/** Fast common-prefix/suffix measures for the many near-identical file versions the repair stage handles. */

const CHUNK = 256;

/** Length of the common prefix of `a` and `b` (compares in chunks first: string equality is a memcmp). */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i + CHUNK <= max && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common suffix of `a` and `b` that does not reach into their first `skip` characters. */
export function commonSuffixLength(a: string, b: string, skip = 0): number {
  const max = Math.min(a.length, b.length) - skip;
  let n = 0;
  while (n + CHUNK <= max && a.slice(a.length - n - CHUNK, a.length - n) === b.slice(b.length - n - CHUNK, b.length - n)) n += CHUNK;
  while (n < max && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/** Common leading and trailing elements of two arrays, not overlapping. */
export function commonEdges<T>(a: readonly T[], b: readonly T[]): { prefix: number; suffix: number } {
  const max = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < max && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}
