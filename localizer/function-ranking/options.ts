/**
 * The options of the model-free function level (`functionLevel: {"localizer": "retrieval", …}`), one schema that
 * carries its defaults. The weights and the number of files were chosen on development sets only (SWE-bench dev,
 * Multimodal dev, Multilingual dev; `npm run bench:functions -- --tune`, BENCHMARKS.md).
 */
import { z } from 'zod';
import { positiveInt } from '../../src/util/schema-types.ts';
import { ELEMENT_CHANNELS, type ElementWeights } from './rank.ts';

/** chosen on SWE-bench dev, Multimodal dev and Multilingual dev by `npm run bench:functions -- --tune` (BENCHMARKS.md) */
export const DEFAULT_ELEMENT_WEIGHTS: ElementWeights = {
  lexical: 1,
  title: 1,
  structural: 0.25,
  names: 2,
  frames: 2,
  owner: 0.25,
  calls: 2,
  size: 2,
  callable: 0.5,
  literals: 0,
  meaning: 0,
  similar: 0,
  churn: 0,
  feedback: 0,
  file: 1,
};
/** files ranked under a soft handoff (no prompt to fill: more than a model is shown); the benchmark's depth */
export const DEFAULT_FUNCTION_TOP_FILES = 10;
/** commits the history-meaning channel reads: off unless the development sets choose it (BENCHMARKS.md) */
export const DEFAULT_HISTORY_COMMITS = 0;
/** elements handed to the line level: as many as Acc@5 counts */
export const DEFAULT_HANDED_ELEMENTS = 5;

const weight = () => z.number({ message: 'must be a number >= 0' }).nonnegative({ message: 'must be a number >= 0' });

export const FunctionRankingOptionsSchema = z
  .object({
    localizer: z.literal('retrieval'),
    /**
     * with a soft handoff, the files of the file ranking whose elements are ranked (the line level follows places
     * beyond the handed files); with top and hard, the handed files are ranked, as the line level sees only those
     */
    files: positiveInt().default(DEFAULT_FUNCTION_TOP_FILES),
    /**
     * commits before the base commit the history-meaning channel learns word ↔ identifier associations from
     * (src/index/word-associations.ts); 0 leaves the channel out (its weight is then moot)
     */
    historyCommits: z.number().int().nonnegative().default(DEFAULT_HISTORY_COMMITS),
    /** elements handed to the line level, best first */
    elements: positiveInt().default(DEFAULT_HANDED_ELEMENTS),
    /** each channel's weight (localizer/function-ranking/rank.ts); a channel left out keeps its default */
    weights: z
      .object(
        Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, weight().default(DEFAULT_ELEMENT_WEIGHTS[c])])) as Record<
          keyof ElementWeights,
          z.ZodDefault<z.ZodNumber>
        >,
      )
      .strict()
      .default(DEFAULT_ELEMENT_WEIGHTS),
  })
  .strict();

export type FunctionRankingOptions = z.output<typeof FunctionRankingOptionsSchema>;
