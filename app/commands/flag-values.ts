/**
 * The value parsers of the flag tables (run-flags.ts, flag-table.ts): each takes the flag's text and the flag's name,
 * and throws an error that names the flag and what it expects. A flag's parser travels with its spelling: every
 * command that takes the flag gets its value parsed (`useFlags`), none parses it again.
 */
import { parseMirrorSpecs } from '../../src/repo/mirrors.ts';

export const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** A parser of a flag whose value is a number: `ok` says which numbers it takes, `what` names them in the error. */
const numberFlag =
  (ok: (n: number) => boolean, what: string) =>
  (text: string, name: string): number => {
    const n = Number(text);
    if (!ok(n)) throw new Error(`${name} expects ${what}, got "${text}"`);
    return n;
  };
export const positiveInt = numberFlag((n) => Number.isInteger(n) && n >= 1, 'a positive integer');
export const nonNegativeInt = numberFlag((n) => Number.isInteger(n) && n >= 0, 'a non-negative integer');
export const positiveNumber = numberFlag((n) => Number.isFinite(n) && n > 0, 'a positive number');
export const nonNegativeNumber = numberFlag((n) => Number.isFinite(n) && n >= 0, 'a non-negative number');
export const portNumber = numberFlag((n) => Number.isInteger(n) && n >= 0 && n <= 65_535, 'a port number (0-65535)');
export const integer = numberFlag(Number.isInteger, 'an integer');

/** `owner/name=path` of --mirror, checked as the repository store checks a mirror's name (src/repo/mirrors.ts). */
export function mirrorSpec(text: string, name: string): [string, string] {
  try {
    return Object.entries(parseMirrorSpecs([text]))[0]!;
  } catch {
    throw new Error(`${name} expects owner/name=PATH, got "${text}"`);
  }
}

/** One of a list of values. */
export const oneOf =
  (allowed: readonly string[]) =>
  (text: string, name: string): string => {
    if (!allowed.includes(text)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`);
    return text;
  };

/** "KEY=VALUE" of a repeatable flag, KEY an "owner/name[@version]". */
export function keyed(text: string, name: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw new Error(`${name} expects owner/name[@version]=VALUE, got ${JSON.stringify(text)}`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** A JSON object given on the command line. */
export function jsonObject(text: string, name: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} expects a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${name} expects a JSON object, got ${text}`);
  return value as Record<string, unknown>;
}

/** `--retry-errors [all]`: the flag alone reruns the failures that are not the method's own; `all` reruns every error. */
export const RETRY_ERRORS_FLAG = '--retry-errors [all]';
export const RETRY_ERRORS_HELP =
  'rerun instance stages whose error was not the method\'s own (infrastructure, configuration, an ambiguous evaluation); with "all", every recorded error';
export function retryErrorsValue(text: string): 'all' {
  if (text !== 'all') throw new Error(`--retry-errors takes no value or "all", got "${text}"`);
  return 'all';
}

/** commander's option name of a spelling ("--run-id <id>" → "runId", "--no-official-images" → "officialImages"). */
export function optionName(flag: string): string {
  return flag
    .split(' ')[0]!
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}
