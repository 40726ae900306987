/**
 * The older forms locfix reads (src/util/legacy.ts): the manifest's format number and its upgrade, and that an
 * older spelling read from an artifact is not a name a live error may use.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunFolder } from '../../results/run-folder.ts';
import { INSTANCES_FILE, openManifest, readManifest } from '../../src/run/manifest.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { toStageError } from '../../src/run/stage-runner.ts';
import { currentKind, currentManifest, MANIFEST_FORMAT } from '../../src/util/legacy.ts';
import { stubRow } from '../support/rows.ts';

const dirs: string[] = [];
function runDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'locfix-legacy-'));
  dirs.push(dir);
  return path.join(dir, 'run-1');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A manifest as locfix wrote it before issue 54 (no format) with a config from before issue 43 (`docker`). */
const FORMAT_1 = {
  runId: 'run-1',
  locfixVersion: '0.1.0',
  node: 'v20.0.0',
  host: { platform: 'linux', cpus: 2, memoryGiB: 4 },
  config: { runId: 'run-1', docker: { image: 'x' }, concurrency: { docker: 3, instances: 2 } },
  models: { embedder: 'hash' },
  seed: 0,
  localizer: 'retrieval',
  instances: ['a__b-1'],
  createdAt: '2026-01-01T00:00:00.000Z',
  invocations: [{ startedAt: '2026-01-01T00:00:00.000Z', argv: [] }],
};

describe('the manifest format', () => {
  it('a format-1 manifest reads as today’s: config keys renamed, the format number set', () => {
    const m = currentManifest(FORMAT_1);
    expect(m.format).toBe(MANIFEST_FORMAT);
    expect(m.config).toEqual({ runId: 'run-1', sandbox: { image: 'x' }, concurrency: { sandboxes: 3, instances: 2 } });
    expect(FORMAT_1.config).toHaveProperty('docker'); // the stored value is not changed in place
  });

  it('a current manifest is returned as stored', () => {
    const stored = { ...FORMAT_1, config: { runId: 'run-1' }, format: MANIFEST_FORMAT };
    expect(currentManifest(stored)).toBe(stored);
  });

  it('a newer format, a format that is no number and a non-object are refused with the reason', () => {
    expect(() => currentManifest({ ...FORMAT_1, format: MANIFEST_FORMAT + 1 }, 'm.json')).toThrow(/newer locfix.*update locfix/);
    expect(() => currentManifest({ ...FORMAT_1, format: 'two' }, 'm.json')).toThrow(/"two" is not a manifest format/);
    expect(() => currentManifest([1, 2], 'm.json')).toThrow(/not a run manifest/);
  });

  it('a new run writes the format; resuming a format-1 run upgrades its manifest', async () => {
    const fresh = new RunLayout(runDir());
    await openManifest(fresh, { runId: 'run-1', config: {}, models: { embedder: 'hash' }, seed: 0, localizer: 'retrieval', instances: [] });
    expect(JSON.parse(readFileSync(fresh.manifestPath, 'utf8')).format).toBe(MANIFEST_FORMAT);

    const old = new RunLayout(runDir());
    mkdirSync(old.root, { recursive: true });
    writeFileSync(old.manifestPath, JSON.stringify(FORMAT_1));
    await openManifest(old, { runId: 'run-1', config: {}, models: { embedder: 'hash' }, seed: 0, localizer: 'retrieval', instances: [] });
    const resumed = JSON.parse(readFileSync(old.manifestPath, 'utf8'));
    expect(resumed.format).toBe(MANIFEST_FORMAT);
    expect(resumed.config.sandbox).toEqual({ image: 'x' });
    expect(resumed.invocations).toHaveLength(2);
  });

  it('a run folder from a newer locfix is refused by the analysis with the reason, not misread', async () => {
    const layout = new RunLayout(runDir());
    mkdirSync(layout.root, { recursive: true });
    writeFileSync(layout.manifestPath, JSON.stringify({ ...FORMAT_1, format: 99 }));
    writeFileSync(layout.file(INSTANCES_FILE), `${JSON.stringify(stubRow('a__b-1'))}\n`);
    await expect(openRunFolder(layout.root)).rejects.toThrow(/format 99 was written by a newer locfix/);
    await expect(readManifest(layout)).rejects.toThrow(/newer locfix/);
  });
});

describe('older spellings', () => {
  it('an artifact’s older kind reads in today’s spelling', () => {
    expect(currentKind('budget_exhausted')).toBe('budget-exhausted');
    expect(currentKind('timeout')).toBe('timeout');
  });

  it('a live error that names an older spelling does not choose its kind by it (a server’s code is not a cause)', () => {
    const fromServer = Object.assign(new Error('over quota'), { kind: 'budget_exhausted' });
    expect(toStageError(fromServer).kind).toBeUndefined();
  });
});
