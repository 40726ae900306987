/**
 * The same evaluation logs graded under several harness releases (issue 51): per instance, the verdict under each,
 * and where a release disagrees with the one that gave the run its verdicts, the rule that decided it
 * (verdict-cause.ts). `locfix evaluate --compare-harness 4.1` runs it after the evaluation; on a finished run the
 * evaluation reuses its reports, so the same command regrades a folder. Each log is graded as the evaluation wrote
 * it: its test output, and the runner's own report when one was kept beside it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { type HarnessVersion, LOG_TEST_OUTPUT } from '../src/harness/constants.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { evaluationDir, instanceLogDir, RUNNER_REPORT } from './evaluate.ts';
import { evalReport } from './grading.ts';
import type { GradingRules } from './grading-rules.ts';
import { logParserFor } from './log-parsers/index.ts';
import { parseJunitXml } from './structured-report.ts';
import { verdictCause } from './verdict-cause.ts';

/** One instance under every release compared. */
export interface ReleaseVerdicts {
  instanceId: string;
  /** release → resolved */
  verdicts: Record<string, boolean>;
  /** release → why its log was not graded, where it was not */
  notGraded?: Record<string, string>;
  /** release → the rule that made its verdict differ from the first release's */
  causes?: Record<string, string>;
}

export interface HarnessDiff {
  /** the release that gave the run its verdicts, then the ones compared with it */
  releases: HarnessVersion[];
  unforgeable: boolean;
  /** instances with a test log */
  graded: number;
  /** resolved count under each release */
  resolved: Record<string, number>;
  /** the instances where a release disagrees with the first */
  disagreements: ReleaseVerdicts[];
}

/** The file the comparison is written to, in the run's evaluation folder. */
export const HARNESS_DIFF_FILE = 'harness_diff.json';

/** One instance's log graded under each release; undefined when the evaluation wrote no test log for it. */
async function gradeUnder(runsDir: string, runId: string, instance: SweInstance, rules: GradingRules[]): Promise<ReleaseVerdicts | undefined> {
  const dir = instanceLogDir(runsDir, runId, instance.instance_id);
  const log = await fs.readFile(path.join(dir, LOG_TEST_OUTPUT), 'utf8').catch(() => undefined);
  if (log === undefined) return undefined;
  const xml = await fs.readFile(path.join(dir, RUNNER_REPORT), 'utf8').catch(() => undefined);
  const runnerReport = xml === undefined ? undefined : (parseJunitXml(xml) ?? 'missing');
  const parser = logParserFor(makeInstanceSpec(instance).spec, instance.instance_id);
  const id = instance.instance_id;
  const graded = rules.map((r) => evalReport(id, 'patch', log, instance, parser, r, r.unforgeable ? runnerReport : undefined)[id]!);
  const row: ReleaseVerdicts = { instanceId: id, verdicts: Object.fromEntries(rules.map((r, i) => [r.harness, graded[i]!.resolved])) };
  rules.forEach((r, i) => {
    const entry = graded[i]!;
    if (entry.not_graded_reason) row.notGraded = { ...row.notGraded, [r.harness]: entry.not_graded_reason };
    if (i === 0 || entry.resolved === graded[0]!.resolved) return;
    const cause = verdictCause(log, parser, { base: graded[0]!.tests_status, other: entry.tests_status }, { base: rules[0]!, other: r });
    row.causes = { ...row.causes, [r.harness]: cause };
  });
  return row;
}

/** Grades every instance's log under `releases` (the first gives the verdicts), writes harness_diff.json, returns it. */
export async function compareReleases(options: {
  runsDir: string;
  runId: string;
  dataset: readonly SweInstance[];
  releases: readonly HarnessVersion[];
  unforgeable: boolean;
}): Promise<HarnessDiff> {
  const releases = [...new Set(options.releases)];
  const rules: GradingRules[] = releases.map((harness) => ({ harness, unforgeable: options.unforgeable }));
  const rows: ReleaseVerdicts[] = [];
  for (const instance of options.dataset) {
    const row = await gradeUnder(options.runsDir, options.runId, instance, rules);
    if (row) rows.push(row);
  }
  const diff: HarnessDiff = {
    releases,
    unforgeable: options.unforgeable,
    graded: rows.length,
    resolved: Object.fromEntries(releases.map((r) => [r, rows.filter((row) => row.verdicts[r]).length])),
    disagreements: rows.filter((row) => row.causes),
  };
  await writeJsonAtomic(path.join(evaluationDir(options.runsDir, options.runId), HARNESS_DIFF_FILE), diff);
  return diff;
}

/** The comparison in lines a person reads: the counts, then each disagreement with its rule. */
export function describeHarnessDiff(diff: HarnessDiff): string[] {
  const [first, ...others] = diff.releases;
  const lines = [
    `Graded again under ${diff.releases.join(', ')}${diff.unforgeable ? " with locfix's rule" : ''}: ${diff.graded} log${diff.graded === 1 ? '' : 's'}`,
  ];
  for (const release of diff.releases) lines.push(`  resolved under ${release}: ${diff.resolved[release]}`);
  lines.push(`  instances where ${others.join(', ')} disagree${others.length === 1 ? 's' : ''} with ${first}: ${diff.disagreements.length}`);
  for (const row of diff.disagreements) {
    for (const [release, cause] of Object.entries(row.causes ?? {})) {
      const verdict = (r: string) => (row.verdicts[r] ? 'resolved' : 'unresolved');
      lines.push(`    ${row.instanceId}: ${verdict(first!)} under ${first}, ${verdict(release)} under ${release} (${cause})`);
    }
  }
  return lines;
}
