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

/** Checks a parsed model file against this locfix; every refusal names the file and the reason. */
export function checkRankerModel(value: unknown, source: string): LoadedRanker {
  const m = value as Partial<RankerModel>;
  if (!m || typeof m !== 'object' || m.format !== MODEL_FORMAT) fail(source, `not a locfix ranker model (format is ${JSON.stringify(m?.format)})`);
  if (m.version !== MODEL_VERSION) fail(source, `model format version ${m.version}, this locfix reads version ${MODEL_VERSION}`);
  if (m.featureSetVersion !== FEATURE_SET_VERSION) {
    fail(source, `trained on feature set version ${m.featureSetVersion}, this locfix computes version ${FEATURE_SET_VERSION}`);
  }
  if (!Array.isArray(m.features) || m.features.length === 0) fail(source, 'lists no features');
  const unknown = m.features.filter((f) => !FEATURE_NAMES.includes(f));
  if (unknown.length) fail(source, `reads features this locfix does not compute: ${unknown.join(', ')}`);
  if (!Number.isInteger(m.candidates) || m.candidates! < 1) fail(source, `candidates must be a positive integer, got ${m.candidates}`);
  if (!m.training || typeof m.training.dataSha256 !== 'string') fail(source, 'does not record its training data (training.dataSha256)');
  if (!Array.isArray(m.trees)) fail(source, 'has no trees');
  if (m.base !== undefined && (!m.features.includes(m.base.feature) || !Number.isFinite(m.base.scale))) {
    fail(source, `base must name one of its features and a finite scale, got ${JSON.stringify(m.base)}`);
  }
  m.trees.forEach((t, i) => checkTree(t, i, m.features!.length, source));
  return { model: m as RankerModel, source, columns: m.features.map((f) => FEATURE_NAMES.indexOf(f)) };
}

function checkTree(t: RankerTree, i: number, featureCount: number, source: string): void {
  const n = t?.feature?.length;
  if (!n || [t.threshold, t.left, t.right, t.value].some((a) => !Array.isArray(a) || a.length !== n)) fail(source, `tree ${i} is malformed`);
  for (let node = 0; node < n; node++) {
    const f = t.feature[node]!;
    if (f === -1) {
      if (!Number.isFinite(t.value[node])) fail(source, `tree ${i} node ${node}: leaf value is not a number`);
      continue;
    }
    if (!(Number.isInteger(f) && f >= 0 && f < featureCount)) fail(source, `tree ${i} node ${node}: feature ${f} out of range`);
    // children come after their parent, so evaluation always ends at a leaf
    for (const child of [t.left[node]!, t.right[node]!])
      if (!(Number.isInteger(child) && child > node && child < n)) fail(source, `tree ${i} node ${node}: bad child ${child}`);
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
  } catch (err) {
    fail(source, `is not JSON (${err instanceof Error ? err.message : String(err)})`);
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
