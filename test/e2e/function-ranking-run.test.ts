/**
 * `locfix run` with the model-free function level (`functionLevel: {"localizer": "retrieval"}`): file and function
 * localization run with no model at all, the artifacts are the function level's, and a run that goes on to the
 * line level asks for a model for that stage alone. Real processes, the mini-benchmark's git mirrors and Chroma.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { MINIBENCH_IDS } from './minibench-scripts.ts';
import { startPipelineWorld, stopPipelineWorld } from './pipeline-world.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
const IDS: string[] = Object.values(MINIBENCH_IDS);

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;

beforeAll(async () => {
  ({ dir, bench, chroma } = await startPipelineWorld('function-ranking', IDS));
});

afterAll(() => stopPipelineWorld({ dir, chroma }));

function run(runId: string, stopAfter: string) {
  const file = path.join(dir, `${runId}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      runId,
      runsDir: path.join(dir, 'runs'),
      dataset: bench.datasetPath,
      instances: IDS,
      mirrorsDir: bench.mirrorsDir,
      cacheDir: path.join(dir, 'cache', runId),
      embedder: 'lexical',
      chromaUrl: chroma.url,
      functionLevel: { localizer: 'retrieval', elements: 3 },
      stopAfter,
    }),
  );
  return spawnSync(process.execPath, [BIN, 'run', '--config', file], { encoding: 'utf8', timeout: 240_000 });
}

describe('the function level without a model in `locfix run`', () => {
  it('localizes files and functions with no model configured, writing the function level’s artifacts', () => {
    const result = run('no-model', 'localize-functions');
    expect(result.stderr).not.toMatch(/needs a model|no model/i);
    expect(result.status).toBe(0);
    const folder = path.join(dir, 'runs', 'no-model', 'localize-functions');
    const artifacts = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(path.join(folder, f), 'utf8')));
    expect(artifacts).toHaveLength(IDS.length);
    for (const a of artifacts) {
      expect(a.status).toBe('ok');
      expect(a.output.functionLocalizer).toBe('retrieval');
      expect(a.output.usage.calls).toBe(0);
      expect(a.output.elements.length).toBeLessThanOrEqual(3);
      expect(a.output.ranking.length).toBeGreaterThanOrEqual(a.output.elements.length);
      for (const [file, lines] of Object.entries(a.output.locations as Record<string, string[]>)) {
        expect(file).toMatch(/\.\w+$/);
        for (const line of lines) expect(line).toMatch(/^(function|class): \S+/);
      }
    }
  });

  it('`locfix localize-functions` runs it too, over a run folder’s file rankings, with no model', () => {
    const out = path.join(dir, 'runs', 'stage-command');
    cpSync(path.join(dir, 'runs', 'no-model', 'localize-files'), path.join(out, 'localize-files'), { recursive: true });
    const args = ['localize-functions', '--out', out, '--dataset', bench.datasetPath, '--instances', IDS.join(','), '--mirrors', bench.mirrorsDir];
    const bad = spawnSync(
      process.execPath,
      [BIN, ...args, '--cache-dir', path.join(dir, 'cache', 'stage'), '--stage-options', '{"localizer":"retrieval","maxAttempts":2}'],
      {
        encoding: 'utf8',
      },
    );
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown option\(s\) maxAttempts/);
    const result = spawnSync(
      process.execPath,
      [BIN, ...args, '--cache-dir', path.join(dir, 'cache', 'stage'), '--stage-options', '{"localizer":"retrieval"}'],
      {
        encoding: 'utf8',
        timeout: 240_000,
      },
    );
    expect(result.stderr).toMatch(new RegExp(`${IDS.length} of ${IDS.length} instances ok`));
    expect(result.status).toBe(0);
    const sample = JSON.parse(readFileSync(path.join(out, 'localize-functions', `${IDS[0]}.json`), 'utf8'));
    expect(sample.output.functionLocalizer).toBe('retrieval');
  });

  it('going on to the line level asks for a model for that stage only', () => {
    const result = run('to-lines', 'localize-lines');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/localize-lines/);
    expect(result.stderr).not.toMatch(/localize-functions, localize-lines/);
  });
});
