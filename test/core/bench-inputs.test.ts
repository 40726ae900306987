/** Benchmarks take their inputs from a flag or the environment, never from a path of one machine. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchDatasets, benchInput } from '../../scripts/bench-inputs.ts';

const saved = { dataset: process.env.LOCFIX_DATASET, mirrors: process.env.LOCFIX_MIRRORS };
afterEach(() => {
  for (const [key, value] of [
    ['LOCFIX_DATASET', saved.dataset],
    ['LOCFIX_MIRRORS', saved.mirrors],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('benchmark inputs', () => {
  it('a flag, else the environment, else an error that says how to give it', () => {
    delete process.env.LOCFIX_MIRRORS;
    delete process.env.LOCFIX_DATASET;
    expect(() => benchInput({}, 'mirrors')).toThrow(
      'this benchmark needs a folder of bare git mirrors laid out as owner+name/repo: pass --mirrors or set LOCFIX_MIRRORS',
    );
    expect(() => benchDatasets(undefined)).toThrow(/pass --dataset \(repeatable\) or set LOCFIX_DATASET/);
    process.env.LOCFIX_MIRRORS = '/m';
    process.env.LOCFIX_DATASET = 'a.jsonl, b.jsonl';
    expect(benchInput({}, 'mirrors')).toBe('/m');
    expect(benchInput({ mirrors: '/given' }, 'mirrors')).toBe('/given');
    expect(benchDatasets(undefined)).toEqual(['a.jsonl', 'b.jsonl']);
    expect(benchDatasets(['c.jsonl'])).toEqual(['c.jsonl']);
  });

  it('no script or source names a path of the machine it was written on', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const offenders: string[] = [];
    for (const dir of ['scripts', 'src', 'results', 'localizer', 'repair', 'validation', 'sandbox']) {
      for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|sh|py)$/.test(entry.name)) continue;
        const file = path.join(entry.parentPath, entry.name);
        if (/['"`]\/work\/(\.mirror|shared)|['"`][./]*\/?shared\/data\//.test(readFileSync(file, 'utf8'))) offenders.push(path.relative(root, file));
      }
    }
    expect(offenders).toEqual([]);
  });
});
