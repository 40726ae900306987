/**
 * The screenshots of `locfix view` in docs/: serves the given runs and photographs the runs page, the instance
 * table and one instance page in headless Chromium (Debian's, through puppeteer-core).
 *
 *   node --import tsx scripts/view-screenshots.ts --instance RUN/ID RUN...      (writes docs/view-*.png)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';
import { Catalogue } from '../app/view/catalogue.ts';
import { serveView } from '../app/view/server.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { instance: { type: 'string' }, out: { type: 'string', default: 'docs' }, chromium: { type: 'string', default: '/usr/bin/chromium' } },
});
if (!positionals.length || !values.instance) throw new Error('usage: node --import tsx scripts/view-screenshots.ts --instance RUN/ID RUN...');
const [run, id] = values.instance.split('/') as [string, string];

const server = await serveView(await Catalogue.open(positionals));
const browser = await puppeteer.launch({ executablePath: values.chromium, headless: true, args: ['--no-sandbox'] });
try {
  const shots: Array<[string, string, number]> = [
    ['view-runs.png', '/', 700],
    ['view-instances.png', '/instances?sort=category', 700],
    ['view-instance.png', `/runs/${encodeURIComponent(run)}/instances/${encodeURIComponent(id)}#repair`, 1100],
  ];
  for (const [file, route, height] of shots) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height });
    await page.goto(`${server.url}${route}`, { waitUntil: 'load' });
    await page.screenshot({ path: path.join(values.out!, file) });
    console.log(`${file}: ${route}`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
