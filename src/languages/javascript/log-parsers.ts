/**
 * JavaScript and TypeScript test logs of the Multilingual repositories (swebench/harness/log_parsers/javascript.py
 * at SWE-bench b8d5332): Jest `--verbose` (`✓ name (3 ms)`), Jest `--json` through the harness' jq transform
 * (`[PASSED] name`), Vitest's verbose reporter, Karma's nested suites (preact), TAP, and immutable-js, whose
 * instances use one Jest form or the other. The harness' parsers for SWE-bench Multimodal's repositories
 * (calypso, Chart.js, marked, p5.js, react-pdf) are not ported.
 */
import { TestStatus } from '../log-parser.ts';
import { parsingOf } from '../harness-releases.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogJest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$/, ([symbol, rawName]) => {
    // 5.0 strips the name, so that "name  (5 ms)" and "name" are one test
    const name = parsingOf(context.harness).trimmedJestNames ? rawName.trim() : rawName;
    map[name] = symbol === '✓' ? TestStatus.PASSED : symbol === '✕' ? TestStatus.FAILED : TestStatus.SKIPPED;
  });
  return map;
}

export function parseLogJestJson(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\[(PASSED|FAILED)\]\s(.+)$/, ([status, name]) => {
    map[name] = status === 'PASSED' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

export function parseLogVitest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$/, ([symbol, name]) => {
    map[name] = symbol === '✓' ? TestStatus.PASSED : symbol === '×' ? TestStatus.FAILED : TestStatus.SKIPPED;
  });
  return map;
}

/**
 * Karma's progress: after "Starting browser", an indented line without a mark opens a suite (deeper) or closes
 * one (shallower); a `✔`/`✖` line is a test named by its suites, `Suite > Inner > test`. It ends at "SUMMARY:".
 */
export function parseLogKarma(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  let indent = -1;
  const suites: string[] = [];
  let started = false;
  for (const line of log.split('\n')) {
    if (line.startsWith('SUMMARY:')) return map;
    if (line.includes('Starting browser')) {
      started = true;
      continue;
    }
    if (!started) continue;
    const m = /^(\s*)?([✔✖])?\s(.*)$/.exec(line);
    if (!m) continue;
    const [, space, status, name] = m;
    if (space && !status) {
      if (space.length > indent) {
        indent = space.length;
        suites.push(name);
      } else if (space.length < indent) {
        indent = space.length;
        suites.pop();
        continue;
      }
    }
    if (status === '✔' || status === '✖') map[[...suites, name].join(' > ')] = status === '✔' ? TestStatus.PASSED : TestStatus.FAILED;
  }
  return map;
}

export function parseLogTap(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^(ok|not ok) (\d+) (.+)$/, ([status, , name]) => {
    map[name] = status === 'ok' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

/** immutable-js's instances use Jest's verbose or JSON form by pull request; another is an error, as in the harness. */
export function parseLogImmutableJs(log: string, context: ParseContext = {}): StatusMap {
  const pr = context.instanceId?.split('-').at(-1);
  if (pr === '2006') return parseLogJest(log, context);
  if (pr === '2005') return parseLogJestJson(log, context);
  throw new Error(`immutable_js log parser: unknown instance id ${JSON.stringify(context.instanceId)}`);
}
