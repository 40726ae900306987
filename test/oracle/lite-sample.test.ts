/**
 * The oracle against hand-checked gold on real rows: one SWE-bench Lite row per repository (the first by id), its
 * gold files read at the base commit from the mirrors (LOCFIX_MIRRORS; the test is skipped without them or without
 * ../shared/data). Each expected answer in test/fixtures/oracle-lite-sample.json was checked by hand against the
 * base file: the function every changed run is in, or the lines of runs outside functions (a setting of django's
 * global_settings.py, matplotlib's new module code before `__getattr__`, class docstrings of scikit-learn's
 * RidgeCV, sympy's new methods inserted between two of CCodePrinter's). `npm run bench:oracle` runs the rules on
 * every row.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { goldLocations } from '../../localizer/oracle/gold-locations.ts';
import { modifiedExistingFiles } from '../../src/patch.ts';
import { RepoStore } from '../../src/repo/store.ts';
import os from 'node:os';

const LITE = path.resolve(import.meta.dirname, '../../../shared/data/swe-bench-lite-full.jsonl');
const MIRRORS = process.env.LOCFIX_MIRRORS;
const EXPECTED = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/oracle-lite-sample.json'), 'utf8')) as Record<
  string,
  Record<string, { locations: string[]; lines: number[][] }>
>;

describe.skipIf(!MIRRORS || !existsSync(LITE))('the oracle on one Lite row per repository (hand-checked)', () => {
  const rows = new Map(
    readFileSync(LITE, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { instance_id: string; repo: string; base_commit: string; patch: string })
      .map((r) => [r.instance_id, r]),
  );

  it('covers every Lite repository', () => {
    expect(new Set(Object.keys(EXPECTED).map((id) => rows.get(id)!.repo))).toEqual(new Set([...rows.values()].map((r) => r.repo)));
  });

  it.each(Object.keys(EXPECTED))('%s', { timeout: 60_000 }, async (id) => {
    const row = rows.get(id)!;
    const store = new RepoStore({ cacheDir: path.join(os.tmpdir(), 'locfix-oracle-sample'), mirrorsDir: MIRRORS, allowClone: false });
    try {
      const snapshot = await store.snapshot(row.repo, row.base_commit);
      const sources = await snapshot.readFiles(modifiedExistingFiles(row.patch));
      const gold = goldLocations(row.patch, (p) => sources.get(p));
      const got = Object.fromEntries(gold.files.map((f) => [f.path, { locations: f.locations, lines: f.lines.map((r) => [r.start, r.end]) }]));
      expect(got).toEqual(EXPECTED[id]);
      expect(gold.unplaced).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
