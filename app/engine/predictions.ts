/** `predictions.jsonl` of a run: the selected patch of every instance whose selection finished, as the SWE-bench harness reads it. */
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RunLayout } from '../../src/run/run-layout.ts';
import { readArtifact } from '../../src/run/stage-runner.ts';
import { STAGE } from '../../src/run/stage.ts';
import { writeJsonlAtomic } from '../../src/util/fsx.ts';
import type { Selection } from '../../repair/types.ts';

export async function writePredictions(
  layout: RunLayout,
  instances: readonly SweInstance[],
  modelName: string,
): Promise<Array<{ instance_id: string; model_name_or_path: string; model_patch: string }>> {
  const rows = [];
  for (const instance of instances) {
    const selection = await readArtifact<Selection>(layout, STAGE.select, instance.instance_id);
    if (selection?.status !== 'ok') continue; // not selected yet: left out, so the harness reports it incomplete
    rows.push({ instance_id: instance.instance_id, model_name_or_path: modelName, model_patch: selection.output?.patch ?? '' });
  }
  await writeJsonlAtomic(layout.file('predictions.jsonl'), rows);
  return rows;
}
