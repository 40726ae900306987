/// <reference lib="dom" />
/**
 * `locfix view` in a real browser (Debian's headless Chromium through puppeteer-core): the pages over a real
 * pipeline run (the demo, replayed) and a stage folder per localizer kind; navigation, filters and sorting,
 * the instance page of each kind, the static export opened as files, and hostile artifacts whose markup must
 * show as text and never run. The tests read `innerText`, what a person sees with the styles applied (biome.json
 * allows it here).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../app/commands/demo.ts';
import { Catalogue } from '../../app/view/catalogue.ts';
import { exportView, instanceFile } from '../../app/view/export.ts';
import { serveView, type ViewServer } from '../../app/view/server.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { DEMO_RECORDING_DIR } from '../../src/minibench/demo-run.ts';
import { ensureBrowser, launchBrowser } from '../support/browser.ts';
import { runLocfix } from '../support/cli.ts';
import { HOSTILE, writeHostileRun, writeLocalizerRuns } from './fixture-runs.ts';

const hasBrowser = ensureBrowser('run browser');
let dir: string;
let runs: Record<string, string>;
let hostile: { dir: string; id: string };
let server: ViewServer;
let browser: Browser;
let catalogue: Catalogue;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-view-'));
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await demoCommand({
      out: path.join(dir, 'demo'),
      minibench: path.join(dir, 'minibench'),
      cacheDir: path.join(dir, 'cache'),
      recording: DEMO_RECORDING_DIR,
      docker: false,
      fresh: true,
    });
  } finally {
    process.stdout.write = write;
  }
  const rows = (await readFile(path.join(dir, 'demo', 'instances.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SweInstance)
    .filter((r) => r.instance_id === 'minibench__confetti-5' || r.instance_id === 'minibench__qty-7');
  const dataset = path.join(dir, 'rows.jsonl');
  await writeFile(dataset, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  runs = { demo: path.join(dir, 'demo'), ...(await writeLocalizerRuns(dir, dataset, rows)) };
  // the other two kinds of folder: a published run imported (the gold edits as predictions), and a merged one
  const predictions = path.join(dir, 'predictions.jsonl');
  await writeFile(predictions, rows.map((r) => JSON.stringify({ instance_id: r.instance_id, model_patch: r.patch })).join('\n') + '\n');
  runs.imported = path.join(dir, 'imported');
  await cli(['import-run', predictions, '--format', 'predictions', '--label', 'gold-edits', '--dataset', dataset, '--out', runs.imported]);
  // model-free retrieval in two shards (a real Chroma, the demo's mirrors), joined by merge
  const shards = [1, 2].map((i) => path.join(dir, `retrieve-shard-${i}`));
  for (const [i, out] of shards.entries())
    await cli(['retrieve', '--dataset', dataset, '--mirrors', path.join(dir, 'minibench', 'mirrors'), '--shard', `${i + 1}/2`, '--out', out]);
  runs.merged = path.join(dir, 'merged');
  await cli(['merge', '--out', runs.merged, ...shards]);
  hostile = await writeHostileRun(dir, rows[0]!);
  catalogue = await Catalogue.open([...Object.values(runs), hostile.dir]);
  server = await serveView(catalogue);
  if (hasBrowser) browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir && !process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<void> {
  const r = await runLocfix(args, path.join(dir, 'cache'));
  if (r.code !== 0) throw new Error(`locfix ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
}

async function open(url: string): Promise<Page> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  const response = await page.goto(url, { waitUntil: 'load' });
  expect(response?.status(), url).toBe(200);
  expect(errors).toEqual([]);
  return page;
}

const texts = (page: Page, selector: string) => page.$$eval(selector, (els) => els.map((e) => (e as HTMLElement).innerText.trim()));

describe.skipIf(!hasBrowser)('locfix view in a real browser', () => {
  it("runs page → a run's instances → one instance, with every stage or why it has none", { timeout: 120_000 }, async () => {
    const page = await open(`${server.url}/`);
    expect(await texts(page, 'h2 a')).toEqual(['demo', 'blagent-run', 'locagent-run', 'explorer-run', 'oracle-run', 'imported', 'merged', 'hostile-run']);
    // every kind of run folder, said as such
    expect(await texts(page, 'h2 .muted')).toEqual(expect.arrayContaining(['pipeline run', 'stage run', 'imported run', 'merged run']));
    // the demo ran without Docker: its instances are "not evaluated", kept apart from the judged categories
    expect(await page.$eval('section.run', (s) => (s as HTMLElement).innerText)).toMatch(
      /not judged \(work not done: not resolved in the headline until rerun\): not-evaluated \d/,
    );
    await Promise.all([page.waitForNavigation(), page.click('h2 a')]);
    expect(page.url()).toContain('/instances?run=demo');
    expect((await texts(page, 'table.instances tbody tr td:first-child')).sort()).toEqual([
      'minibench__confetti-5',
      'minibench__confetti-9',
      'minibench__qty-12',
      'minibench__qty-7',
      'minibench__urlkit-14',
    ]);
    await Promise.all([page.waitForNavigation(), page.click('table.instances tbody tr td:first-child a')]);
    const headings = await texts(page, 'section.stage h2');
    expect(headings.map((h) => h.replace(/\s+\S+ (ms|s), attempt \d+$/, ''))).toEqual([
      'File localization',
      'Function level',
      'Line level',
      'Repair',
      'Validation',
      'Selected patch',
      'Evaluation',
    ]);
    const body = await page.$eval('main', (m) => (m as HTMLElement).innerText);
    expect(body).toMatch(/not reached: .*Docker/);
    expect(body).toMatch(/\d+ samples, \d+ candidates in \d+ normal forms/);
    // the same instance in the other runs, one click away
    expect(await texts(page, 'section table tbody tr td:first-child a')).toEqual(expect.arrayContaining(['blagent-run', 'explorer-run']));
    // what each arm ranked first, the gold file in bold (the oracle ranks it first)
    expect(await texts(page, 'section table tbody tr td:nth-child(3) b')).toContain('confetti/types.py');
    await page.close();
  });

  it('filters and sorts on the server: a category, a repository, the cost order', { timeout: 60_000 }, async () => {
    const page = await open(`${server.url}/instances`);
    await page.select('select[name="run"]', 'explorer-run');
    await Promise.all([page.waitForNavigation(), page.click('form.filters button')]);
    expect(page.url()).toContain('run=explorer-run');
    // a stage folder: later stages were left out (not reached); an explorer that failed is the instance's own outcome
    const categories = await texts(page, 'table.instances tbody tr td:nth-child(5) .cat');
    expect(categories).toEqual(['not-reached', 'empty-patch']);
    await page.goto(`${server.url}/instances?repo=minibench%2Fqty&sort=cost&desc=1`);
    const repos = await texts(page, 'table.instances tbody tr td:nth-child(4)');
    expect(new Set(repos)).toEqual(new Set(['minibench/qty']));
    const costs = (await texts(page, 'table.instances tbody tr td:nth-child(7)')).map((c) => Number(c.replace('$', '')));
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    await page.close();
  });

  it('renders each localizer kind: ReAct calls, tool calls, the trajectory, a failed agent, the upper bound', { timeout: 60_000 }, async () => {
    const id = 'minibench__confetti-5';
    const text = async (run: string, instance = id) => {
      const page = await open(`${server.url}/runs/${run}/instances/${instance}`);
      const t = await page.$eval('main', (m) => (m as HTMLElement).innerText);
      await page.close();
      return t;
    };
    expect(await text('blagent-run')).toMatch(/react1 blagent\.react · 1200 in \/ 80 out tokens · 420 ms/);
    const locagent = await text('locagent-run');
    expect(locagent).toMatch(/tool search_code_snippets/);
    expect(locagent).toMatch(/^1\s+confetti\/\S+\.py gold/m);
    const explorer = await text('explorer-run');
    expect(explorer).toMatch(/step 1 · 1200 in \/ 80 out tokens/i);
    expect(explorer).toMatch(/agent: 2 steps, 1 commands, 1 reads, stopped: answer/);
    expect(explorer).toMatch(/the localizer's own answer: confetti\/\S+\.py/);
    const failed = await text('explorer-run', 'minibench__qty-7');
    expect(failed).toMatch(/failed \(step-limit\): explorer: the step limit \(2\) was reached/);
    expect(failed).toMatch(/what the agent did before it stopped/);
    expect(await text('oracle-run')).toMatch(/the gold files/);
    // an imported run (the gold edits as predictions) and a merged one open like the others
    expect(await text('imported')).toMatch(/^1\s+confetti\/types\.py gold/m);
    expect(await text('merged', 'minibench__qty-7')).toMatch(/evidence \(per channel\)/);
  });

  it('hostile artifacts show as text and never run', { timeout: 60_000 }, async () => {
    const page = await open(`${server.url}/runs/hostile-run/instances/${hostile.id}`);
    // open every collapsed part, so that anything inside would have had its chance
    await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    await new Promise((r) => setTimeout(r, 300));
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    expect(await page.$$('iframe, img[onerror], style:not(head style)')).toEqual([]);
    const shown = await page.$eval('main', (m) => (m as HTMLElement).innerText);
    for (const text of [HOSTILE.issue, HOSTILE.path, HOSTILE.answer]) expect(shown).toContain(text);
    expect(shown).toContain('<iframe src="javascript:');
    // the server forbids scripts as well, should markup ever slip through
    const response = await fetch(`${server.url}/runs/hostile-run/instances/${hostile.id}`);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    await page.close();
  });

  it('the static export works opened as files: links, filters as pre-made lists, instance pages', { timeout: 120_000 }, async () => {
    const out = path.join(dir, 'export');
    const summary = await exportView(catalogue, out);
    expect(summary.pages).toBeGreaterThan(12);
    const page = await open(`file://${out}/index.html`);
    await Promise.all([page.waitForNavigation(), page.click('nav a[href$="all.html"]')]);
    const links = await page.$$eval('.filters a', (as) => as.map((a) => (a as HTMLAnchorElement).textContent));
    expect(links).toEqual(expect.arrayContaining(['demo', 'explorer-run', 'minibench/qty', 'not-reached']));
    await Promise.all([page.waitForNavigation(), page.click('.filters a[href*="category-not-reached"]')]);
    expect(new Set(await texts(page, 'table.instances tbody tr td:nth-child(5) .cat'))).toEqual(new Set(['not-reached']));
    const first = await page.$eval('table.instances tbody tr td:first-child a', (a) => a.textContent);
    await Promise.all([page.waitForNavigation(), page.click('table.instances tbody tr td:first-child a')]);
    expect(page.url()).toMatch(/\/runs\/[^/]+\/[^/]+\.html$/);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe(first);
    const hostilePage = await open(`file://${out}/${instanceFile('hostile-run', hostile.id)}`);
    expect(await hostilePage.evaluate(() => document.scripts.length)).toBe(0);
    expect(await hostilePage.$eval('main', (m) => (m as HTMLElement).innerText)).toContain(HOSTILE.issue);
    await hostilePage.close();
    await page.close();
  });
});
