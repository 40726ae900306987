/** Java: Maven, Ant and Gradle runners. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { java } from './java.ts';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from './log-parsers.ts';

export const javaFolder = {
  name: 'java',
  languages: [java],
  evaluation: {
    harnessKey: 'java',
    logParsers: {
      maven: parseLogMaven,
      ant: parseLogAnt,
      gradle_custom: parseLogGradleCustom,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
