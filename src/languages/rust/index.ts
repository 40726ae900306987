/** Rust: `cargo test`. */
import { fileBeside, type LanguageFolder } from '../language-folder.ts';
import { parseLogCargo } from './log-parsers.ts';
import { rust } from './rust.ts';

export const rustFolder = {
  name: 'rust',
  languages: [rust],
  evaluation: {
    harnessKey: 'rs',
    logParsers: {
      cargo: parseLogCargo,
    },
    evalScript: 'common',
    specFile: fileBeside(import.meta.url, 'specs.json'),
  },
} as const satisfies LanguageFolder;
