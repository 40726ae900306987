/**
 * Chooses the weighted fusion's channel weights on real issues (issue 44): the development rows' recorded searches
 * (`bench:retrieval --record`), never SWE-bench Lite. The weights shipped before were chosen on Lite's even rows;
 * this asks whether weights chosen on other repositories' issues do better on issues of repositories they never
 * saw, and prints the weights to ship if they do.
 *
 *   npm run tune:fusion -- --issues DATASET=RECORDINGS … [--folds 6] [--queries raw+structural+title] [--off keys,…]
 *
 * `--off` keeps channels at 0 and out of the search (a recording made without their searches can still be tuned).
 * `--from JSON` starts from other weights than today's defaults (`{"dense":0.5,"chunkBm25":0.5}`, `{"query:title":2}`):
 * the "defaults" row then shows those, so a decision made before the defaults changed can be run again.
 *
 * Each row's channels are searched once, every channel on at weight 1; a weight vector then only refuses them.
 * Coordinate ascent from the current defaults: each weight in turn takes the value of VALUES that maximizes the
 * mean of Top-1, Top-3 and Top-5 over the training rows (a tie keeps the current value), sweeps repeat until none
 * moves (at most MAX_SWEEPS). Judged by cross-validation grouped by repository (the ranker's folds), then run once
 * on every row for the weights to ship.
 */
import { parseArgs } from 'node:util';
import { goldPaths } from '../src/dataset/gold.ts';
import { firstGoldRank } from '../results/loc-metrics.ts';
import { normalizeScores, rankFiles } from '../localizer/retrieval/fusion.ts';
import { DEFAULT_RETRIEVAL_OPTIONS, resolveRetrievalOptions, type ChannelWeights } from '../localizer/retrieval/options.ts';
import { defaultQueries, type QueryPreset } from '../localizer/retrieval/query.ts';
import { ReplayIndex } from '../localizer/retrieval/recording-index.ts';
import { collectChannels } from '../localizer/retrieval/retriever.ts';
import { issueRecordings, repositoryFolds } from './ranker/issue-training.ts';

type Channel = Exclude<keyof ChannelWeights, 'graph'>;
const CHANNELS: readonly Channel[] = ['dense', 'chunkBm25', 'fileBm25', 'definitions', 'paths', 'history', 'literals', 'keys', 'coChange'];
/** a channel's weight, or a query's (`query:title`): the fused weight of a query's channel is their product */
type Kind = Channel | `query:${string}`;
const VALUES = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3];
const MAX_SWEEPS = 4;

interface Row {
  id: string;
  repo: string;
  set: string;
  gold: string[];
  /** each channel, normalized once: its kind and (path, score in [0, 1]) */
  channels: Array<{ kind: Channel; query: string; scores: Array<[string, number]> }>;
}

async function rowsOf(spec: string, preset: QueryPreset, channels: readonly Channel[]): Promise<Row[]> {
  // every channel searched, as the recorders ran them (everyChannelOn), those turned off left out
  const all = resolveRetrievalOptions({ weights: Object.fromEntries(CHANNELS.map((k) => [k, channels.includes(k) ? 1 : 0])) });
  const out: Row[] = [];
  for (const { instance: inst, recording, set } of await issueRecordings(spec)) {
    const collected = await collectChannels(new ReplayIndex(recording), defaultQueries(inst.problem_statement, preset), all);
    out.push({
      id: inst.instance_id,
      repo: inst.repo,
      set,
      gold: goldPaths(inst.patch),
      channels: collected.channels.map((c) => ({
        kind: c.label.slice(c.label.lastIndexOf('/') + 1) as Channel,
        query: `query:${c.label.slice(0, c.label.lastIndexOf('/'))}`,
        scores: [...normalizeScores(c.scores, DEFAULT_RETRIEVAL_OPTIONS.normalization)],
      })),
    });
  }
  return out;
}

/** 1-based rank of the row's first gold file under the weights (null: not ranked) */
function rankUnder(row: Row, w: Record<string, number>): number | null {
  const fused = new Map<string, number>();
  for (const c of row.channels) {
    const weight = w[c.kind]! * (w[c.query] ?? 1);
    if (weight === 0) continue;
    for (const [p, s] of c.scores) fused.set(p, (fused.get(p) ?? 0) + weight * s);
  }
  return firstGoldRank(
    rankFiles(fused).map((f) => f.path),
    row.gold,
  );
}

function topK(rows: readonly Row[], w: Record<string, number>): { top1: number; top3: number; top5: number } {
  const ranks = rows.map((r) => rankUnder(r, w));
  const share = (k: number) => ranks.filter((r) => r !== null && r <= k).length / Math.max(rows.length, 1);
  return { top1: share(1), top3: share(3), top5: share(5) };
}
const objective = (m: { top1: number; top3: number; top5: number }) => (m.top1 + m.top3 + m.top5) / 3;

function coordinateAscent(rows: readonly Row[], start: Record<string, number>, kinds: readonly Kind[]): Record<string, number> {
  const w = { ...start };
  let best = objective(topK(rows, w));
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let moved = false;
    for (const kind of kinds) {
      for (const value of VALUES) {
        if (value === w[kind]) continue;
        const score = objective(topK(rows, { ...w, [kind]: value }));
        if (score > best + 1e-12) {
          best = score;
          w[kind] = value;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  return w;
}

/** `--from`: a JSON object of weights, or a clear refusal */
function parseFrom(text: string): Record<string, number> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, number>;
  } catch {
    // refused below with the flag's name
  }
  throw new Error(`--from takes a JSON object of weights, such as '{"dense":0.5}', got ${JSON.stringify(text.slice(0, 60))}`);
}

const { values } = parseArgs({
  options: {
    issues: { type: 'string', multiple: true, default: [] },
    folds: { type: 'string', default: '6' },
    queries: { type: 'string', default: 'raw+structural' },
    off: { type: 'string', default: '' },
    from: { type: 'string', default: '{}' },
  },
});
if (values.issues!.length === 0) throw new Error('usage: npm run tune:fusion -- --issues DATASET=RECORDINGS … [--folds 6]');
const t0 = performance.now();
const preset = values.queries as QueryPreset;
const off = values.off!.split(',').filter(Boolean);
for (const o of off) if (!CHANNELS.includes(o as Channel)) throw new Error(`--off: no channel "${o}" (${CHANNELS.join(', ')})`);
const tuned = CHANNELS.filter((c) => !off.includes(c));
const rows = (await Promise.all(values.issues!.map((spec) => rowsOf(spec, preset, tuned)))).flat();
// every query's weight is tuned beside the channels' except the raw issue's, which sets the scale
const queryKinds = [...new Set(rows.flatMap((r) => r.channels.map((c) => c.query)))].filter((q) => q !== 'query:raw').sort() as Kind[];
const KINDS: readonly Kind[] = [...tuned, ...queryKinds];
const defaults: Record<string, number> = {
  ...Object.fromEntries(CHANNELS.map((k) => [k, off.includes(k) ? 0 : DEFAULT_RETRIEVAL_OPTIONS.weights[k]])),
  ...Object.fromEntries(queryKinds.map((q) => [q, DEFAULT_RETRIEVAL_OPTIONS.queryWeights[q.slice('query:'.length)] ?? 1])),
  ...parseFrom(values.from!),
};
for (const [k, v] of Object.entries(defaults)) if (!(v >= 0)) throw new Error(`--from: weight ${k} must be a number >= 0, got ${v}`);
const foldOf = repositoryFolds(rows, Number(values.folds));
const folds = Math.max(...foldOf.values()) + 1;
const fmt = (m: { top1: number; top3: number; top5: number }) => `${m.top1.toFixed(3)}/${m.top3.toFixed(3)}/${m.top5.toFixed(3)}`;
console.log(`${rows.length} rows from ${foldOf.size} repositories, ${folds} folds; channels searched in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

// out of fold: each fold ranked by the weights ascent chose on the other folds
const outOfFold = new Map<string, Record<string, number>>();
for (let f = 0; f < folds; f++) {
  const training = rows.filter((r) => foldOf.get(r.repo) !== f);
  const w = coordinateAscent(training, defaults, KINDS);
  console.log(`fold ${f}: ${JSON.stringify(w)}`);
  for (const r of rows) if (foldOf.get(r.repo) === f) outOfFold.set(r.id, w);
}
const sets = [...new Set(rows.map((r) => r.set))];
const oofTop = (subset: readonly Row[]) => {
  const ranks = subset.map((r) => rankUnder(r, outOfFold.get(r.id)!));
  const share = (k: number) => ranks.filter((x) => x !== null && x <= k).length / Math.max(subset.length, 1);
  return { top1: share(1), top3: share(3), top5: share(5) };
};
console.log('\nTop-1/3/5        all rows             ' + sets.join('  '));
console.log(
  `defaults          ${fmt(topK(rows, defaults))}  ${sets
    .map((s) =>
      fmt(
        topK(
          rows.filter((r) => r.set === s),
          defaults,
        ),
      ),
    )
    .join('  ')}`,
);
console.log(`tuned, out of fold ${fmt(oofTop(rows))}  ${sets.map((s) => fmt(oofTop(rows.filter((r) => r.set === s)))).join('  ')}`);
const final = coordinateAscent(rows, defaults, KINDS);
console.log(`\nweights chosen on every row: ${JSON.stringify(final)} (in-sample ${fmt(topK(rows, final))}); ${((performance.now() - t0) / 1000).toFixed(0)} s`);
