/**
 * Agentless' hierarchy after any file localizer, and the Agentless interchange:
 *   locfix localize-functions --out RUN …   related elements per instance (runs/RUN/localize-functions/)
 *   locfix localize-lines --out RUN …       edit-location samples per instance (runs/RUN/localize-lines/)
 *   locfix agentless-export RUN --to FILE   an Agentless loc_outputs.jsonl from a run
 *   locfix agentless-import FILE --out RUN  locfix artifacts from an Agentless loc_outputs.jsonl
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import path from 'node:path';
import { createProgress } from '../../src/run/progress.ts';
import { exportRun, importRecord, readLocOutputs, writeLocOutputs } from '../../localizer/interchange/loc-outputs.ts';
import { functionLocalizationStage, lineLocalizationStage } from '../../localizer/hierarchy/stage.ts';
import { isModelFunctionLevel, parseFunctionLevel } from '../../localizer/hierarchy/options.ts';
import { functionRankingStage } from '../../localizer/function-ranking/stage.ts';
import { groupByRepo } from '../../src/run/repo-release.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { Handoff } from '../../src/artifacts/localization.ts';
import { recordStageRun } from '../../src/run/manifest.ts';
import { STAGE, runStageOver } from '../../src/run/stage.ts';
import { addSelectionOptions, addServiceOptions, servicesFrom, type ServiceFlags } from './common.ts';
import { loadSelection, selectionOfFlags, type SelectionFlags } from '../engine/selection.ts';

interface HierarchyFlags extends SelectionFlags, ServiceFlags {
  out: string;
  fileStage: string;
  topFiles?: number;
  /** checked by the flag's table (run-flags.ts) */
  handoff?: Handoff;
  /** parsed by the flag's table (a JSON object) */
  stageOptions?: Record<string, unknown>;
  concurrency: number;
  retryErrors?: RetryErrors;
}

/** The stage of a level: the function level's options name the model's or the model-free one (`"localizer": "retrieval"`). */
function hierarchyStage(
  level: 'functions' | 'lines',
  services: ReturnType<typeof servicesFrom>,
  merged: Record<string, unknown> & { topFiles?: number; handoff?: Handoff },
) {
  if (level === 'lines') return { stage: lineLocalizationStage(services, merged), usesModel: true };
  const { topFiles, handoff, ...stageOptions } = merged;
  const parsed = parseFunctionLevel(stageOptions);
  const where = { ...(topFiles ? { topFiles } : {}), ...(handoff ? { handoff } : {}) };
  return isModelFunctionLevel(parsed)
    ? { stage: functionLocalizationStage(services, { ...parsed, ...where }), usesModel: true }
    : { stage: functionRankingStage(services, { ...parsed, ...where }), usesModel: false };
}

async function runHierarchy(level: 'functions' | 'lines', flags: HierarchyFlags): Promise<{ ok: number; total: number }> {
  const options = flags.stageOptions ?? {};
  const topFiles = flags.topFiles;
  const instances = await loadSelection(selectionOfFlags(flags), `localize-${level}`);
  const services = servicesFrom(flags);
  const concurrency = flags.concurrency;
  const merged = { ...options, ...(topFiles ? { topFiles } : {}), ...(flags.handoff ? { handoff: flags.handoff } : {}) };
  const { stage, usesModel } = hierarchyStage(level, services, merged);
  // every instance would fail alike without a model: say so once instead of recording it per instance
  if (usesModel) services.requireLlm(`localize-${level}`);
  const layout = new RunLayout(path.resolve(flags.out));
  await recordStageRun(layout, {
    kind: 'stage',
    stage: stage.name,
    models: { llm: services.llm?.id },
    dataset: flags.dataset,
    instances,
    settings: { ...merged, fileStage: flags.fileStage, llm: services.llm?.id ?? null },
  });
  const progress = createProgress({ concurrency });
  progress.begin(stage.name, instances.length);
  try {
    const artifacts = await runStageOver<unknown>(stage, groupByRepo(instances), {
      layout,
      sources: { [STAGE.files]: flags.fileStage },
      concurrency,
      retryErrors: flags.retryErrors,
      onEvent: progress.event.bind(progress),
    });
    return { ok: artifacts.filter((a) => a.status === 'ok').length, total: artifacts.length };
  } finally {
    progress.end();
    await services.close();
  }
}

function hierarchyCommand(program: Command, level: 'functions' | 'lines', description: string): void {
  const command = program.command(`localize-${level}`).description(description);
  addSelectionOptions(command);
  addServiceOptions(command);
  useFlags(command, ['out', 'fileStage', 'topFiles', 'handoff', 'stageOptions', 'concurrency', 'retryErrors'], {
    out: { required: true, description: 'run directory holding the localize-files artifacts' },
    fileStage: { default: STAGE.files },
    topFiles: { description: 'files taken from the ranking (default 3)' },
    handoff: { default: 'top', description: 'top: the first --top-files; soft: those, and places in other files are followed; hard: only the predicted set' },
    stageOptions: {
      description: `the stage's options as JSON, e.g. ${level === 'functions' ? '{"maxAttempts":5,"temperature":0}, or {"localizer":"retrieval"} for the model-free ranking' : '{"samples":4,"temperature":0.8,"contextWindow":10}'}`,
    },
    concurrency: { description: 'instances at once', default: 1 },
  }).action(async (flags: HierarchyFlags) => {
    const { ok, total } = await runHierarchy(level, flags);
    process.stderr.write(
      `localize-${level}: ${ok} of ${total} instances ok -> ${path.join(flags.out, level === 'functions' ? STAGE.functions : STAGE.lines)}\n`,
    );
    if (ok === 0) process.exitCode = 1;
  });
}

export function register(program: Command): void {
  hierarchyCommand(program, 'functions', 'function-level localization (Agentless related elements) in the top files of any file localizer');
  hierarchyCommand(program, 'lines', 'line-level localization (Agentless edit-location samples) from the related elements');

  const exportCommand = program
    .command('agentless-export')
    .description("write an Agentless loc_outputs.jsonl from a run's localize-files/-functions/-lines artifacts")
    .argument('<run>', 'run directory');
  useFlags(exportCommand, ['to', 'fileStage'], { to: { required: true, description: 'output .jsonl' }, fileStage: { default: STAGE.files } }).action(
    async (run: string, flags: { to: string; fileStage: string }) => {
      const { readdir } = await import('node:fs/promises');
      const dir = path.join(path.resolve(run), flags.fileStage);
      const ids = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
      const records = await exportRun(path.resolve(run), ids, { fileStage: flags.fileStage });
      await writeLocOutputs(path.resolve(flags.to), records);
      process.stderr.write(`agentless-export: ${records.length} records -> ${flags.to}\n`);
    },
  );

  const importCommand = program
    .command('agentless-import')
    .description('turn an Agentless loc_outputs.jsonl into locfix artifacts (file ranking, related elements, edit-location sets)')
    .argument('<file>', 'Agentless loc_outputs.jsonl (or combined_locs.jsonl)');
  addSelectionOptions(importCommand);
  addServiceOptions(importCommand);
  useFlags(importCommand, ['out', 'label'], { out: { required: true, description: 'run directory' }, label: { default: 'agentless-import' } }).action(
    async (file: string, flags: SelectionFlags & ServiceFlags & { out: string; label: string }) => {
      const records = await readLocOutputs(path.resolve(file));
      const instances = new Map((await loadSelection(selectionOfFlags(flags), 'agentless-import')).map((i) => [i.instance_id, i]));
      const services = servicesFrom(flags);
      let imported = 0;
      try {
        for (const record of records) {
          const instance = instances.get(record.instance_id);
          if (!instance) continue;
          const snapshot = await services.snapshot(instance.repo, instance.base_commit);
          const r = await importRecord(path.resolve(flags.out), record, snapshot, { label: flags.label, source: path.basename(file) });
          imported += 1;
          if (r.unresolved) process.stderr.write(`agentless-import: ${r.instanceId}: ${r.unresolved} locations did not resolve\n`);
        }
      } finally {
        await services.close();
      }
      process.stderr.write(`agentless-import: ${imported} of ${records.length} records imported -> ${flags.out}\n`);
      if (imported === 0) process.exitCode = 1;
    },
  );
}
