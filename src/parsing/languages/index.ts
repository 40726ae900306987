/**
 * The languages locfix parses, by id and by file extension. Adding one is a record file beside this one
 * and one entry in LANGUAGES.
 */
import path from 'node:path';
import { python } from './python.ts';
import type { LanguageSpec } from './types.ts';

export const LANGUAGES: readonly LanguageSpec[] = [python];

export type LanguageId = string;

const byId = new Map(LANGUAGES.map((l) => [l.id, l]));
const byExtension = new Map(LANGUAGES.flatMap((l) => [...l.extensions, ...(l.alsoParses ?? [])].map((ext) => [ext, l] as const)));

export function languageById(id: LanguageId): LanguageSpec {
  const spec = byId.get(id);
  if (!spec) throw new Error(`unknown language "${id}"; known: ${[...byId.keys()].join(', ')}`);
  return spec;
}

/** The language whose grammar parses this file, or undefined (not source code locfix understands). */
export function languageForPath(filePath: string): LanguageSpec | undefined {
  return byExtension.get(path.extname(filePath).toLowerCase());
}

/** Extensions of every language's source files: what the index takes by default. */
export function sourceExtensions(): string[] {
  return LANGUAGES.flatMap((l) => l.extensions);
}
