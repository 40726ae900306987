/**
 * The languages locfix parses, by id and by file extension. Adding one is a record file beside this one
 * (for a tag-described language: `taggedLanguage({...})` and a query file in ./queries) and one entry in
 * LANGUAGES.
 */
import path from 'node:path';
import { c } from './c.ts';
import { cpp } from './cpp.ts';
import { go } from './go.ts';
import { java } from './java.ts';
import { javascript } from './javascript.ts';
import { php } from './php.ts';
import { python } from './python.ts';
import { ruby } from './ruby.ts';
import { rust } from './rust.ts';
import { tsx, typescript } from './typescript.ts';
import type { LanguageSpec } from './types.ts';

/** Every language locfix parses: definitions, the repair syntax check. */
export const LANGUAGES: readonly LanguageSpec[] = [python, go, rust, java, c, cpp, javascript, typescript, tsx, php, ruby];

/** The languages whose files are indexed and whose rules feed the lexical channels. */
export const INDEXED_LANGUAGES: readonly LanguageSpec[] = LANGUAGES.filter((l) => l.indexed);

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

/** Extensions of the indexed languages' source files: what the index takes by default. */
export function sourceExtensions(): string[] {
  return INDEXED_LANGUAGES.flatMap((l) => l.extensions);
}

/** The family a language shares a repository index with (JavaScript with TypeScript, C with C++). */
export function familyOf(spec: LanguageSpec): string {
  return spec.family ?? spec.id;
}
