/**
 * What the run browser shows, read once when it starts: every run folder given (any kind: `openRunFolder`
 * reads them all), its failure analysis (the one `locfix analyze` makes), and one row per instance and run for
 * the instance table. An instance's stage artifacts are read only when its page is asked for, so a run of
 * thousands of instances costs one analysis at start and one instance's files per page.
 */
import { existsSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { FAILURE_CATEGORIES, NOT_JUDGED, type FailureCategory, type InstanceAnalysis } from '../../results/failure-analysis.ts';
import { CAUSE_LABEL } from '../../results/ladder-report.ts';
import type { LadderCause } from '../../results/ladder.ts';
import { openRunFolder, type RunFolder, type RunInstance } from '../../results/run-folder.ts';
import { analyzeRun, loadInstanceArtifacts, type InstanceArtifacts, type RunAnalysis } from '../../results/run-analysis.ts';
import { rankedPathsOf } from '../../src/artifacts/localization.ts';
import { STAGE } from '../../src/run/stage.ts';
import { readJsonIfExists, safeFileName } from '../../src/util/fsx.ts';
import { confinedPath, readConfinedFile } from '../../src/run/confinement.ts';

export interface ViewRun {
  /** unique among the runs shown, safe in a URL: the folder's name (with -2, -3 … when two share one) */
  key: string;
  folder: RunFolder;
  analysis: RunAnalysis;
  /** what produced it, for a person: the localizer, and the model when there is one */
  arm: string;
}

export interface InstanceRow {
  run: string;
  arm: string;
  id: string;
  repo: string;
  category: FailureCategory;
  resolved: boolean;
  /** the cascade tier whose answer went downstream (cascade runs) */
  tier?: string;
  cost: number;
  tokens: number;
  /** why the category was assigned, in a line */
  why?: string;
}

export type SortKey = 'id' | 'repo' | 'category' | 'arm' | 'tier' | 'cost' | 'run';
export const SORT_KEYS: readonly SortKey[] = ['id', 'repo', 'category', 'arm', 'tier', 'cost', 'run'];

export interface InstanceQuery {
  run?: string;
  repo?: string;
  category?: string;
  arm?: string;
  tier?: string;
  /** a part of the instance id */
  text?: string;
  sort?: SortKey;
  descending?: boolean;
  page?: number;
}

export interface InstancePage {
  rows: InstanceRow[];
  total: number;
  page: number;
  pages: number;
  pageSize: number;
}

/** One instance of one run, everything its page shows. */
export interface InstanceDetail {
  run: ViewRun;
  instance: RunInstance;
  analysis?: InstanceAnalysis;
  artifacts: InstanceArtifacts;
  /** the harness files of its evaluation (report.json, the test log), when the run has them */
  evaluation: { report?: string; testOutput?: string; error?: string };
  /** the same instance in every run shown, this one first (to put arms side by side), with what each ranked first */
  side: Array<InstanceRow & { ranked?: string[] }>;
}

/** how many of each arm's ranked files the side-by-side table shows */
export const SIDE_RANKED = 3;

export const PAGE_SIZE = 100;
/** the part of a harness log a page shows at once; the rest is a link away */
export const LOG_LIMIT = 200_000;

function armOf(folder: RunFolder, analysis: RunAnalysis): string {
  const model = analysis.model ?? folder.arm.model;
  return model ? `${folder.arm.localizer} · ${model}` : folder.arm.localizer;
}

/**
 * What decided an instance's category, in a line (the analysis' reason, or the rule of its category), with the
 * evaluation logs' infrastructure label (harness 5.0's tiers) where they show one.
 */
export function whyOf(a: InstanceAnalysis): string | undefined {
  const notes = [
    categoryReason(a),
    a.infraFailure ? `evaluation logs show an infrastructure fault (${a.infraFailure.tier}: ${a.infraFailure.reason})` : undefined,
    a.knownGoldFailure ? `the dataset's own gold patch does not resolve it (${a.knownGoldFailure})` : undefined,
    a.flagged ? 'resolved (flagged): the patch holds lines that talk past the test runner (runner_audit in its report.json)' : undefined,
    ladderNote(a),
  ].filter((note): note is string => note !== undefined);
  return notes.length ? notes.join('; ') : undefined;
}

/** The counterfactual ladder's cause, when a ladder ran this run as its as-run rung (results/ladder.ts). */
function ladderNote(a: InstanceAnalysis): string | undefined {
  const l = a.ladder;
  if (!l || l.cause === 'resolved') return undefined;
  const detail = l.detail ? `: ${l.detail}` : '';
  if (l.cause === 'beyond-localization') return `ladder: perfect localization at every level does not resolve it (beyond localization${detail})`;
  if (l.cause === 'not-judged') return `ladder: not judged${detail}`;
  const label = CAUSE_LABEL[l.cause as LadderCause] ?? l.cause;
  return `ladder: caused by ${label}${l.decidedAt ? ` (first resolved at ${l.decidedAt})` : ''}${l.onOneSample ? ', on one sample' : ''}`;
}

function categoryReason(a: InstanceAnalysis): string | undefined {
  const recorded = a.notJudged ?? a.evaluationError ?? a.budgetExhausted ?? a.emptyReason;
  if (recorded) return recorded.split('\n')[0];
  switch (a.category) {
    case 'file':
      return 'no gold file among the files handed on';
    case 'function':
      return 'the gold files were handed on, but the chosen functions miss the gold ones';
    case 'line':
      return `the patch's first changed line is not the gold one (${a.line?.rule ?? 'no line'})`;
    case 'patch-generation':
      return 'localized at every level, but the patch does not resolve the issue';
    default:
      return undefined;
  }
}

export class Catalogue {
  readonly rows: InstanceRow[];
  private readonly byRun = new Map<string, ViewRun>();
  private readonly byInstance = new Map<string, InstanceRow[]>();
  /** each run's instances and analyses by id: a page is found in constant time, so an export is linear in its pages */
  private readonly instanceOf = new Map<string, Map<string, { instance: RunInstance; analysis?: InstanceAnalysis }>>();

  private constructor(readonly runs: ViewRun[]) {
    for (const run of runs) {
      this.byRun.set(run.key, run);
      const analyses = new Map(run.analysis.instances.map((a) => [a.instanceId, a]));
      this.instanceOf.set(run.key, new Map(run.folder.instances.map((i) => [i.id, { instance: i, analysis: analyses.get(i.id) }])));
    }
    this.rows = runs.flatMap((run) => {
      const repoOf = new Map(run.folder.instances.map((i) => [i.id, i.repo]));
      return run.analysis.instances.map((a) => ({
        run: run.key,
        arm: run.arm,
        id: a.instanceId,
        repo: repoOf.get(a.instanceId) ?? a.repo,
        category: a.category,
        resolved: a.category === 'resolved',
        ...(a.cascadeTier ? { tier: a.cascadeTier } : {}),
        cost: a.spent?.cost ?? 0,
        tokens: (a.spent?.promptTokens ?? 0) + (a.spent?.completionTokens ?? 0),
        ...(whyOf(a) ? { why: whyOf(a) } : {}),
      }));
    });
    for (const row of this.rows) {
      const list = this.byInstance.get(row.id) ?? [];
      list.push(row);
      this.byInstance.set(row.id, list);
    }
  }

  /** Opens and analyses every folder; a folder that cannot be read stops the browser with its reason. */
  static async open(dirs: readonly string[]): Promise<Catalogue> {
    if (dirs.length === 0) throw new Error('name at least one run folder');
    const runs: ViewRun[] = [];
    const taken = new Set<string>();
    for (const dir of dirs) {
      const folder = await openRunFolder(dir);
      const analysis = await analyzeRun(folder);
      const base = folder.id.replace(/[^A-Za-z0-9._-]/g, '_') || 'run';
      let key = base;
      for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
      taken.add(key);
      runs.push({ key, folder, analysis, arm: armOf(folder, analysis) });
    }
    return new Catalogue(runs);
  }

  run(key: string): ViewRun | undefined {
    return this.byRun.get(key);
  }

  /** The values a filter can take, for the filter form (every list page shows it: made once, the rows never change). */
  choices(): { runs: string[]; repos: string[]; categories: string[]; arms: string[]; tiers: string[] } {
    this.choiceList ??= this.makeChoices();
    return this.choiceList;
  }

  private choiceList?: ReturnType<Catalogue['makeChoices']>;

  private makeChoices(): { runs: string[]; repos: string[]; categories: string[]; arms: string[]; tiers: string[] } {
    const distinct = (pick: (r: InstanceRow) => string | undefined) => [...new Set(this.rows.map(pick).filter((v): v is string => Boolean(v)))].sort();
    return {
      runs: this.runs.map((r) => r.key),
      repos: distinct((r) => r.repo),
      categories: FAILURE_CATEGORIES.filter((c) => this.rows.some((r) => r.category === c)),
      arms: distinct((r) => r.arm),
      tiers: distinct((r) => r.tier),
    };
  }

  /**
   * One page of the instance table, filtered and sorted on the server. The sorted rows of the last few filters are
   * kept, so the pages of one filter (the export writes them all) cost one sort, not one each.
   */
  query(q: InstanceQuery): InstancePage {
    const key = JSON.stringify([q.run, q.repo, q.category, q.arm, q.tier, q.text?.trim().toLowerCase(), q.sort ?? 'id', Boolean(q.descending)]);
    let sorted = this.sortedRows.get(key);
    if (!sorted) {
      sorted = this.filterAndSort(q);
      this.sortedRows.set(key, sorted);
    }
    const pages = Math.max(1, Math.ceil(sorted.length / PAGE_SIZE));
    const page = Math.min(Math.max(1, Math.floor(q.page ?? 1)), pages);
    return { rows: sorted.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), total: sorted.length, page, pages, pageSize: PAGE_SIZE };
  }

  private readonly sortedRows = new LRUCache<string, InstanceRow[]>({ max: 16 });

  private filterAndSort(q: InstanceQuery): InstanceRow[] {
    const text = q.text?.trim().toLowerCase();
    const rows = this.rows.filter(
      (r) =>
        (!q.run || r.run === q.run) &&
        (!q.repo || r.repo === q.repo) &&
        (!q.category || r.category === q.category) &&
        (!q.arm || r.arm === q.arm) &&
        (!q.tier || r.tier === q.tier) &&
        (!text || r.id.toLowerCase().includes(text)),
    );
    const sort = q.sort ?? 'id';
    const order = (r: InstanceRow): string | number =>
      sort === 'cost' ? r.cost : sort === 'category' ? FAILURE_CATEGORIES.indexOf(r.category) : (r[sort] ?? '');
    const sign = q.descending ? -1 : 1;
    return [...rows].sort((a, b) => {
      const x = order(a);
      const y = order(b);
      return (x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : a.run < b.run ? -1 : 1) * sign;
    });
  }

  /** Counts by category of one run, with "not judged" apart (work that did not happen is no failure). */
  counts(run: ViewRun): { judged: Array<[FailureCategory, number]>; notJudged: Array<[FailureCategory, number]> } {
    const c = run.analysis.report.failures.categories;
    const present = FAILURE_CATEGORIES.filter((k) => c[k].count > 0);
    return {
      judged: present.filter((k) => !NOT_JUDGED.has(k)).map((k) => [k, c[k].count]),
      notJudged: present.filter((k) => NOT_JUDGED.has(k)).map((k) => [k, c[k].count]),
    };
  }

  /** Everything one instance's page shows; undefined when the run or the instance is not there. */
  async instance(runKey: string, id: string): Promise<InstanceDetail | undefined> {
    const run = this.byRun.get(runKey);
    const found = this.instanceOf.get(runKey)?.get(id);
    if (!run || !found) return undefined;
    const { instance, analysis } = found;
    const artifacts = await loadInstanceArtifacts(run.folder.layout, id, run.folder.fileStage ?? STAGE.files);
    return {
      run,
      instance,
      analysis,
      artifacts,
      evaluation: await evaluationFiles(run.folder, id),
      side: await Promise.all(
        [...(this.byInstance.get(id) ?? [])]
          .sort((a, b) => (a.run === runKey ? -1 : b.run === runKey ? 1 : 0))
          .map(async (row) => ({ ...row, ranked: await this.rankedOf(row.run, id) })),
      ),
    };
  }

  private async rankedOf(runKey: string, id: string): Promise<string[] | undefined> {
    const folder = this.byRun.get(runKey)?.folder;
    if (!folder?.fileStage) return undefined;
    const artifact = await readJsonIfExists(folder.layout.artifactPath(folder.fileStage, id)).catch(() => undefined);
    return rankedPathsOf(artifact)?.slice(0, SIDE_RANKED);
  }
}

/** The harness' files of an instance's evaluation; a log longer than LOG_LIMIT is cut to its end, which holds the tests. */
async function evaluationFiles(folder: RunFolder, id: string): Promise<InstanceDetail['evaluation']> {
  // the log folder is named as evaluation names it, and every read stays inside the run folder
  const logs = ['evaluation', safeFileName(id)];
  if (!existsSync(confinedPath(folder.dir, ...logs))) return {};
  const read = (name: string) => readConfinedFile(folder.dir, ...logs, name);
  const [report, testOutput, error] = await Promise.all([read('report.json'), read('test_output.txt'), read('evaluation_error.json')]);
  const cut =
    testOutput && testOutput.length > LOG_LIMIT ? `[… ${testOutput.length - LOG_LIMIT} characters before this …]\n${testOutput.slice(-LOG_LIMIT)}` : testOutput;
  return { ...(report ? { report } : {}), ...(cut ? { testOutput: cut } : {}), ...(error ? { error } : {}) };
}
