/**
 * Training pairs with their recorded retrieval searches (scripts/record-ranker-pairs.ts writes them, the ranker's
 * trainer reads them): which pairs are recorded, and how a recording is read back.
 */
import type { TrainingPair } from './training-pairs.ts';
import type { IndexRecording } from '../../localizer/retrieval/recording-index.ts';

export interface RecordedPair {
  /** the mined pair, with the parent commit its repository was indexed at */
  pair: TrainingPair & { parent: string };
  recording: IndexRecording;
}

/**
 * Per repository, `perRepo` pairs evenly spaced over its history order (the mined file's order), so every era of
 * a repository is represented and the same input gives the same sample. Output: grouped by repository (sorted),
 * each group in history order.
 */
export function samplePairs(pairs: readonly TrainingPair[], perRepo: number): TrainingPair[] {
  const byRepo = new Map<string, TrainingPair[]>();
  for (const p of pairs) {
    const list = byRepo.get(p.repo);
    if (list) list.push(p);
    else byRepo.set(p.repo, [p]);
  }
  const out: TrainingPair[] = [];
  for (const repo of [...byRepo.keys()].sort()) {
    const list = byRepo.get(repo)!;
    if (list.length <= perRepo) {
      out.push(...list);
      continue;
    }
    for (let i = 0; i < perRepo; i++) out.push(list[Math.floor(((i + 0.5) * list.length) / perRepo)]!);
  }
  return out;
}

/** Reads one recorded pair; a recorded failure or a file of another shape is an error naming the file. */
export function parseRecordedPair(text: string, file: string): RecordedPair {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const v = value as Partial<RecordedPair> & { error?: string };
  if (typeof v.error === 'string') throw new Error(`${file}: recording failed: ${v.error}`);
  if (!v.pair || !Array.isArray(v.pair.files) || typeof v.pair.query !== 'string' || !v.recording || !Array.isArray(v.recording.filePaths)) {
    throw new Error(`${file}: not a recorded training pair (needs pair.files, pair.query and recording.filePaths)`);
  }
  return v as RecordedPair;
}
