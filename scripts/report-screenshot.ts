/**
 * The README's report picture: a report.html photographed in headless Chromium (Debian's, through puppeteer-core),
 * its first screen at a reader's width.
 *
 *   node --import tsx scripts/report-screenshot.ts REPORT.html [--out docs/report-example.png]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string', default: path.join('docs', 'report-example.png') }, chromium: { type: 'string', default: '/usr/bin/chromium' } },
});
if (positionals.length !== 1) throw new Error('usage: node --import tsx scripts/report-screenshot.ts REPORT.html [--out FILE]');
const browser = await puppeteer.launch({ executablePath: values.chromium, headless: true, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  // the top of the report: the outcomes, the localization table and the costs, where a reader starts
  await page.setViewport({ width: 1200, height: 1500 });
  await page.goto(pathToFileURL(path.resolve(positionals[0]!)).href, { waitUntil: 'load' });
  await page.screenshot({ path: values.out! });
  console.log(`${values.out}: ${positionals[0]}`);
} finally {
  await browser.close();
}
