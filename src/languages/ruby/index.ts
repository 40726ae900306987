/** Ruby: minitest, RSpec, Cucumber, test-unit. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { parseLogCucumber, parseLogJekyll, parseLogMinitest, parseLogRspecTransformedJson, parseLogRubyUnit } from './log-parsers.ts';
import { ruby } from './ruby.ts';

export const rubyFolder = {
  name: 'ruby',
  languages: [ruby],
  evaluation: {
    harnessKey: 'rb',
    logParsers: {
      minitest: parseLogMinitest,
      cucumber: parseLogCucumber,
      ruby_unit: parseLogRubyUnit,
      rspec_transformed_json: parseLogRspecTransformedJson,
      jekyll: parseLogJekyll,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
