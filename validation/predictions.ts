/**
 * Predictions in the harness' formats: JSONL (one object a line), a JSON list, or a JSON object keyed by
 * instance id; each with `instance_id`, `model_name_or_path` and `model_patch` (null/"" = no patch).
 * "gold" makes predictions from the dataset's own patches.
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import type { SweInstance } from '../src/dataset/schema.ts';

export const PredictionSchema = z.object({
  instance_id: z.string().min(1),
  model_name_or_path: z.string().default('None'),
  model_patch: z.string().nullable().optional(),
});
export type Prediction = z.infer<typeof PredictionSchema>;

export function goldPredictions(dataset: readonly SweInstance[]): Prediction[] {
  return dataset.map((i) => ({ instance_id: i.instance_id, model_name_or_path: 'gold', model_patch: i.patch }));
}

function parseRows(text: string, file: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      value = undefined; // not one JSON document: read it as JSONL below
    }
    if (value !== undefined) {
      if (Array.isArray(value)) return value;
      const obj = value as Record<string, unknown>;
      // One prediction object alone, or a dict keyed by instance id.
      if ('instance_id' in obj) return [obj];
      return Object.entries(obj).map(([id, v]) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) {
          throw new Error(`${file}: the prediction for ${id} is not an object`);
        }
        return { instance_id: id, ...v };
      });
    }
  }
  return trimmed.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line)];
    } catch (err) {
      throw new Error(`${file}:${index + 1}: not a JSON line (${err instanceof Error ? err.message : String(err)})`);
    }
  });
}

export function parsePredictions(text: string, file = 'predictions'): Prediction[] {
  const rows = parseRows(text, file);
  const seen = new Set<string>();
  return rows.map((row, index) => {
    const parsed = PredictionSchema.safeParse(row);
    if (!parsed.success) {
      throw new Error(`${file}: prediction ${index + 1} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    if (seen.has(parsed.data.instance_id)) throw new Error(`${file}: instance ${parsed.data.instance_id} has more than one prediction`);
    seen.add(parsed.data.instance_id);
    return parsed.data;
  });
}

export async function loadPredictions(source: string, dataset: readonly SweInstance[]): Promise<Prediction[]> {
  if (source === 'gold') return goldPredictions(dataset);
  return parsePredictions(await fs.readFile(source, 'utf8'), source);
}
