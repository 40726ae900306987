/**
 * `locfix analyze RUN`, `locfix compare RUN…` and `locfix report RUN… [--out DIR]`.
 *
 * analyze: per-stage failure analysis of one run (runs/<id>/analysis.json, and a table on stdout).
 * compare: resolved overlaps, unique fixes, Wilcoxon, metric CIs, McNemar + Holm across runs/localizers
 *          (the first run's localizer is the reference); JSON with --json.
 * report:  report.json, report.md and a self-contained report.html for one or more runs.
 */
import { accountLine, headline } from '../../results/instance-account.ts';
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import path from 'node:path';
import { analyzeRun, writeRunAnalysis, type RunAnalysis } from '../../results/run-analysis.ts';
import { renderMarkdown } from '../../results/report.ts';
import { ladderSection } from '../../results/ladder-report.ts';
import { buildReport, writeReports } from '../../results/report-files.ts';
import { FAILURE_CATEGORIES, NOT_JUDGED } from '../../results/failure-analysis.ts';

/** `--arm NAME=RUN,RUN` (repeatable): runs the user groups into one arm, by run id (the folder's name). */
export function parseArmFlags(values: readonly string[] | undefined): Record<string, string[]> | undefined {
  if (!values?.length) return undefined;
  const arms: Record<string, string[]> = {};
  for (const value of values) {
    const m = /^([^=]+)=(.+)$/.exec(value);
    if (!m) throw new Error(`--arm expects NAME=RUN[,RUN…] (run ids, the folders' names), got "${value}"`);
    arms[m[1].trim()] = m[2]
      .split(',')
      .map((r) => path.basename(r.trim()))
      .filter(Boolean);
  }
  return arms;
}

function printAnalysis(a: RunAnalysis): void {
  const s = a.report.failures;
  const lines = [
    `${a.runId} (${a.localizer}${a.upperBound ? ', upper bound' : ''}): ${s.total} instances, ${headline(s)}${s.total - s.judged ? ` (${s.total - s.judged} not judged count as not resolved until rerun)` : ''}; category shares are over the ${s.judged} judged`,
    `  ${accountLine(s)}`,
  ];
  for (const c of FAILURE_CATEGORIES) {
    const e = s.categories[c];
    // no rate over nothing: with no judged instance (or no unresolved one) the share is not a number
    const share = s.judged > 0 ? `${(100 * e.share).toFixed(1).padStart(5)}%` : '     —';
    const ofUnresolved = e.shareOfUnresolved !== undefined && s.unresolved > 0 ? `  (${(100 * e.shareOfUnresolved).toFixed(1)}% of unresolved)` : '';
    lines.push(
      NOT_JUDGED.has(c)
        ? `  ${c.padEnd(18)} ${String(e.count).padStart(4)}  (not judged: in no rate)`
        : `  ${c.padEnd(18)} ${String(e.count).padStart(4)}  ${share}${ofUnresolved}`,
    );
  }
  const reasons = Object.entries(s.emptyReasons);
  if (reasons.length) lines.push(`  empty-patch reasons: ${reasons.map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  for (const [why, n] of Object.entries(s.notJudgedReasons)) lines.push(`  ${n} ${why}`);
  const evaluationCauses = Object.entries(s.evaluationErrorsByCause ?? {});
  if (evaluationCauses.length) lines.push(`  evaluation errors by cause: ${evaluationCauses.map(([k, v]) => `${k} ${v}`).join('; ')}`);
  const infra = Object.entries(s.infraFailures ?? {});
  if (infra.length) {
    lines.push(
      `  evaluation logs showing an infrastructure fault (harness 5.0's tiers; advisory, categories unchanged): ${infra.map(([k, v]) => `${k} ${v}`).join('; ')}`,
    );
  }
  if (s.knownGoldFailures?.length) {
    lines.push(
      `  ${s.knownGoldFailures.length} unresolved that the dataset's own gold patch does not resolve either (the dataset's, not the method's): ${s.knownGoldFailures.join(', ')}`,
    );
  }
  if (a.report.ladder) lines.push(...ladderSection(a.runId, a.report.ladder).map((l) => (l ? `  ${l.replace(/^## /, '')}` : l)));
  for (const w of a.warnings) lines.push(`  warning: ${w}`);
  process.stdout.write(lines.join('\n') + '\n');
}

export function register(program: Command): void {
  const analyzeCommand = program
    .command('analyze')
    .description('per-stage failure analysis of a run (writes runs/<id>/analysis.json)')
    .argument('<run>', 'run directory');
  useFlags(analyzeCommand, ['json', 'mirrors'], {
    json: { description: 'print the analysis as JSON' },
    mirrors: { description: "bare mirrors (owner+name/repo) to read base files from, when the run's own record names none or a moved folder" },
  }).action(async (run: string, flags: { json?: boolean; mirrors?: string }) => {
    const a = await writeRunAnalysis(run, flags.mirrors ? { mirrorsDir: flags.mirrors } : {});
    if (flags.json) process.stdout.write(JSON.stringify({ summary: a.report.failures, instances: a.instances }, null, 2) + '\n');
    else printAnalysis(a);
  });

  const compareCommand = program
    .command('compare')
    .description('compare runs and localizers: resolved overlaps, unique fixes, Wilcoxon, bootstrap CIs, McNemar + Holm')
    .argument('<runs...>', "run folders of any kind (locfix run, stage commands, import-run, merge); the first run's arm is the reference");
  useFlags(compareCommand, ['arm', 'json'], {
    arm: { description: 'group runs into a named arm, e.g. --arm full=run-1,run-2 (repeatable); by default runs that differ by seed alone are one arm' },
    json: { description: 'print the comparison as JSON' },
  }).action(async (runs: string[], flags: { json?: boolean; arm: string[] }) => {
    const arms = parseArmFlags(flags.arm);
    const analyses = await Promise.all(runs.map((r) => analyzeRun(r)));
    const report = buildReport(analyses, arms);
    if (flags.json) {
      process.stdout.write(JSON.stringify(report.comparison ?? { runs: report.runs }, null, 2) + '\n');
      return;
    }
    process.stdout.write(renderMarkdown(report) + '\n');
  });

  const reportCommand = program
    .command('report')
    .description('write report.json, report.md and a self-contained report.html for one or more runs')
    .argument('<runs...>', 'run folders of any kind (locfix run, stage commands, import-run, merge)');
  useFlags(reportCommand, ['out', 'arm'], {
    out: { description: 'output folder (default for one run: <run>/report; several runs need --out)' },
    arm: { description: 'group runs into a named arm (repeatable), as for compare' },
  }).action(async (runs: string[], flags: { out?: string; arm: string[] }) => {
    // the first run's report/ is its own single-run report: a comparison written there would replace it
    if (runs.length > 1 && !flags.out) {
      throw new Error(`a report of ${runs.length} runs needs --out DIR (${path.join(runs[0]!, 'report')} is the first run's own report)`);
    }
    const arms = parseArmFlags(flags.arm);
    const analyses = await Promise.all(runs.map((r) => analyzeRun(r)));
    const out = flags.out ?? path.join(runs[0], 'report');
    await writeReports(analyses, out, arms);
    process.stderr.write(`report: ${path.join(out, 'report.html')} (also report.md, report.json)\n`);
  });
}
