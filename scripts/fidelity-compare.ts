/**
 * bench:fidelity --compare-runs A,B: two `--execute` runs of the same rows (e.g. one on Docker, one with
 * `--image-store` on bubblewrap) compared report by report: every evaluation run id of A that B also has, every
 * instance, its verdict and each FAIL_TO_PASS / PASS_TO_PASS test's status. Prints the agreement and the first
 * differences.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { InstanceReport, TestsStatus } from '../validation/grading.ts';

interface Side {
  resolved: boolean;
  statuses: Map<string, string>;
}

function readSide(file: string, id: string): Side | undefined {
  if (!existsSync(file)) return undefined;
  const report = (JSON.parse(readFileSync(file, 'utf8')) as InstanceReport)[id];
  if (!report) return undefined;
  const statuses = new Map<string, string>();
  const status = report.tests_status as TestsStatus | undefined;
  for (const category of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
    for (const test of status?.[category].success ?? []) statuses.set(`${category} ${test}`, 'success');
    for (const test of status?.[category].failure ?? []) statuses.set(`${category} ${test}`, 'failure');
  }
  return { resolved: Boolean(report.resolved), statuses };
}

export function compareRuns(a: string, b: string): string {
  const lines: string[] = [];
  let reports = 0;
  let verdicts = 0;
  let tests = 0;
  let testsAgree = 0;
  const differences: string[] = [];
  for (const runId of readdirSync(a).filter((d) => existsSync(path.join(b, d, 'evaluation')))) {
    const dir = path.join(a, runId, 'evaluation');
    for (const id of readdirSync(dir).filter((d) => existsSync(path.join(dir, d, 'report.json')))) {
      const left = readSide(path.join(dir, id, 'report.json'), id);
      const right = readSide(path.join(b, runId, 'evaluation', id, 'report.json'), id);
      if (!left) continue;
      reports += 1;
      if (!right) {
        differences.push(`${runId} ${id}: no report in ${b}`);
        continue;
      }
      if (left.resolved === right.resolved) verdicts += 1;
      else differences.push(`${runId} ${id}: resolved ${left.resolved} vs ${right.resolved}`);
      for (const [test, status] of left.statuses) {
        tests += 1;
        if (right.statuses.get(test) === status) testsAgree += 1;
        else differences.push(`${runId} ${id} ${test}: ${status} vs ${right.statuses.get(test) ?? 'absent'}`);
      }
    }
  }
  lines.push(`reports compared ${reports}; verdicts agree ${verdicts}/${reports}; test statuses agree ${testsAgree}/${tests}`);
  for (const d of differences.slice(0, 20)) lines.push(`  ${d}`);
  return lines.join('\n');
}
