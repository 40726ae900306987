/**
 * Tables of a bench:fidelity --execute result file (JSON lines, one per instance): per repository and
 * version, how many rows the gold patch resolves with every listed test passing, how many the no-op
 * patch leaves unresolved, evaluation errors, agreement with published harness runs, and the median ratio
 * of locfix's evaluation-script time to the bare test command's.
 */
import { readFileSync } from 'node:fs';

interface Run {
  completed: boolean;
  resolved: boolean;
  error?: string;
  evalMs?: number;
  f2pPass?: number;
  p2pPass?: number;
  f2pFail?: number;
}

interface Row {
  id: string;
  repo: string;
  version: string;
  error?: string;
  f2p?: number;
  p2p?: number;
  gold?: Run;
  noop?: Run;
  published?: { harnessResolved: boolean; locfixResolved: boolean; compared: number; agree: number; error?: string };
  bare?: { testMs?: number; error?: string };
  imageMs?: number;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function line(label: string, rows: readonly Row[]): string {
  const goldFull = rows.filter((r) => r.gold?.resolved && r.gold.f2pPass === r.f2p && r.gold.p2pPass === r.p2p).length;
  const goldResolved = rows.filter((r) => r.gold?.resolved).length;
  const noopUnresolved = rows.filter((r) => r.noop?.completed && !r.noop.resolved).length;
  const errors = rows.filter((r) => r.error || (r.gold && !r.gold.completed)).length;
  const tests = rows.reduce((n, r) => n + (r.f2p ?? 0) + (r.p2p ?? 0), 0);
  const testsOk = rows.reduce((n, r) => n + (r.gold?.f2pPass ?? 0) + (r.gold?.p2pPass ?? 0), 0);
  const published = rows.filter((r) => r.published);
  const pubCompared = published.reduce((n, r) => n + (r.published?.compared ?? 0), 0);
  const pubAgree = published.reduce((n, r) => n + (r.published?.agree ?? 0), 0);
  const pubVerdicts = published.filter((r) => r.published?.harnessResolved === r.published?.locfixResolved).length;
  const ratios = rows.filter((r) => r.gold?.evalMs && r.bare?.testMs).map((r) => r.gold!.evalMs! / r.bare!.testMs!);
  const ratio = median(ratios);
  const image = median(rows.filter((r) => r.imageMs).map((r) => r.imageMs! / 1000));
  return [
    `| ${label} | ${rows.length} | ${goldResolved} (${goldFull} all tests) | ${testsOk} / ${tests}`,
    `${noopUnresolved} | ${errors}`,
    published.length ? `${pubVerdicts}/${published.length}, ${pubAgree} / ${pubCompared}` : '-',
    ratio === undefined ? '-' : `${ratio.toFixed(2)}×`,
    image === undefined ? '-' : `${image.toFixed(0)} s |`,
  ].join(' | ');
}

export function summarizeFidelity(file: string): string {
  const rows: Row[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim()) continue;
    try {
      rows.push(JSON.parse(text) as Row);
    } catch {
      // a line cut short by an interrupted run: the rest still counts
    }
  }
  const out = [
    '| group | rows | gold resolves | gold: listed tests pass | no-op unresolved | eval errors | published runs: verdicts, tests agree | eval / bare (median) | image build (median) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    line('all', rows),
  ];
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(`${r.repo} ${r.version}`, [...(groups.get(`${r.repo} ${r.version}`) ?? []), r]);
  for (const key of [...groups.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) out.push(line(key, groups.get(key)!));
  const notes = rows
    .filter((r) => r.error || !r.gold?.resolved || r.noop?.resolved || (r.published && r.published.agree !== r.published.compared))
    .map(
      (r) =>
        `- ${r.id}: ${r.error ?? ''}${r.gold && !r.gold.resolved ? ` gold ${r.gold.error ?? `unresolved (${r.gold.f2pPass}/${r.f2p} F2P, ${r.gold.p2pPass}/${r.p2p} P2P pass)`}` : ''}` +
        `${r.noop?.resolved ? ' no-op RESOLVED' : ''}${r.published && r.published.agree !== r.published.compared ? ` published ${r.published.agree}/${r.published.compared}${r.published.error ? ` (${r.published.error})` : ''}` : ''}`,
    );
  return [...out, '', ...notes].join('\n');
}
