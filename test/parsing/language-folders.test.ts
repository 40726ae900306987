/**
 * The language registry (src/languages/index.ts): each folder holds what it declares — its records point at
 * the folder, their query files are there, its specs name its own harness key and its own parsers — and the
 * lookups derived from the folders (parsers by name, a parser's language, eval-script form) agree with them.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  HARNESS_LANGUAGES,
  JUNIT_REPORT_PARSERS,
  LANGUAGE_FOLDERS,
  LANGUAGES,
  LOG_PARSERS,
  languageEvaluation,
  languageOfParser,
  mergeLogParsers,
  SPEC_FILES,
} from '../../src/languages/index.ts';
import type { LanguageFolder } from '../../src/languages/language-folder.ts';

const SRC_LANGUAGES = fileURLToPath(new URL('../../src/languages', import.meta.url));

describe('language folders', () => {
  it('every record reads its query files from its own folder, and every folder ships what it names', () => {
    for (const folder of LANGUAGE_FOLDERS as readonly LanguageFolder[]) {
      const dirs = new Set(folder.languages.map((l) => l.folder));
      expect([...dirs], folder.name).toEqual([path.join(SRC_LANGUAGES, folder.name)]);
      for (const language of folder.languages) {
        for (const query of [language.tags, language.references].filter(Boolean))
          expect(existsSync(path.join(language.folder, query!)), `${language.id}: ${query}`).toBe(true);
      }
      if (folder.evaluation?.specFile) expect(path.dirname(folder.evaluation.specFile)).toBe([...dirs][0]);
    }
    expect(LANGUAGES.map((l) => l.id)).toEqual(['python', 'go', 'rust', 'java', 'c', 'cpp', 'javascript', 'typescript', 'tsx', 'php', 'ruby', 'csharp']);
  });

  it("a folder's specs name its harness key and parsers of its own", () => {
    const evaluated = (LANGUAGE_FOLDERS as readonly LanguageFolder[]).flatMap((f) => (f.evaluation ? [f.evaluation] : []));
    expect(evaluated.map((e) => e.harnessKey).sort()).toEqual(['c', 'go', 'java', 'js', 'php', 'py', 'rb', 'rs']);
    expect(SPEC_FILES).toHaveLength(evaluated.length);
    for (const folder of evaluated) {
      const repos = (JSON.parse(readFileSync(folder.specFile!, 'utf8')) as { repos: Record<string, { language?: string; log_parser: string }> }).repos;
      expect(Object.keys(repos).length, folder.harnessKey).toBeGreaterThan(0);
      for (const [repo, entry] of Object.entries(repos)) {
        expect(entry.language ?? 'py', repo).toBe(folder.harnessKey);
        expect(Object.keys(folder.logParsers), repo).toContain(entry.log_parser);
      }
    }
  });

  it('parsers are looked up by name across folders; a name two folders declare is refused at load', () => {
    expect(Object.keys(LOG_PARSERS)).toHaveLength(
      (LANGUAGE_FOLDERS as readonly LanguageFolder[]).reduce((n, f) => n + Object.keys(f.evaluation?.logParsers ?? {}).length, 0),
    );
    expect([languageOfParser('gotest'), languageOfParser('jest'), languageOfParser('sympy'), languageOfParser('googletest'), languageOfParser('nope')]).toEqual(
      ['go', 'js', 'py', 'c', undefined],
    );
    expect(JUNIT_REPORT_PARSERS.has('pytest_v2')).toBe(true);
    expect(JUNIT_REPORT_PARSERS.has('django')).toBe(false);
    const go = languageEvaluation('go');
    expect(() => mergeLogParsers([go, { ...languageEvaluation('rs'), logParsers: { gotest: go.logParsers.gotest! } }])).toThrow(
      /log parser "gotest" is declared by two language folders \(go and rs\)/,
    );
  });

  it('the eval-script form is the folder’s: Python’s for py, the common one elsewhere', () => {
    expect(HARNESS_LANGUAGES.filter((key) => languageEvaluation(key).evalScript === 'python')).toEqual(['py']);
  });
});
