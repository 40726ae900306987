/**
 * The explorer study's runner metrics (§5.1–5.2), for any localizer's run.
 *
 * Rows and denominators follow the study:
 *
 * - attempted: instances with a recorded artifact, ok or error.
 * - missing-label: attempted rows with no gold file; they are left out of scoring.
 * - scored: attempted rows with gold files. Every one of them is in the denominators of Hit@k, MRR, R@3,
 *   macro F1 and exact match. An error row scores as an empty prediction, with zero credit.
 * - ErrorRate = error rows / attempted. An error row is one without a valid final prediction: a timeout, a
 *   malformed answer twice, a budget spent, a crash.
 * - NonEmptyRate = scored rows with a non-empty prediction / scored.
 *
 * F1 and exact match score the deduplicated predicted set with no cap afterwards. That set is the
 * localizer's own final answer when it emits one (`predicted`; the explorer). Otherwise it is the first
 * `handoffFiles` of the ranking, the files handed downstream. A predicted path that does not exist stays,
 * and counts as a false positive.
 *
 * Operational means are over attempted rows: steps, reads and shell commands (rows that report agent
 * stats), and agent time, the per-attempt wall clock including timeouts. Tokens are averaged only over
 * rows that recorded usage.
 *
 * Selected instances that were never attempted (an unfinished run, or one a failing server stopped) are counted
 * in `notAttempted` and scored with zero credit, unlike the study (which scores recorded rows only): one denominator
 * with the resolved rate and eval-loc's headline (issue 52), so the caller says the run is incomplete.
 */
import { rankedPathsOf, type AgentRunStats, type FileLocalization } from '../src/artifacts/localization.ts';
import type { StageArtifact } from '../src/run/stage-runner.ts';
import { exactMatch, hitAt, recallAt, reciprocalRank, setF1 } from './instance-metrics.ts';

export interface RunnerRow {
  instanceId: string;
  gold: readonly string[];
  status: 'ok' | 'error' | 'missing';
  ranking?: readonly string[];
  predicted?: readonly string[];
  errorKind?: string;
  agent?: Partial<AgentRunStats>;
  usage?: { promptTokens: number; completionTokens: number; calls?: number };
  durationMs?: number;
}

export interface RunnerMetrics {
  selected: number;
  attempted: number;
  notAttempted: number;
  missingLabel: number;
  scored: number;
  errors: number;
  errorRate: number;
  nonEmptyRate: number;
  errorKinds: Record<string, number>;
  hit1: number;
  hit3: number;
  hit5: number;
  mrr: number;
  r3: number;
  f1: number;
  exactMatch: number;
  /** means over attempted rows that report them (n says how many) */
  steps: { mean: number; n: number };
  reads: { mean: number; n: number };
  commands: { mean: number; n: number };
  agentSeconds: { mean: number; n: number };
  tokens: { input: number; output: number; total: number; n: number };
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const stat = (xs: readonly number[]) => ({ mean: mean(xs), n: xs.length });

/** The rows' predicted set: the localizer's own answer, else the handed-down head of its ranking. */
export function predictedSet(row: Pick<RunnerRow, 'status' | 'ranking' | 'predicted'>, handoffFiles = 3): string[] {
  if (row.status !== 'ok') return [];
  return [...new Set(row.predicted ?? (row.ranking ?? []).slice(0, handoffFiles))];
}

export function computeRunnerMetrics(rows: readonly RunnerRow[], handoffFiles = 3): RunnerMetrics {
  const attempted = rows.filter((r) => r.status !== 'missing');
  // every selected row with a label is scored, a row never attempted as an empty prediction: the quality metrics
  // share eval-loc's and the report's denominator, so a localizer that is never run on the hard rows gains nothing
  const scored = rows.filter((r) => r.gold.length > 0);
  const errors = attempted.filter((r) => r.status === 'error');
  const errorKinds: Record<string, number> = {};
  for (const e of errors) errorKinds[e.errorKind ?? 'error'] = (errorKinds[e.errorKind ?? 'error'] ?? 0) + 1;
  const quality = scored.map((r) => {
    const ranking = r.status === 'ok' ? (r.ranking ?? []) : [];
    const gold = new Set(r.gold);
    const set = predictedSet(r, handoffFiles);
    return {
      hit1: hitAt(ranking, gold, 1),
      hit3: hitAt(ranking, gold, 3),
      hit5: hitAt(ranking, gold, 5),
      mrr: reciprocalRank(ranking, gold),
      r3: recallAt(ranking, gold, 3),
      f1: setF1(set, gold),
      exactMatch: exactMatch(set, gold),
      nonEmpty: set.length > 0 ? 1 : 0,
    };
  });
  const q = (k: keyof (typeof quality)[number]) => mean(quality.map((x) => x[k]));
  const withUsage = attempted.filter((r) => (r.usage?.calls ?? 0) > 0 || (r.usage?.promptTokens ?? 0) > 0);
  const num = (xs: Array<number | undefined>) => xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return {
    selected: rows.length,
    attempted: attempted.length,
    notAttempted: rows.length - attempted.length,
    missingLabel: rows.length - scored.length,
    scored: scored.length,
    errors: errors.length,
    errorRate: attempted.length ? errors.length / attempted.length : 0,
    nonEmptyRate: q('nonEmpty'),
    errorKinds,
    hit1: q('hit1'),
    hit3: q('hit3'),
    hit5: q('hit5'),
    mrr: q('mrr'),
    r3: q('r3'),
    f1: q('f1'),
    exactMatch: q('exactMatch'),
    steps: stat(num(attempted.map((r) => r.agent?.steps ?? (r.usage?.calls || undefined)))),
    reads: stat(num(attempted.map((r) => r.agent?.reads))),
    commands: stat(num(attempted.map((r) => r.agent?.commands))),
    agentSeconds: stat(num(attempted.map((r) => (r.agent?.elapsedMs ?? r.durationMs ?? Number.NaN) / 1000))),
    tokens: {
      input: mean(withUsage.map((r) => r.usage!.promptTokens)),
      output: mean(withUsage.map((r) => r.usage!.completionTokens)),
      total: mean(withUsage.map((r) => r.usage!.promptTokens + r.usage!.completionTokens)),
      n: withUsage.length,
    },
  };
}

export function formatRunnerMetrics(label: string, m: RunnerMetrics): string {
  // no rate over nothing: a run with no scored row (or none attempted) shows "—", never 0.000
  const f = (x: number, over = m.scored) => (over > 0 ? x.toFixed(3) : '—');
  const kinds = Object.entries(m.errorKinds)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `runner metrics — ${label}`,
    `  rows: attempted ${m.attempted}, missing-label ${m.missingLabel}, scored ${m.scored}, errors ${m.errors}${kinds ? ` (${kinds})` : ''}${m.notAttempted ? `, NOT attempted ${m.notAttempted} (run incomplete: scored as misses)` : ''}`,
    `  ErrorRate ${f(m.errorRate, m.attempted)}  NonEmptyRate ${f(m.nonEmptyRate)}`,
    `  Hit@1 ${f(m.hit1)}  Hit@3 ${f(m.hit3)}  Hit@5 ${f(m.hit5)}  MRR ${f(m.mrr)}  R@3 ${f(m.r3)}  F1 ${f(m.f1)}  EM ${f(m.exactMatch)}`,
    `  mean steps ${m.steps.mean.toFixed(1)} (n ${m.steps.n})  reads ${m.reads.mean.toFixed(1)} (n ${m.reads.n})  commands ${m.commands.mean.toFixed(1)} (n ${m.commands.n})  agent time ${m.agentSeconds.mean.toFixed(1)} s`,
    `  tokens per instance (n ${m.tokens.n} with usage): input ${Math.round(m.tokens.input)}  output ${Math.round(m.tokens.output)}  total ${Math.round(m.tokens.total)}`,
  ].join('\n');
}

/** One artifact as the runner metrics see it (ok: output; error: what the error's details recorded). */
export function runnerRow(instanceId: string, gold: readonly string[], artifact: unknown): RunnerRow {
  const a = artifact as Partial<StageArtifact<FileLocalization>> | undefined;
  if (!a || (a.status !== 'ok' && a.status !== 'error')) return { instanceId, gold, status: 'missing' };
  const base = { instanceId, gold, ...(typeof a.durationMs === 'number' ? { durationMs: a.durationMs } : {}) };
  if (a.status === 'error') {
    const d = (a.error?.details ?? {}) as { agent?: RunnerRow['agent']; usage?: RunnerRow['usage'] };
    return {
      ...base,
      status: 'error',
      ...(a.error?.kind ? { errorKind: a.error.kind } : {}),
      ...(d.agent ? { agent: d.agent } : {}),
      ...(d.usage ? { usage: d.usage } : {}),
    };
  }
  const ranking = rankedPathsOf(a);
  return {
    ...base,
    status: ranking ? 'ok' : 'error',
    ...(ranking ? { ranking } : { errorKind: 'unreadable-output' }),
    ...(Array.isArray(a.output?.predicted) ? { predicted: a.output.predicted } : {}),
    ...(a.output?.agent ? { agent: a.output.agent } : {}),
    ...(a.output?.usage ? { usage: a.output.usage } : {}),
  };
}
