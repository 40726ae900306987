/**
 * One run folder from the shards of a split run (`--shard i/n`) or from runs of disjoint instances. Artifacts are
 * joined (src/run/merge-runs.ts); predictions, the harness summary, the analysis and the reports are computed
 * again over the merged folder, exactly as a run computes them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { mergeRunFolders } from '../../src/run/merge-runs.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readManifest } from '../../src/run/manifest.ts';
import { STAGE } from '../../src/run/stage.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { settingsChanges } from '../../src/util/settings-diff.ts';
import { writeRunAnalysis } from '../../results/run-analysis.ts';
import { openRunFolder, type RunFolder } from '../../results/run-folder.ts';
import { localizerShardCaveat } from '../../localizer/registry.ts';
import { makeRunSummary } from '../../validation/run-summary.ts';
import { writeReports } from '../../results/report-files.ts';
import { writePredictions } from './predictions.ts';

/** Joins `inputs` into `out`, then computes its predictions, harness summary, analysis and reports. */
export async function mergeAndReport(out: string, inputs: readonly string[], log: (line: string) => void): Promise<void> {
  const [first] = await checkSameArm(inputs);
  const merged = await mergeRunFolders(out, inputs);
  // the options as the run's config gave them (a `locfix run`'s shards); a stage folder's cascade has no shards
  const localizer = first!.manifest?.config?.localizer as { name?: string; options?: Record<string, unknown> } | undefined;
  const caveat = inputs.length > 1 && localizer?.name ? await localizerShardCaveat(localizer.name, localizer.options) : undefined;
  if (caveat) log(`merge: warning: ${caveat}`);
  for (const c of merged.conflicts) log(`merge: ${c.stage}/${c.instanceId}: finished differently in ${c.dropped}; ${c.kept} kept`);
  const layout = new RunLayout(out);
  const folder = await openRunFolder(out);
  const instances = folder.instances.flatMap((i) => (i.row ? [i.row] : []));
  const manifest = await readManifest(layout);
  const modelName = manifest?.models?.llm ?? 'locfix';
  const predictions = existsSync(path.join(out, STAGE.select)) ? await writePredictions(layout, instances, modelName) : [];
  if (existsSync(path.join(out, STAGE.evaluate))) {
    const summary = await makeRunSummary(path.dirname(out), layout.id, instances, predictions);
    await writeJsonAtomic(layout.file(`${modelName.replace(/[^\w.-]+/g, '_')}.${layout.id}.json`), summary);
  }
  const topFiles = manifest?.config.topFiles;
  const analysis = await writeRunAnalysis(out, typeof topFiles === 'number' ? { topFiles } : {});
  await writeReports([analysis], layout.file('report'));
  log(
    `merge: ${merged.inputs.length} runs, ${merged.instances} instances, ${merged.artifacts} artifacts, ${merged.conflicts.length} conflicts -> ${out} (report: ${layout.file('report', 'report.html')})`,
  );
}

/**
 * Parts of one run share its arm: runs of other localizers or options would make a folder whose manifest
 * describes only one of them, so the refusal names the settings that differ. Repeats of one arm (other seeds)
 * over the same instances are not parts either: merging would keep one seed's answer per instance and drop the
 * other's, so they are compared instead. A folder that does not record its whole configuration is compared by
 * what it records (localizer, embedder, dataset).
 */
async function checkSameArm(inputs: readonly string[]): Promise<RunFolder[]> {
  const folders = await Promise.all(inputs.map((i) => openRunFolder(i)));
  const [first, ...rest] = folders;
  const describe = (f: (typeof folders)[number]) =>
    f.arm.key ?? JSON.stringify({ localizer: f.arm.localizer, embedder: f.arm.embedder, dataset: f.arm.dataset, kind: f.kind });
  for (const f of rest) {
    if (describe(f) !== describe(first)) {
      const changes = first.arm.settings && f.arm.settings ? settingsChanges(first.arm.settings, f.arm.settings) : [];
      const shown = changes.length ? changes : [`localizer: ${first.arm.localizer} → ${f.arm.localizer} (the folders do not record all their settings)`];
      throw new Error(
        `merge: ${f.dir} and ${first.dir} are runs of different configurations; only parts of one run merge. What differs (${first.id} → ${f.id}):\n  ${shown.slice(0, 12).join('\n  ')}${shown.length > 12 ? `\n  … and ${shown.length - 12} more` : ''}\nCompare them with locfix compare instead`,
      );
    }
    if ((f.arm.seed ?? 0) !== (first.arm.seed ?? 0)) {
      const ids = new Set(first.instances.map((i) => i.id));
      const shared = f.instances.filter((i) => ids.has(i.id)).length;
      throw new Error(
        shared
          ? `merge: ${f.dir} (seed ${f.arm.seed ?? 0}) and ${first.dir} (seed ${first.arm.seed ?? 0}) are repeats of one configuration over ${shared} of the same instances: merging would drop one seed's answers. Use locfix compare, which counts repeats as one arm`
          : `merge: ${f.dir} (seed ${f.arm.seed ?? 0}) and ${first.dir} (seed ${first.arm.seed ?? 0}) ran with different seeds; the parts of one run share its seed`,
      );
    }
  }
  return folders;
}
