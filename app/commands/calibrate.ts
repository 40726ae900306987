/**
 * `locfix calibrate RUN [--escalate-to RUN2]`: how well each confidence signal of a labelled run predicts a
 * right first file (Top-1 precision by confidence bucket, AUROC), and, with an upper tier's run of the same
 * instances, the Top-1 / cost curve of escalating the least confident share from 0 to 100 %.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import path from 'node:path';
import { calibrateRun, formatCalibration } from '../../results/calibration.ts';
import { escalationCurve, formatCurve, type CurvePoint } from '../../results/cascade-replay.ts';
import { loadTierRun } from '../../results/tier-run.ts';
import { escalationCurveChart, reliabilityDiagram } from '../../results/calibration-chart.ts';
import { escapeHtml } from '../../results/report.ts';
import { writeFileAtomic } from '../../src/util/fsx.ts';

interface CalibrateFlags {
  escalateTo?: string;
  signal?: string;
  merge: 'replace' | 'fuse';
  steps: number;
  json?: boolean;
  html?: string;
}

export function register(program: Command): void {
  const command = program
    .command('calibrate')
    .description('confidence signals of a labelled localization run: Top-1 by confidence bucket, AUROC, and the escalation curve to an upper tier')
    .argument('<run>', 'the lower (cheap) tier: a run folder with localize-files or retrieve artifacts');
  useFlags(command, ['escalateTo', 'signal', 'merge', 'steps', 'json', 'html'], {
    merge: { default: 'replace' },
    steps: { default: 20 },
    json: { description: 'print one JSON object' },
    html: { description: 'also write the reliability diagrams and the curve as a self-contained HTML page' },
  }).action(async (run: string, flags: CalibrateFlags) => {
    const steps = flags.steps;
    const lower = await loadTierRun(path.resolve(run));
    const signals = calibrateRun(lower);
    let curve: { signal: string; points: CurvePoint[] } | undefined;
    if (flags.escalateTo) {
      const upper = await loadTierRun(path.resolve(flags.escalateTo));
      const best = [...signals].sort((a, b) => (b.auroc ?? 0) - (a.auroc ?? 0))[0]?.signal;
      const signal = flags.signal ?? best;
      if (!signal) throw new Error(`${run}: no answer carries a confidence signal to escalate on`);
      if (!signals.some((s) => s.signal === signal))
        throw new Error(`--signal: ${run} has no "${signal}" signal; it has ${signals.map((s) => s.signal).join(', ')}`);
      curve = { signal, points: escalationCurve(lower.instances, lower.gold, { run: lower }, { run: upper, merge: flags.merge }, signal, steps) };
    }
    if (flags.html) {
      const body = [
        `<h1>Calibration of ${escapeHtml(run)}</h1>`,
        `<p>${escapeHtml(lower.localizer)}, ${lower.answers.size} answers. Each bar: the Top-1 of one confidence bucket (width: its share of the instances); dashed: the overall Top-1.</p>`,
        ...signals.map(reliabilityDiagram),
        ...(curve
          ? [
              `<h2>Escalation to ${escapeHtml(flags.escalateTo!)}</h2>`,
              escalationCurveChart(
                curve.signal,
                curve.points.map((p) => ({ share: p.escalated, top1: p.summary.top1, llmRuns: p.summary.llmRuns })),
              ),
            ]
          : []),
      ];
      await writeFileAtomic(
        path.resolve(flags.html),
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>locfix calibration</title><style>body{font:14px system-ui,sans-serif;margin:24px}svg{margin:8px}svg text{font:12px system-ui,sans-serif}svg text.title{font-weight:600}</style></head><body>${body.join('\n')}</body></html>\n`,
      );
    }
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ run, signals, ...(curve ? { curve } : {}) })}\n`);
      return;
    }
    process.stdout.write(`${formatCalibration(`${run} (${lower.localizer}, ${lower.answers.size} answers)`, signals)}\n`);
    if (curve) process.stdout.write(`\n${formatCurve(curve.signal, curve.points)}\n`);
  });
}
