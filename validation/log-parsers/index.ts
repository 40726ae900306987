/**
 * The test-log parsers by the name a spec gives (`log_parser` in a language folder's specs.json), as grading looks
 * them up. Each language folder (src/languages/<language>/log-parsers.ts) holds its runners' parsers, ported from
 * the SWE-bench harness' parsers for that language, quirks included — the FAIL_TO_PASS / PASS_TO_PASS names of the
 * datasets were produced by them; the registry (src/languages/index.ts) merges them.
 */
import { JUNIT_REPORT_PARSERS, LOG_PARSERS } from '../../src/languages/index.ts';
import type { LogParser, ParseContext, StatusMap } from '../../src/languages/log-parser.ts';

export type { LogParser, ParseContext, StatusConflict, StatusMap } from '../../src/languages/log-parser.ts';
export { JUNIT_REPORT_PARSERS, LOG_PARSERS };

/** The test-log formats a spec may name. */
export const LOG_PARSER_NAMES: readonly string[] = Object.keys(LOG_PARSERS);

/** A parser by the harness' registry name (`parse_log_pytest_v2`) or locfix's (`pytest_v2`); undefined if unknown. */
export function logParserNamed(name: string): LogParser | undefined {
  const key = name.startsWith('parse_log_') ? name.slice('parse_log_'.length) : name;
  return Object.hasOwn(LOG_PARSERS, key) ? LOG_PARSERS[key] : undefined;
}

/** A spec's parser bound to its instance; the rest of the context (harness release, failure-wins) per call. */
export type BoundLogParser = (log: string, context?: Omit<ParseContext, 'instanceId'>) => StatusMap;

/**
 * The parser a spec names, bound to the instance (a few parsers choose their form by instance); an unknown name
 * is an error that lists the known ones.
 */
export function logParserFor(spec: { repo: string; version: string; logParser: string }, instanceId?: string): BoundLogParser {
  const parser = Object.hasOwn(LOG_PARSERS, spec.logParser) ? LOG_PARSERS[spec.logParser] : undefined;
  if (!parser) throw new Error(`the spec of ${spec.repo}@${spec.version} names log parser "${spec.logParser}"; known: ${LOG_PARSER_NAMES.join(', ')}`);
  return (log, context = {}) => parser(log, instanceId === undefined ? context : { ...context, instanceId });
}
