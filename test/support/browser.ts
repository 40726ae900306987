/**
 * A real browser for tests of what a person looks at: Debian's headless Chromium driven by puppeteer-core
 * (which downloads nothing). `ensureBrowser()` is for suites that need it: with LOCFIX_REQUIRE_BROWSER=1 (CI)
 * a missing Chromium fails loudly, otherwise the suite is skipped with a message saying how to get it.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string | undefined {
  const configured = process.env.LOCFIX_CHROMIUM;
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export function ensureBrowser(suite: string): boolean {
  if (chromiumPath()) return true;
  const why = `${suite}: no Chromium (apt-get install chromium, or set LOCFIX_CHROMIUM to a Chromium binary)`;
  if (process.env.LOCFIX_REQUIRE_BROWSER === '1') throw new Error(`${why}; LOCFIX_REQUIRE_BROWSER=1 requires it`);
  console.warn(`skipped: ${why}`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's own sandbox cannot start
  return puppeteer.launch({ executablePath: chromiumPath()!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}
