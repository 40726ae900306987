/**
 * The learned ranker's model file: regression trees over named features (features.ts), summed. A file records
 * what it was trained on (the training data's hash, the pairs, the command and the parameters), the feature set
 * version and the features it reads, so a model that this locfix cannot feed is refused with the reason instead of
 * ranking on the wrong columns.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { FEATURE_NAMES, FEATURE_SET_VERSION } from './features.ts';

export const MODEL_FORMAT = 'locfix-file-ranker';
export const MODEL_VERSION = 1;

/** the model shipped with locfix (scripts/train-ranker.ts writes it) */
export const DEFAULT_MODEL_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'file-ranker.json');

/** one regression tree as parallel arrays; node 0 is the root, a node with feature -1 is a leaf */
export interface RankerTree {
  /** column in the model's `features`, or -1 at a leaf */
  feature: number[];
  /** a row goes left when its value is <= threshold */
  threshold: number[];
  left: number[];
  right: number[];
  /** the leaf's score (0 at inner nodes) */
  value: number[];
}

export interface TrainingRecord {
  /** sha256 of the training examples (features and labels, in order) */
  dataSha256: string;
  pairs: number;
  repositories: number;
  command: string;
  params: Record<string, number>;
  /** the features the trees were kept from scoring lower as they grow (monotone constraints) */
  increasing?: string[];
  /** real issues trained on (issue 44): per source dataset, its file name and rows */
  issues?: Array<{ dataset: string; rows: number }>;
  /** a mined pair's weight beside an issue's 1 */
  pairsWeight?: number;
  /** how the parameters were chosen: grouped cross-validation by repository, and its out-of-fold Top-1/3/5 */
  crossValidation?: { folds: number; top1: number; top3: number; top5: number };
}

export interface RankerModel {
  format: typeof MODEL_FORMAT;
  version: number;
  featureSetVersion: number;
  /** the features the trees read, by name (a subset of FEATURE_NAMES in an ablation) */
  features: string[];
  /** how many of the weighted fusion's files it reorders; the rest keep their order below them */
  candidates: number;
  training: TrainingRecord;
  /** the trees correct a starting score, `scale` × this feature (the weighted fusion's own score): where they
   * learned nothing, the ranking stays the hand-set one; absent: the trees alone */
  base?: { feature: string; scale: number };
  trees: RankerTree[];
}

/** A model and where each of its features sits in this locfix's feature vector. */
export interface LoadedRanker {
  model: RankerModel;
  source: string;
  columns: number[];
  /** sha256 of the file: which model ranked (a run's settings and artifacts record it) */
  sha256?: string;
}

function fail(source: string, why: string): never {
  throw new Error(`ranker model ${source}: ${why}; retrain it (npm run ranker:train) or choose the hand-set fusion (--fusion weighted)`);
}

/** The most a model's score may reach in size (the base aside): sums of leaves past it say the file is broken. */
const MAX_SCORE = 1e9;

/** Every number finite: JSON has no NaN, but 1e309 parses to Infinity and null or a string compare one way only. */
const finite = z.number({ message: 'must be a finite number' }).finite({ message: 'must be a finite number' });
const index = z.number({ message: 'must be an integer' }).int({ message: 'must be an integer' });
const TreeSchema = z
  .object({ feature: z.array(index).min(1), threshold: z.array(finite), left: z.array(index), right: z.array(index), value: z.array(finite) })
  .refine((t) => [t.threshold, t.left, t.right, t.value].every((a) => a.length === t.feature.length), { message: 'arrays of different lengths' });
const ModelSchema = z.object({
  format: z.literal(MODEL_FORMAT),
  version: z.number(),
  featureSetVersion: z.number(),
  features: z.array(z.string()).min(1, { message: 'lists no features' }),
  candidates: index.min(1, { message: 'must be a positive integer' }),
  training: z
    .object({
      dataSha256: z.string(),
      pairs: z.number(),
      repositories: z.number(),
      command: z.string(),
      params: z.record(z.string(), z.number()),
      increasing: z.array(z.string()).optional(),
      issues: z.array(z.object({ dataset: z.string(), rows: z.number() })).optional(),
      pairsWeight: z.number().optional(),
      crossValidation: z.object({ folds: z.number(), top1: z.number(), top3: z.number(), top5: z.number() }).optional(),
    })
    .passthrough(),
  base: z.object({ feature: z.string(), scale: finite }).strict().optional(),
  trees: z.array(TreeSchema),
});

/** The first problem zod finds, as "where: what" (never the value itself: the file may not be a model at all). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.length
    ? issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, '')
    : 'the file';
  return `${where}: ${issue.message}`;
}

/** Checks a parsed model file against this locfix; every refusal names the file and the reason. */
export function checkRankerModel(value: unknown, source: string): LoadedRanker {
  const format = (value as { format?: unknown } | null)?.format;
  if (!value || typeof value !== 'object' || format !== MODEL_FORMAT)
    fail(source, `not a locfix ranker model (format is ${JSON.stringify(format)?.slice(0, 40)})`);
  const m = value as Partial<RankerModel>;
  if (m.version !== MODEL_VERSION) fail(source, `model format version ${m.version}, this locfix reads version ${MODEL_VERSION}`);
  if (m.featureSetVersion !== FEATURE_SET_VERSION) {
    fail(source, `trained on feature set version ${m.featureSetVersion}, this locfix computes version ${FEATURE_SET_VERSION}`);
  }
  if (!m.training || typeof m.training.dataSha256 !== 'string') fail(source, 'does not record its training data (training.dataSha256)');
  const parsed = ModelSchema.safeParse(value);
  if (!parsed.success) fail(source, firstIssue(parsed.error));
  const model: RankerModel = parsed.data;
  const unknown = model.features.filter((f) => !FEATURE_NAMES.includes(f));
  if (unknown.length) fail(source, `reads features this locfix does not compute: ${unknown.join(', ')}`);
  if (model.base !== undefined && !model.features.includes(model.base.feature)) {
    fail(source, `base must name one of its features and a finite scale, got ${JSON.stringify(model.base)}`);
  }
  model.trees.forEach((t, i) => checkTree(t, i, model.features.length, source));
  // bounded sums: the largest score the trees can give together must be a number, so no ranking turns on Infinity
  const reach = model.trees.reduce((sum, t) => sum + Math.max(...t.value.map(Math.abs)), 0);
  if (!(reach <= MAX_SCORE)) fail(source, `its trees' leaves sum to ${reach} in size, beyond ${MAX_SCORE}: not a trained model`);
  return { model, source, columns: model.features.map((f) => FEATURE_NAMES.indexOf(f)) };
}

function checkTree(t: RankerTree, i: number, featureCount: number, source: string): void {
  const n = t.feature.length;
  for (let node = 0; node < n; node++) {
    const f = t.feature[node]!;
    if (f === -1) continue;
    if (!(f >= 0 && f < featureCount)) fail(source, `tree ${i} node ${node}: feature ${f} out of range`);
    // children come after their parent, so evaluation always ends at a leaf
    for (const child of [t.left[node]!, t.right[node]!]) if (!(child > node && child < n)) fail(source, `tree ${i} node ${node}: bad child ${child}`);
  }
}

const loaded = new Map<string, LoadedRanker>();

/** Reads and checks a model file once per process; a missing or unreadable file is a clear error. */
export function loadRankerModel(file: string = DEFAULT_MODEL_FILE): LoadedRanker {
  const source = path.resolve(file);
  const cached = loaded.get(source);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail(source, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text it met: a path to another file would show its first characters
    fail(source, 'is not JSON');
  }
  const ranker = { ...checkRankerModel(value, source), sha256: createHash('sha256').update(text).digest('hex') };
  loaded.set(source, ranker);
  return ranker;
}

/** A tree's score for one row of the model's own columns. */
export function treeScore(tree: RankerTree, row: ArrayLike<number>): number {
  let node = 0;
  while (tree.feature[node] !== -1) node = row[tree.feature[node]!]! <= tree.threshold[node]! ? tree.left[node]! : tree.right[node]!;
  return tree.value[node]!;
}

/** The model's score of each full feature vector (FEATURE_NAMES order). */
export function scoreCandidates(ranker: LoadedRanker, rows: readonly Float64Array[]): number[] {
  const own = new Float64Array(ranker.columns.length);
  const base = ranker.model.base;
  const baseColumn = base ? ranker.model.features.indexOf(base.feature) : -1;
  return rows.map((row) => {
    ranker.columns.forEach((c, i) => {
      own[i] = row[c]!;
    });
    let score = base ? base.scale * own[baseColumn]! : 0;
    for (const tree of ranker.model.trees) score += treeScore(tree, own);
    return score;
  });
}
