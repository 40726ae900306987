/**
 * The oracle localizer: the files the gold patch modifies, in patch order. It reads the answer, so it is
 * an upper bound for analysis ("what if file localization were perfect?"), never a result; every report
 * labels it as such through `upperBound`.
 */
import { z } from 'zod';
import { modifiedExistingFiles } from '../../src/patch.ts';
import type { FileLocalizer, LocalizerContext } from '../types.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';

/** The oracle takes no options. */
export const OracleOptionsSchema = z.object({}).strict();

export class OracleLocalizer implements FileLocalizer {
  readonly name = 'oracle';

  async localize(ctx: LocalizerContext): Promise<FileLocalization> {
    const t0 = performance.now();
    if (!ctx.instance.patch.trim()) throw new Error(`oracle localizer: ${ctx.instance.instance_id} has no gold patch`);
    const files = modifiedExistingFiles(ctx.instance.patch);
    return {
      localizer: this.name,
      upperBound: true,
      files: files.map((path, i) => ({ path, score: files.length - i, evidence: { source: 'gold patch' } })),
      trace: [],
      usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 },
      timingsMs: { total: performance.now() - t0 },
    };
  }
}
