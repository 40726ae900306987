/**
 * LambdaMART (Burges, "From RankNet to LambdaRank to LambdaMART", 2010): gradient-boosted regression trees whose
 * gradients are LambdaRank's — each (relevant, irrelevant) pair of a query pushes the two files apart by the
 * logistic loss of their score difference, weighted by how much NDCG would change if they swapped places. Leaves
 * take Newton steps (gradient sum / hessian sum), splits are found over per-feature quantile bins, as LightGBM does.
 *
 * Written here rather than taken from a library: no maintained JavaScript package trains ranking trees, and the
 * ranker must be trained by a script of this repository, bit for bit the same on every run. Nothing is random:
 * features, bins and rows are visited in a fixed order and ties go to the first candidate.
 */
import type { RankerTree } from '../../localizer/retrieval/learned/model.ts';
import { treeScore } from '../../localizer/retrieval/learned/model.ts';

export interface LambdaMartParams {
  trees: number;
  learningRate: number;
  maxDepth: number;
  /** a split leaves at least this many rows on each side */
  minLeafRows: number;
  /** L2 regularization of leaf values */
  l2: number;
  /** at most this many split points per feature */
  bins: number;
  /** per column: 1 = the score may only rise with this feature (more evidence never lowers a file), 0 = free */
  monotone?: readonly number[];
}

export const DEFAULT_LAMBDAMART: LambdaMartParams = { trees: 300, learningRate: 0.05, maxDepth: 4, minLeafRows: 50, l2: 1, bins: 64 };

/** One query's candidates: a feature row each (the model's columns) and 1 for a relevant file, 0 otherwise. */
export interface RankingGroup {
  rows: readonly ArrayLike<number>[];
  labels: readonly number[];
  /** the score each row starts from (default 0): the trees learn corrections to it */
  base?: readonly number[];
  /** how much the query counts (default 1): a mined commit message, a weaker stand-in for an issue, may count less */
  weight?: number;
}

interface Dataset {
  n: number;
  columns: Float64Array[];
  /** per column: split points, ascending; a value goes to the first bin whose point is >= it */
  points: number[][];
  bins: Uint8Array[];
  groupStart: number[];
  labels: Uint8Array;
  base: Float64Array;
  /** per group: its weight */
  groupWeight: Float64Array;
}

function splitPoints(values: Float64Array, maxBins: number): number[] {
  const sorted = Float64Array.from(values).sort();
  const unique: number[] = [];
  for (const v of sorted) if (unique.length === 0 || unique[unique.length - 1] !== v) unique.push(v);
  // the largest value needs no split point: nothing lies right of it
  if (unique.length <= maxBins) return unique.slice(0, -1);
  const points: number[] = [];
  for (let b = 1; b < maxBins; b++) {
    const v = sorted[Math.floor((b * sorted.length) / maxBins)]!;
    if (v < unique[unique.length - 1]! && (points.length === 0 || points[points.length - 1]! < v)) points.push(v);
  }
  return points;
}

function binOf(points: readonly number[], v: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v <= points[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function toDataset(groups: readonly RankingGroup[], width: number, maxBins: number): Dataset {
  if (maxBins > 255) throw new Error('LambdaMART: at most 255 bins per feature');
  const n = groups.reduce((s, g) => s + g.rows.length, 0);
  const columns = Array.from({ length: width }, () => new Float64Array(n));
  const labels = new Uint8Array(n);
  const base = new Float64Array(n);
  const groupStart: number[] = [];
  const groupWeight = Float64Array.from(groups, (g) => g.weight ?? 1);
  if (groupWeight.some((w) => !(w > 0))) throw new Error('LambdaMART: a group weight must be a number > 0');
  let r = 0;
  for (const g of groups) {
    if (g.rows.length !== g.labels.length) throw new Error('LambdaMART: a group has different numbers of rows and labels');
    groupStart.push(r);
    g.rows.forEach((row, i) => {
      for (let c = 0; c < width; c++) columns[c]![r] = row[c]!;
      labels[r] = g.labels[i]! > 0 ? 1 : 0;
      base[r] = g.base?.[i] ?? 0;
      r++;
    });
  }
  groupStart.push(n);
  const points = columns.map((col) => splitPoints(col, maxBins));
  const bins = columns.map((col, c) => Uint8Array.from(col, (v) => binOf(points[c]!, v)));
  return { n, columns, points, bins, groupStart, labels, base, groupWeight };
}

/** LambdaRank gradients (to climb) and hessians of every row under the current scores, NDCG over the whole list. */
function lambdas(data: Dataset, scores: Float64Array, grad: Float64Array, hess: Float64Array): void {
  grad.fill(0);
  hess.fill(0);
  for (let q = 0; q + 1 < data.groupStart.length; q++) {
    const start = data.groupStart[q]!;
    const end = data.groupStart[q + 1]!;
    const order = Array.from({ length: end - start }, (_, i) => start + i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    const rel = order.filter((r) => data.labels[r] === 1).length;
    if (rel === 0 || rel === order.length) continue;
    let idcg = 0;
    for (let i = 0; i < rel; i++) idcg += 1 / Math.log2(i + 2);
    const discount = new Map(order.map((r, i) => [r, 1 / Math.log2(i + 2)]));
    for (const i of order) {
      if (data.labels[i] !== 1) continue;
      for (const j of order) {
        if (data.labels[j] === 1) continue;
        const delta = (data.groupWeight[q]! * Math.abs(discount.get(i)! - discount.get(j)!)) / idcg;
        const rho = 1 / (1 + Math.exp(scores[i]! - scores[j]!));
        grad[i]! += delta * rho;
        grad[j]! -= delta * rho;
        const h = delta * rho * (1 - rho);
        hess[i]! += h;
        hess[j]! += h;
      }
    }
  }
}

interface Split {
  column: number;
  bin: number;
  gain: number;
  /** the children's Newton values, within the node's bounds */
  left: number;
  right: number;
}

/** a node's value may not leave [lower, upper]: what monotone splits above it promised */
interface Bounds {
  lower: number;
  upper: number;
}

const clamp = (v: number, b: Bounds) => Math.min(b.upper, Math.max(b.lower, v));

function bestSplit(data: Dataset, rows: Uint32Array, grad: Float64Array, hess: Float64Array, p: LambdaMartParams, bounds: Bounds): Split | undefined {
  let G = 0;
  let H = 0;
  for (const r of rows) {
    G += grad[r]!;
    H += hess[r]!;
  }
  const parent = (G * G) / (H + p.l2);
  let best: Split | undefined;
  for (let c = 0; c < data.columns.length; c++) {
    const nb = data.points[c]!.length + 1;
    if (nb < 2) continue;
    const hg = new Float64Array(nb);
    const hh = new Float64Array(nb);
    const hc = new Uint32Array(nb);
    const bins = data.bins[c]!;
    for (const r of rows) {
      const b = bins[r]!;
      hg[b]! += grad[r]!;
      hh[b]! += hess[r]!;
      hc[b]!++;
    }
    let gl = 0;
    let hl = 0;
    let cl = 0;
    for (let b = 0; b < nb - 1; b++) {
      gl += hg[b]!;
      hl += hh[b]!;
      cl += hc[b]!;
      const cr = rows.length - cl;
      if (cl < p.minLeafRows || cr < p.minLeafRows) continue;
      const gr = G - gl;
      const hr = H - hl;
      const left = clamp(gl / (hl + p.l2), bounds);
      const right = clamp(gr / (hr + p.l2), bounds);
      // rows with more of an increasing feature go right: they may not get less
      if (p.monotone?.[c] === 1 && left > right) continue;
      const gain = (gl * gl) / (hl + p.l2) + (gr * gr) / (hr + p.l2) - parent;
      if (gain > 1e-12 && (!best || gain > best.gain)) best = { column: c, bin: b, gain, left, right };
    }
  }
  return best;
}

function growTree(data: Dataset, grad: Float64Array, hess: Float64Array, p: LambdaMartParams): RankerTree {
  const tree: RankerTree = { feature: [], threshold: [], left: [], right: [], value: [] };
  const grow = (rows: Uint32Array, depth: number, bounds: Bounds): number => {
    const node = tree.feature.length;
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    const split = depth < p.maxDepth && rows.length >= 2 * p.minLeafRows ? bestSplit(data, rows, grad, hess, p, bounds) : undefined;
    if (!split) {
      let G = 0;
      let H = 0;
      for (const r of rows) {
        G += grad[r]!;
        H += hess[r]!;
      }
      // the learning rate times the Newton step, within the bounds scaled alike
      tree.value[node] = clamp((p.learningRate * G) / (H + p.l2), { lower: p.learningRate * bounds.lower, upper: p.learningRate * bounds.upper });
      return node;
    }
    const bins = data.bins[split.column]!;
    const left = rows.filter((r) => bins[r]! <= split.bin);
    const right = rows.filter((r) => bins[r]! > split.bin);
    tree.feature[node] = split.column;
    tree.threshold[node] = data.points[split.column]![split.bin]!;
    // below a monotone split, the left subtree stays under the midpoint of the two values and the right one over it
    const mid = (split.left + split.right) / 2;
    const monotone = p.monotone?.[split.column] === 1;
    tree.left[node] = grow(left, depth + 1, monotone ? { lower: bounds.lower, upper: Math.min(bounds.upper, mid) } : bounds);
    tree.right[node] = grow(right, depth + 1, monotone ? { lower: Math.max(bounds.lower, mid), upper: bounds.upper } : bounds);
    return node;
  };
  grow(
    Uint32Array.from({ length: data.n }, (_, i) => i),
    0,
    { lower: -Infinity, upper: Infinity },
  );
  return tree;
}

/**
 * Trains `params.trees` trees on the groups; `onTree` sees each tree as it is added (to follow a validation
 * metric, or stop early by returning false).
 */
export function trainLambdaMart(
  groups: readonly RankingGroup[],
  width: number,
  params: LambdaMartParams = DEFAULT_LAMBDAMART,
  onTree?: (trees: readonly RankerTree[]) => boolean | undefined,
): RankerTree[] {
  const data = toDataset(groups, width, params.bins);
  const scores = Float64Array.from(data.base);
  const grad = new Float64Array(data.n);
  const hess = new Float64Array(data.n);
  const row = new Float64Array(width);
  const trees: RankerTree[] = [];
  for (let t = 0; t < params.trees; t++) {
    lambdas(data, scores, grad, hess);
    const tree = growTree(data, grad, hess, params);
    trees.push(tree);
    for (let r = 0; r < data.n; r++) {
      for (let c = 0; c < width; c++) row[c] = data.columns[c]![r]!;
      scores[r]! += treeScore(tree, row);
    }
    if (onTree && onTree(trees) === false) break;
  }
  return trees;
}
