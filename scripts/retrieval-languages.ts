/**
 * The per-language parts of the retrieval benchmark: which language family an instance's index is in
 * (the family most of its indexed files belong to, JavaScript with TypeScript and C with C++), and how
 * fast each language parses — chunks and definitions of a file from one tree-sitter parse, the CPU part
 * of indexing that grows with the language's files — timed per file by wrapping the index's FileParser.
 */
import type { FileParser, ParsedFile } from '../src/index/file-parser.ts';
import { familyOf, languageForPath } from '../src/languages/index.ts';

const FAMILY_LABELS: Record<string, string> = {
  python: 'Python',
  go: 'Go',
  rust: 'Rust',
  java: 'Java',
  c: 'C/C++',
  javascript: 'JS/TS',
  php: 'PHP',
  ruby: 'Ruby',
};

/** The label of the language family most of these files are in ('none' for an empty index). */
export function indexLanguage(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const p of paths) {
    const spec = languageForPath(p);
    if (!spec) continue;
    const family = familyOf(spec);
    counts.set(family, (counts.get(family) ?? 0) + 1);
  }
  const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  return best ? (FAMILY_LABELS[best] ?? best) : 'none';
}

export interface LanguageSpeed {
  files: number;
  kb: number;
  ms: number;
}

/** A FileParser that times every parse by the file's language; the id is the wrapped one's, so caches stay shared. */
export function timedParser(inner: FileParser, speeds: Map<string, LanguageSpeed>): FileParser {
  return {
    id: inner.id,
    async parse(path: string, content: string): Promise<ParsedFile> {
      const t = performance.now();
      try {
        return await inner.parse(path, content);
      } finally {
        const language = languageForPath(path)?.id ?? 'unparsed';
        const s = speeds.get(language) ?? { files: 0, kb: 0, ms: 0 };
        s.files++;
        s.kb += content.length / 1024;
        s.ms += performance.now() - t;
        speeds.set(language, s);
      }
    },
  };
}

/** `language  files  KB  files/s  KB/s` lines, most files first. */
export function formatSpeeds(speeds: ReadonlyMap<string, LanguageSpeed>): string[] {
  return [...speeds]
    .sort((a, b) => b[1].files - a[1].files)
    .map(
      ([language, s]) =>
        `  ${language.padEnd(11)} ${String(s.files).padStart(6)} files ${String(Math.round(s.kb)).padStart(7)} KB  ${String(Math.round(s.files / (s.ms / 1000))).padStart(6)} files/s  ${String(Math.round(s.kb / (s.ms / 1000))).padStart(6)} KB/s`,
    );
}

export function speedsRecord(speeds: ReadonlyMap<string, LanguageSpeed>): Record<string, LanguageSpeed & { filesPerS: number; kbPerS: number }> {
  return Object.fromEntries(
    [...speeds].map(([language, s]) => [
      language,
      { files: s.files, kb: Math.round(s.kb), ms: Math.round(s.ms), filesPerS: Math.round(s.files / (s.ms / 1000)), kbPerS: Math.round(s.kb / (s.ms / 1000)) },
    ]),
  );
}
