/**
 * `locfix view --export DIR`: the browser's pages as static HTML files that can be zipped and shared. A static
 * page cannot query, so the instance lists are written once per value of each filter (and per run and
 * category, which the runs page links), in pages of PAGE_SIZE; sorting is by instance id. Links are relative,
 * so the folder works from anywhere, opened as files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Catalogue, InstanceQuery } from './catalogue.ts';
import type { Links } from './html.ts';
import { instancePage } from './pages/instance.ts';
import { instancesPage, runsPage } from './pages/lists.ts';
import { STYLE } from './style.ts';

/** A file-name-safe form of a value that keeps distinct values distinct. */
export function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, (ch) => `~${ch.codePointAt(0)!.toString(16)}~`);
}

const FILTER_KEYS = ['run', 'repo', 'category', 'arm', 'tier'] as const;

/** The list file of a filter, relative to the export's root. */
export function listFile(q: InstanceQuery = {}): string {
  const parts = FILTER_KEYS.filter((k) => q[k]).map((k) => `${k}-${slug(q[k]!)}`);
  const page = q.page && q.page > 1 ? `-${q.page}` : '';
  return `instances/${parts.length ? parts.join('.') : 'all'}${page}.html`;
}

export function instanceFile(run: string, id: string): string {
  return `runs/${slug(run)}/${slug(id)}.html`;
}

/** Links from a page `depth` folders below the export's root. */
export function staticLinks(depth: number): Links {
  const up = '../'.repeat(depth);
  return {
    live: false,
    home: () => `${up}index.html`,
    instances: (q) => `${up}${listFile({ ...q, sort: undefined, descending: undefined, text: undefined })}`,
    instance: (run, id) => `${up}${instanceFile(run, id)}`,
    style: () => `${up}style.css`,
  };
}

/** Every filter a static page links to: none, each value of each filter, and each run with each of its categories. */
function exportedQueries(catalogue: Catalogue): InstanceQuery[] {
  const c = catalogue.choices();
  const queries: InstanceQuery[] = [{}];
  for (const run of c.runs) queries.push({ run });
  for (const repo of c.repos) queries.push({ repo });
  for (const category of c.categories) queries.push({ category });
  for (const arm of c.arms) queries.push({ arm });
  for (const tier of c.tiers) queries.push({ tier });
  for (const run of catalogue.runs)
    for (const [category] of [...catalogue.counts(run).judged, ...catalogue.counts(run).notJudged]) queries.push({ run: run.key, category });
  return queries;
}

export interface ExportSummary {
  dir: string;
  pages: number;
}

export async function exportView(catalogue: Catalogue, dir: string, log: (line: string) => void = () => undefined): Promise<ExportSummary> {
  const root = path.resolve(dir);
  let pages = 0;
  const write = async (file: string, content: string) => {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
    pages++;
  };
  await write('style.css', STYLE);
  await write('index.html', runsPage(catalogue, staticLinks(0)));
  for (const q of exportedQueries(catalogue)) {
    const { pages: count } = catalogue.query(q);
    for (let p = 1; p <= count; p++) await write(listFile({ ...q, page: p }), instancesPage(catalogue, staticLinks(1), { ...q, page: p }));
  }
  for (const run of catalogue.runs) {
    for (const instance of run.folder.instances) {
      const detail = await catalogue.instance(run.key, instance.id);
      if (detail) await write(instanceFile(run.key, instance.id), instancePage(detail, staticLinks(2)));
    }
    log(`exported ${run.key}: ${run.folder.instances.length} instance pages`);
  }
  return { dir: root, pages: pages - 1 };
}
