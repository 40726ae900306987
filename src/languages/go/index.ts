/** Go: `go test -v`. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { go } from './go.ts';
import { parseLogGotest } from './log-parsers.ts';

export const goFolder = {
  name: 'go',
  languages: [go],
  evaluation: {
    harnessKey: 'go',
    logParsers: {
      gotest: parseLogGotest,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
