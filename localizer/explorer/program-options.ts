/**
 * The options the explorer's command check allows, per program, as GNU's tools spell them (coreutils 9.1 and
 * sed 4.9 of Debian bookworm, the sandbox image): an allowlist, so an option missing here is refused. `refusedLong`
 * lists the program's other long options, because GNU accepts any unambiguous prefix of any of them.
 */
import type { OptionSpec } from './gnu-options.ts';

// GNU sed 4.9: what a printing sed may use
export const SED_OPTIONS: OptionSpec = {
  short: { n: 'none', e: 'required', E: 'none', r: 'none', s: 'none', u: 'none', z: 'none', l: 'required' },
  shortToLong: { n: 'quiet', e: 'expression', E: 'regexp-extended', r: 'regexp-extended', s: 'separate', u: 'unbuffered', z: 'null-data', l: 'line-length' },
  long: {
    quiet: 'none',
    silent: 'none',
    expression: 'required',
    'regexp-extended': 'none',
    separate: 'none',
    unbuffered: 'none',
    'null-data': 'none',
    'zero-terminated': 'none',
    'line-length': 'required',
    posix: 'none',
    debug: 'none',
    sandbox: 'none',
  },
  refusedLong: ['binary', 'file', 'follow-symlinks', 'help', 'in-place', 'version'],
};

// GNU sort 9.1: ordering and keys; no output file, temporary files or helper program
export const SORT_OPTIONS: OptionSpec = {
  short: Object.fromEntries(
    [...'bdfghiMnRrVcCmsuz']
      .map((c) => [c, 'none' as const])
      .concat([
        ['k', 'required'],
        ['t', 'required'],
        ['S', 'required'],
      ]),
  ),
  long: Object.fromEntries(
    [
      'check',
      'debug',
      'dictionary-order',
      'general-numeric-sort',
      'help',
      'human-numeric-sort',
      'ignore-case',
      'ignore-leading-blanks',
      'ignore-nonprinting',
      'merge',
      'month-sort',
      'numeric-sort',
      'random-sort',
      'reverse',
      'stable',
      'unique',
      'version',
      'version-sort',
      'zero-terminated',
    ]
      .map((n) => [n, 'none' as const])
      .concat([
        ['key', 'required'],
        ['field-separator', 'required'],
        ['buffer-size', 'required'],
        ['parallel', 'required'],
        ['sort', 'required'],
      ]),
  ),
  refusedLong: ['batch-size', 'compress-program', 'files0-from', 'output', 'random-source', 'temporary-directory'],
};

// GNU uniq 9.1
export const UNIQ_OPTIONS: OptionSpec = {
  short: { c: 'none', d: 'none', D: 'none', i: 'none', u: 'none', z: 'none', f: 'required', s: 'required', w: 'required' },
  long: {
    'all-repeated': 'optional',
    'check-chars': 'required',
    count: 'none',
    group: 'optional',
    'ignore-case': 'none',
    repeated: 'none',
    'skip-chars': 'required',
    'skip-fields': 'required',
    unique: 'none',
    'zero-terminated': 'none',
    help: 'none',
    version: 'none',
  },
  refusedLong: [],
};
