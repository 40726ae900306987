/**
 * Parts of a stage's work that are kept while the stage is still running: a cascade's answer of each tier,
 * so a resume after a crash in an upper tier does not pay for the lower tiers again. One JSON file per key
 * under runs/<id>/<stage>.parts/<instance>/ (or /_run/ for the run-level parts). A part that cannot be read
 * back is treated as absent and recomputed, like a corrupt stage artifact.
 */
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { readJsonIfExists, safeFileName, writeJsonAtomic } from '../util/fsx.ts';
import type { RunLayout } from './run-layout.ts';

export interface PartStore {
  read<T>(key: string): Promise<T | undefined>;
  write(key: string, value: unknown): Promise<void>;
}

export class FilePartStore implements PartStore {
  constructor(readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, `${safeFileName(key)}.json`);
  }

  async read<T>(key: string): Promise<T | undefined> {
    const file = this.file(key);
    try {
      return await readJsonIfExists<T>(file);
    } catch {
      await rename(file, `${file}.corrupt`).catch(() => undefined);
      return undefined;
    }
  }

  async write(key: string, value: unknown): Promise<void> {
    await writeJsonAtomic(this.file(key), value);
  }
}

/** The parts folder of one instance of a stage, or the run-level one (`instanceId` undefined). */
export function partStoreOf(layout: RunLayout, stage: string, instanceId?: string): FilePartStore {
  return new FilePartStore(path.join(layout.root, `${stage}.parts`, instanceId === undefined ? '_run' : safeFileName(instanceId)));
}
