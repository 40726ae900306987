/**
 * The report of one or more analysed runs, as data (with the comparison when there are several) and as the three
 * files `locfix run`, `merge` and `report` write: report.json, report.md and a self-contained report.html.
 */
import path from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../src/util/fsx.ts';
import { compareRuns } from './compare.ts';
import { renderHtml } from './report-html.ts';
import { renderMarkdown, type Report } from './report.ts';
import type { RunAnalysis } from './run-analysis.ts';

export function buildReport(analyses: readonly RunAnalysis[], arms?: Record<string, string[]>): Report {
  return {
    generatedAt: new Date().toISOString(),
    runs: analyses.map((a) => a.report),
    ...(analyses.length > 1
      ? {
          comparison: compareRuns(
            analyses.map((a) => a.outcome),
            arms ? { arms } : {},
          ),
        }
      : {}),
  };
}

/** Writes report.json, report.md and report.html into `outDir`; returns the report. */
export async function writeReports(analyses: readonly RunAnalysis[], outDir: string, arms?: Record<string, string[]>): Promise<Report> {
  const report = buildReport(analyses, arms);
  await writeJsonAtomic(path.join(outDir, 'report.json'), report);
  await writeFileAtomic(path.join(outDir, 'report.md'), renderMarkdown(report));
  await writeFileAtomic(path.join(outDir, 'report.html'), renderHtml(report));
  return report;
}
