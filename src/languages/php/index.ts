/** PHP: PHPUnit. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { parseLogPhpunit } from './log-parsers.ts';
import { php } from './php.ts';

export const phpFolder = {
  name: 'php',
  languages: [php],
  evaluation: {
    harnessKey: 'php',
    logParsers: {
      phpunit: parseLogPhpunit,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
