/** C and C++: one repository index for both, the harness' C parsers (redis, jq, doctest, micropython, googletest). */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { c } from './c.ts';
import { cpp } from './cpp.ts';
import { parseLogDoctest, parseLogGoogletest, parseLogJq, parseLogMicropythonTest, parseLogRedis } from './log-parsers.ts';

export const cFolder = {
  name: 'c',
  languages: [c, cpp],
  evaluation: {
    harnessKey: 'c',
    logParsers: {
      redis: parseLogRedis,
      jq: parseLogJq,
      doctest: parseLogDoctest,
      micropython_test: parseLogMicropythonTest,
      googletest: parseLogGoogletest,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
