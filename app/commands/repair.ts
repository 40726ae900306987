/**
 * `locfix repair` and `locfix select` as standalone stages over a run directory:
 *
 *   locfix repair --dataset F --llm SPEC --out runs/ID    reads runs/ID/localize-lines/, writes runs/ID/repair/
 *   locfix select --dataset F --out runs/ID               reads repair/ (+ validate/ when present), writes
 *                                                          select/ and runs/ID/predictions.jsonl
 */
import { useFlags } from './flag-table.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import type { Command } from 'commander';
import path from 'node:path';
import { createProgress } from '../../src/run/progress.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { recordStageRun } from '../../src/run/manifest.ts';
import { groupByRepo } from '../../src/run/repo-release.ts';
import { STAGE, runStageOver } from '../../src/run/stage.ts';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import { repairStage, runSelectStage } from '../../repair/stage.ts';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { addSelectionOptions, addServiceOptions, servicesFrom, type ServiceFlags } from './common.ts';
import { loadSelection, selectionOfFlags, type SelectionFlags } from '../engine/selection.ts';

interface RepairFlags extends SelectionFlags, ServiceFlags {
  out: string;
  samplesPerSet: number;
  temperature: number;
  maxTokens: number;
  concurrency: number;
  retryErrors?: RetryErrors;
}

export function register(program: Command): void {
  const repair = program.command('repair').description('sample SEARCH/REPLACE patches for each edit-location set (1 greedy + 9 at T=0.8 per set by default)');
  addSelectionOptions(repair);
  addServiceOptions(repair);
  useFlags(repair, ['out', 'samplesPerSet', 'temperature', 'maxTokens', 'concurrency', 'retryErrors'], {
    out: { required: true, description: 'run directory holding localize-lines/ artifacts' },
    samplesPerSet: { default: 10 },
    temperature: { default: 0.8 },
    maxTokens: { default: 1024 },
    concurrency: { description: 'instances repaired at once', default: 4 },
  }).action(async (flags: RepairFlags) => {
    const instances = await loadSelection(selectionOfFlags(flags), 'repair');
    const services = servicesFrom(flags);
    const model = services.requireLlm('repair');
    const layout = new RunLayout(path.resolve(flags.out));
    const repairConfig = {
      samplesPerSet: flags.samplesPerSet,
      temperature: flags.temperature,
      maxTokens: flags.maxTokens,
    };
    await recordStageRun(layout, {
      kind: 'stage',
      stage: STAGE.repair,
      models: { llm: model.id },
      dataset: flags.dataset,
      instances,
      settings: { ...repairConfig, llm: model.id },
    });
    const analyzer = await PythonAnalyzer.create();
    const progress = createProgress({ concurrency: flags.concurrency });
    progress.begin(STAGE.repair, instances.length);
    try {
      const stage = repairStage({
        model,
        analyzer,
        snapshot: (instance) => services.snapshot(instance.repo, instance.base_commit),
        config: repairConfig,
      });
      const artifacts = await runStageOver(stage, groupByRepo(instances), {
        layout,
        concurrency: flags.concurrency,
        retryErrors: flags.retryErrors,
        onEvent: (e) => progress.event(e),
      });
      progress.end();
      const counts = progress.counts()[STAGE.repair];
      process.stderr.write(
        `repair: ${counts.done - counts.failed} done, ${counts.skipped} reused, ${counts.failed} failed -> ${layout.stageDir(STAGE.repair)}\n`,
      );
      if (artifacts.every((a) => a.status !== 'ok')) process.exitCode = 1;
    } finally {
      analyzer.dispose();
      await services.close();
    }
  });

  const select = program
    .command('select')
    .description('majority vote over normalized patches, filtered by validation results when present; writes predictions.jsonl');
  addSelectionOptions(select);
  useFlags(select, ['cacheDir', 'modelName', 'out'], {
    cacheDir: { description: 'dataset cache', default: defaultCacheDir() },
    out: { required: true, description: 'run directory holding repair/ artifacts' },
  }).action(async (flags: SelectionFlags & { cacheDir: string; out: string; modelName?: string }) => {
    const instances = await loadSelection(selectionOfFlags(flags), 'select');
    const layout = new RunLayout(path.resolve(flags.out));
    await recordStageRun(layout, {
      kind: 'stage',
      stage: STAGE.select,
      models: {},
      dataset: flags.dataset,
      instances,
      settings: { modelName: flags.modelName ?? null },
    });
    const { rows, missing } = await runSelectStage(layout.root, { instances, modelName: flags.modelName });
    const empty = rows.filter((r) => !r.model_patch.trim()).length;
    process.stderr.write(
      `select: ${rows.length} predictions (${empty} empty, ${missing.length} without a repair record) -> ${layout.file('predictions.jsonl')}\n`,
    );
  });
}
