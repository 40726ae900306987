/**
 * The language registry: one line per language folder (`./<language>/index.ts`). Everything per language that
 * the rest of locfix looks up is derived here — the records the parser and the retrieval index use, by id and by
 * file extension; the log parsers by name; the harness' language keys; the environment spec files.
 */
import path from 'node:path';
import { cFolder } from './c/index.ts';
import { csharpFolder } from './csharp/index.ts';
import { goFolder } from './go/index.ts';
import { javaFolder } from './java/index.ts';
import { javascriptFolder } from './javascript/index.ts';
import type { LanguageEvaluation, LanguageFolder } from './language-folder.ts';
import type { LogParser } from './log-parser.ts';
import { phpFolder } from './php/index.ts';
import { pythonFolder } from './python/index.ts';
import { rubyFolder } from './ruby/index.ts';
import { rustFolder } from './rust/index.ts';
import type { LanguageSpec } from './types.ts';

/** Every language folder; the order is the parser's order of languages (Python first). */
export const LANGUAGE_FOLDERS = [pythonFolder, goFolder, rustFolder, javaFolder, cFolder, javascriptFolder, phpFolder, rubyFolder, csharpFolder] as const;

/** The folders the harness evaluates, and their evaluation facts. */
type EvaluatedFolder = Extract<(typeof LANGUAGE_FOLDERS)[number], { evaluation: LanguageEvaluation }>;
const EVALUATIONS: readonly LanguageEvaluation[] = (LANGUAGE_FOLDERS as readonly LanguageFolder[]).flatMap((f) => (f.evaluation ? [f.evaluation] : []));

/** The harness' language keys (MAP_REPO_TO_EXT) the folders declare. */
export type HarnessLanguage = EvaluatedFolder['evaluation']['harnessKey'];
export const HARNESS_LANGUAGES = EVALUATIONS.map((e) => e.harnessKey) as [HarnessLanguage, ...HarnessLanguage[]];

const evaluationByKey = new Map(EVALUATIONS.map((e) => [e.harnessKey, e]));

/** The evaluation facts of a harness language key. */
export function languageEvaluation(key: HarnessLanguage): LanguageEvaluation {
  return evaluationByKey.get(key)!;
}

/** Every folder's log parsers by name; two folders naming one parser is a mistake caught at load. */
export const LOG_PARSERS: Readonly<Record<string, LogParser>> = mergeLogParsers(EVALUATIONS);

/** The language whose runner a log parser reads, by the parser's name; undefined for a name no folder has. */
export function languageOfParser(name: string): HarnessLanguage | undefined {
  return EVALUATIONS.find((e) => Object.hasOwn(e.logParsers, name))?.harnessKey as HarnessLanguage | undefined;
}

/** The parsers whose runner can write a JUnit XML report as well as its log. */
export const JUNIT_REPORT_PARSERS: ReadonlySet<string> = new Set(EVALUATIONS.flatMap((e) => e.junitReportParsers ?? []));

/** The environment spec files the folders ship, in registry order. */
export const SPEC_FILES: readonly string[] = EVALUATIONS.flatMap((e) => (e.specFile ? [e.specFile] : []));

export function mergeLogParsers(evaluations: readonly LanguageEvaluation[]): Record<string, LogParser> {
  const merged: Record<string, LogParser> = {};
  const owner = new Map<string, string>();
  for (const evaluation of evaluations) {
    for (const [name, parser] of Object.entries(evaluation.logParsers)) {
      const first = owner.get(name);
      if (first) throw new Error(`log parser "${name}" is declared by two language folders (${first} and ${evaluation.harnessKey})`);
      owner.set(name, evaluation.harnessKey);
      merged[name] = parser;
    }
  }
  return merged;
}

/** Every language locfix parses: definitions, the repair syntax check. */
export const LANGUAGES: readonly LanguageSpec[] = LANGUAGE_FOLDERS.flatMap((f: LanguageFolder) => f.languages);

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
