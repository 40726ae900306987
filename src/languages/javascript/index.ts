/** JavaScript and TypeScript (with TSX): one repository index for the family; jest, vitest, karma, tap. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { javascript } from './javascript.ts';
import { parseLogImmutableJs, parseLogJest, parseLogJestJson, parseLogKarma, parseLogTap, parseLogVitest } from './log-parsers.ts';
import { tsx, typescript } from './typescript.ts';

export const javascriptFolder = {
  name: 'javascript',
  languages: [javascript, typescript, tsx],
  evaluation: {
    harnessKey: 'js',
    logParsers: {
      jest: parseLogJest,
      jest_json: parseLogJestJson,
      vitest: parseLogVitest,
      karma: parseLogKarma,
      tap: parseLogTap,
      immutable_js: parseLogImmutableJs,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
