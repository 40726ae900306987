/**
 * `locfix repair` and `locfix select` as standalone stages over a run directory:
 *
 *   locfix repair --dataset F --llm SPEC --out runs/ID    reads runs/ID/localize-lines/, writes runs/ID/repair/
 *   locfix select --dataset F --out runs/ID               reads repair/ (+ validate/ when present), writes
 *                                                          select/ and runs/ID/predictions.jsonl
 */
import type { Command } from 'commander';
import path from 'node:path';
import { createProgress } from '../run/progress.ts';
import { RunLayout } from '../run/run-layout.ts';
import { readArtifact } from '../run/stage-runner.ts';
import type { LineStageOutput, ValidateStageOutput } from '../orchestrator/stages.ts';
import { runRepairStage, runSelectStage, type RepairInstanceInput } from '../../repair/stage.ts';
import type { CandidateValidation } from '../../repair/types.ts';
import type { SweInstance } from '../dataset/schema.ts';
import { defaultCacheDir } from '../dataset/load.ts';
import { addSelectionOptions, addServiceOptions, loadSelection, positiveInt, servicesFrom, type SelectionFlags, type ServiceFlags } from './common.ts';

interface RepairFlags extends SelectionFlags, ServiceFlags {
  out: string;
  samplesPerSet?: string;
  temperature?: string;
  maxTokens?: string;
  concurrency?: string;
  retryErrors?: boolean;
}

export function register(program: Command): void {
  const repair = program.command('repair').description('sample SEARCH/REPLACE patches for each edit-location set (1 greedy + 9 at T=0.8 per set by default)');
  addSelectionOptions(repair);
  addServiceOptions(repair);
  repair
    .requiredOption('--out <dir>', 'run directory holding localize-lines/ artifacts')
    .option('--samples-per-set <n>', 'samples per location set, the greedy one included', '10')
    .option('--temperature <t>', 'temperature of the non-greedy samples', '0.8')
    .option('--max-tokens <n>', 'completion tokens per sample', '1024')
    .option('--concurrency <n>', 'instances repaired at once', '4')
    .option('--retry-errors', 'rerun instances whose earlier attempt recorded an error')
    .action(async (flags: RepairFlags) => {
      const instances = await loadSelection(flags, 'repair');
      const services = servicesFrom(flags);
      const model = services.llm;
      if (!model) throw new Error('repair needs a chat model (--llm)');
      const layout = new RunLayout(path.resolve(flags.out));
      const inputs: Array<RepairInstanceInput & { instance: SweInstance }> = [];
      for (const instance of instances) {
        const lines = await readArtifact<LineStageOutput>(layout, 'localize-lines', instance.instance_id);
        if (lines?.status !== 'ok' || !lines.output) {
          process.stderr.write(`repair: ${instance.instance_id}: no usable localize-lines artifact, skipped\n`);
          continue;
        }
        inputs.push({ instance, locationSets: lines.output.locationSets, snapshot: await services.snapshot(instance.repo, instance.base_commit) });
      }
      const progress = createProgress();
      progress.begin('repair', inputs.length);
      try {
        const result = await runRepairStage(layout.root, inputs, {
          model,
          config: {
            samplesPerSet: positiveInt('--samples-per-set', flags.samplesPerSet),
            temperature: flags.temperature === undefined ? undefined : Number(flags.temperature),
            maxTokens: positiveInt('--max-tokens', flags.maxTokens),
          },
          concurrency: positiveInt('--concurrency', flags.concurrency),
          retryErrors: flags.retryErrors,
          onEvent: (e) => progress.event(e),
        });
        progress.end();
        process.stderr.write(`repair: ${result.done.length} done, ${result.skipped.length} reused, ${result.failed.length} failed -> ${layout.stageDir('repair')}\n`);
        if (result.done.length + result.skipped.length === 0) process.exitCode = 1;
      } finally {
        await services.close();
      }
    });

  const select = program.command('select').description('majority vote over normalized patches, filtered by validation results when present; writes predictions.jsonl');
  addSelectionOptions(select);
  select
    .option('--cache-dir <dir>', 'dataset cache', defaultCacheDir())
    .option('--model-name <name>', 'model_name_or_path in the predictions (default: the repair model)')
    .requiredOption('--out <dir>', 'run directory holding repair/ artifacts')
    .action(async (flags: SelectionFlags & { cacheDir: string; out: string; modelName?: string }) => {
      const instances = await loadSelection(flags, 'select');
      const layout = new RunLayout(path.resolve(flags.out));
      const validation = new Map<string, ReadonlyMap<string, CandidateValidation>>();
      for (const instance of instances) {
        const v = await readArtifact<ValidateStageOutput>(layout, 'validate', instance.instance_id);
        if (v?.status === 'ok' && v.output) validation.set(instance.instance_id, new Map(Object.entries(v.output.validation)));
      }
      const { rows, missing } = await runSelectStage(layout.root, { instances, modelName: flags.modelName, validation: (id) => validation.get(id) });
      const empty = rows.filter((r) => !r.model_patch.trim()).length;
      process.stderr.write(`select: ${rows.length} predictions (${empty} empty, ${missing.length} without a repair record) -> ${layout.file('predictions.jsonl')}\n`);
    });
}
