/**
 * A language's folder, as the registry (./index.ts) lists it: everything locfix knows about one language,
 * localization and evaluation alike. Adding a language is its folder — records and query files for parsing; for
 * evaluation, log parsers and environment specs; this manifest as `index.ts` — plus one line in the registry.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogParser } from './log-parser.ts';
import type { LanguageSpec } from './types.ts';

export interface LanguageFolder {
  /** the folder's name under src/languages/ */
  name: string;
  /** the languages whose source files it parses: one, or a family sharing a repository index (C with C++) */
  languages: readonly LanguageSpec[];
  /** how the SWE-bench harness evaluates its repositories; absent for a language locfix only localizes in */
  evaluation?: LanguageEvaluation;
}

export interface LanguageEvaluation {
  /** the harness' key of the language (MAP_REPO_TO_EXT: py, c, go, java, js, php, rb, rs); specs name it */
  harnessKey: string;
  /** its test runners' log parsers, by the name a spec's `log_parser` gives */
  logParsers: Readonly<Record<string, LogParser>>;
  /** the parsers among them whose runner can also write a JUnit XML report (pytest's) */
  junitReportParsers?: readonly string[];
  /**
   * the form of its evaluation script, as the harness writes it: Python's (a conda environment, test
   * directives appended to one test command) or the common one every other language uses
   */
  evalScript: 'python' | 'common';
  /** its repositories' environment specs (src/harness/specs.ts reads them), absent until it has any */
  specFile?: string;
}

/** The folder of a module, from its `import.meta.url`. */
export function folderOf(moduleUrl: string): string {
  return path.dirname(fileURLToPath(moduleUrl));
}

/** A folder's file, from the folder manifest's `import.meta.url`. */
export function fileBeside(moduleUrl: string, name: string): string {
  return path.join(folderOf(moduleUrl), name);
}
