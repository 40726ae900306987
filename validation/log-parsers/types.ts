/** What a test-log parser is: a log (and the instance it belongs to, for parsers that choose by instance) to test → status. */
import type { TestStatus } from '../../src/harness/constants.ts';

export type StatusMap = Record<string, TestStatus>;
export type LogParser = (log: string, context?: { instanceId?: string }) => StatusMap;

/**
 * Each line of a log, as the harness' `re.match(pattern, line.strip())` sees it: `pattern` anchored at the start,
 * the line stripped. Calls `onMatch` with the groups of every matching line.
 */
export function eachMatch(log: string, pattern: RegExp, onMatch: (groups: string[]) => void): void {
  const anchored = pattern.source.startsWith('^') ? pattern : new RegExp(`^(?:${pattern.source})`, pattern.flags);
  for (const line of log.split('\n')) {
    const m = anchored.exec(line.trim());
    if (m) onMatch(m.slice(1));
  }
}
