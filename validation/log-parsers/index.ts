/**
 * The test-log parsers by the name a spec gives (`log_parser` in docker/specs/*.json): one module per language
 * beside this file, each ported from the SWE-bench harness' parsers for that language, quirks included — the
 * FAIL_TO_PASS / PASS_TO_PASS names of the datasets were produced by them. Adding a language's parser is its
 * module plus its lines here.
 */
import { parseLogDoctest, parseLogGoogletest, parseLogJq, parseLogMicropythonTest, parseLogRedis } from './c.ts';
import { parseLogGotest } from './go.ts';
import { parseLogAnt, parseLogGradleCustom, parseLogMaven } from './java.ts';
import { parseLogImmutableJs, parseLogJest, parseLogJestJson, parseLogKarma, parseLogTap, parseLogVitest } from './javascript.ts';
import { parseLogPhpunit } from './php.ts';
import { parseLogDjango, parseLogMatplotlib, parseLogPytest, parseLogPytestOptions, parseLogPytestV2, parseLogSeaborn, parseLogSympy } from './python.ts';
import { parseLogCucumber, parseLogJekyll, parseLogMinitest, parseLogRspecTransformedJson, parseLogRubyUnit } from './ruby.ts';
import { parseLogCargo } from './rust.ts';
import type { LogParser, ParseContext, StatusMap } from './types.ts';

export type { LogParser, ParseContext, StatusConflict, StatusMap } from './types.ts';

export const LOG_PARSERS = {
  // Python
  pytest: parseLogPytest,
  pytest_options: parseLogPytestOptions,
  pytest_v2: parseLogPytestV2,
  django: parseLogDjango,
  sympy: parseLogSympy,
  matplotlib: parseLogMatplotlib,
  seaborn: parseLogSeaborn,
  // 5.0's per-repository names (log_parsers/python.py aliases), as 5.0 datasets' `log_parser` field gives them
  astroid: parseLogPytest,
  flask: parseLogPytest,
  marshmallow: parseLogPytest,
  pvlib: parseLogPytest,
  pyvista: parseLogPytest,
  sqlfluff: parseLogPytest,
  xarray: parseLogPytest,
  pydicom: parseLogPytestOptions,
  requests: parseLogPytestOptions,
  pylint: parseLogPytestOptions,
  astropy: parseLogPytestV2,
  scikit: parseLogPytestV2,
  sphinx: parseLogPytestV2,
  // C and C++
  redis: parseLogRedis,
  jq: parseLogJq,
  doctest: parseLogDoctest,
  micropython_test: parseLogMicropythonTest,
  googletest: parseLogGoogletest,
  // Go
  gotest: parseLogGotest,
  // Java
  maven: parseLogMaven,
  ant: parseLogAnt,
  gradle_custom: parseLogGradleCustom,
  // JavaScript / TypeScript
  jest: parseLogJest,
  jest_json: parseLogJestJson,
  vitest: parseLogVitest,
  karma: parseLogKarma,
  tap: parseLogTap,
  immutable_js: parseLogImmutableJs,
  // PHP
  phpunit: parseLogPhpunit,
  // Ruby
  minitest: parseLogMinitest,
  cucumber: parseLogCucumber,
  ruby_unit: parseLogRubyUnit,
  rspec_transformed_json: parseLogRspecTransformedJson,
  jekyll: parseLogJekyll,
  // Rust
  cargo: parseLogCargo,
} satisfies Record<string, LogParser>;

export type LogParserName = keyof typeof LOG_PARSERS;

/** The parsers of pytest's output: their runner can write a JUnit XML report (structured-report.ts). */
export const PYTEST_PARSERS: ReadonlySet<string> = new Set([
  'pytest',
  'pytest_options',
  'pytest_v2',
  'matplotlib',
  'seaborn',
  'astroid',
  'flask',
  'marshmallow',
  'pvlib',
  'pyvista',
  'sqlfluff',
  'xarray',
  'pydicom',
  'requests',
  'pylint',
  'astropy',
  'scikit',
  'sphinx',
]);
/** The test-log formats a spec may name. */
export const LOG_PARSER_NAMES = Object.keys(LOG_PARSERS) as LogParserName[];

/** A parser by the harness' registry name (`parse_log_pytest_v2`) or locfix's (`pytest_v2`); undefined if unknown. */
export function logParserNamed(name: string): LogParser | undefined {
  const key = name.startsWith('parse_log_') ? name.slice('parse_log_'.length) : name;
  return Object.hasOwn(LOG_PARSERS, key) ? (LOG_PARSERS as Record<string, LogParser>)[key] : undefined;
}

/** A spec's parser bound to its instance; the rest of the context (harness release, failure-wins) per call. */
export type BoundLogParser = (log: string, context?: Omit<ParseContext, 'instanceId'>) => StatusMap;

/**
 * The parser a spec names, bound to the instance (a few parsers choose their form by instance); an unknown name
 * is an error that lists the known ones.
 */
export function logParserFor(spec: { repo: string; version: string; logParser: string }, instanceId?: string): BoundLogParser {
  const parser = (LOG_PARSERS as Record<string, LogParser | undefined>)[spec.logParser];
  if (!parser) throw new Error(`the spec of ${spec.repo}@${spec.version} names log parser "${spec.logParser}"; known: ${LOG_PARSER_NAMES.join(', ')}`);
  return (log, context = {}) => parser(log, instanceId === undefined ? context : { ...context, instanceId });
}
