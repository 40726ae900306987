/**
 * What the literals and keys channels share: a table of which files hold each term (a message fragment, a
 * configuration key), and the files a search scored, best first.
 */
import type { FileHit, FileRecord } from '../types.ts';

/** term → the files holding it, in record order */
export function termHolders(records: readonly FileRecord[], termsOf: (record: FileRecord) => readonly string[]): Map<string, string[]> {
  const holders = new Map<string, string[]>();
  for (const r of records) {
    for (const term of termsOf(r)) {
      const list = holders.get(term);
      if (list) list.push(r.file.path);
      else holders.set(term, [r.file.path]);
    }
  }
  return holders;
}

/** The k best-scored files, ties by path (a fixed order, so recordings and replays agree). */
export function bestFiles(scores: ReadonlyMap<string, number>, k: number): FileHit[] {
  return [...scores]
    .map(([path, score]) => ({ path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, k);
}

/**
 * A record's terms (`extract` over its chunks, each once), kept while the record is: records are reused by every
 * commit that has the same blob, so a repository's unchanged files are not read again for each instance.
 */
export function termsPerRecord(extract: (code: string) => readonly string[]): (record: FileRecord) => readonly string[] {
  const memo = new WeakMap<FileRecord, readonly string[]>();
  return (record) => {
    let terms = memo.get(record);
    if (!terms) {
      terms = [...new Set(record.chunks.flatMap((c) => extract(c.text)))];
      memo.set(record, terms);
    }
    return terms;
  };
}
