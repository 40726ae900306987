/**
 * End to end: `locfix retrieve` + `locfix eval-loc` on the bundled mini-benchmark, with a real Chroma
 * server, real git mirrors and real tree-sitter parsing; then resume, and a failing instance.
 */
import { issueQueryText, titleQuery } from '../../localizer/retrieval/query.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import type { EvidenceChunk, QueryRanking } from '../../localizer/retrieval/retriever.ts';

const exec = promisify(execFile);
// a cold index of three projects plus a Chroma round trip: seconds on an idle machine, minutes on a busy one
const SLOW = 600_000;
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;

function locfix(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  // a process that does not exit is a failure, not a test that waits forever
  return exec(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOCFIX_CACHE_DIR: path.join(dir, 'cache') },
    maxBuffer: 1 << 24,
    timeout: SLOW - 60_000,
  })
    .then((r) => ({ ...r, code: 0 }))
    .catch((e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }));
}

function retrieveArgs(dataset: string, out: string, extra: string[] = []): string[] {
  return [
    'retrieve',
    '--dataset',
    dataset,
    '--mirrors',
    bench.mirrorsDir,
    '--chroma-url',
    chroma.url,
    '--cache-dir',
    path.join(dir, 'cache'),
    '--out',
    out,
    ...extra,
  ];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-retrieve-e2e-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  chroma = await startChromaServer({ dataDir: path.join(dir, 'chroma'), reuse: false });
});

afterAll(async () => {
  await chroma?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('locfix retrieve on the mini-benchmark', () => {
  it(
    'writes one artifact per instance with ranking, evidence and timings; eval-loc scores it',
    async () => {
      const run = path.join(dir, 'runs', 'r1');
      const res = await locfix(retrieveArgs(bench.datasetPath, run));
      expect(res.code, res.stderr).toBe(0);
      const layout = new RunLayout(run);
      for (const inst of bench.instances) {
        const artifact = JSON.parse(await readFile(layout.artifactPath('retrieve', inst.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
        expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
        const out = artifact.output!;
        // the one file-localization shape every localizer writes
        expect(out.localizer).toBe('retrieval');
        expect(out.files.length).toBeGreaterThan(0);
        const pool = (out.trace[0] as { data: { pool: string[] } }).data.pool;
        expect(pool.length).toBeLessThanOrEqual(15);
        // the default queries: the issue, its structural signals, and its title when its first line reads like one
        const title = titleQuery(issueQueryText(inst.problem_statement)) ? ['title'] : [];
        expect((out.details!.perQuery as QueryRanking[]).map((q) => q.label)).toEqual(['raw', 'structural', ...title]);
        expect(out.details!.base_commit).toBe(inst.base_commit);
        expect(out.timingsMs.index).toBeGreaterThanOrEqual(0);
        const withChunks = out.files.find((r) => (r.evidence!.chunks as EvidenceChunk[]).length > 0)!;
        const chunk = (withChunks.evidence!.chunks as EvidenceChunk[])[0];
        expect(chunk.startLine).toBeGreaterThanOrEqual(1);
        expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
        // ranked files are real files of the repository at the base commit; tests are filtered out
        for (const r of out.files) expect(r.path).not.toMatch(/(^|\/)tests?\//);
      }
      const evalRes = await locfix(['eval-loc', run, '--json']);
      expect(evalRes.code, evalRes.stderr).toBe(0);
      const metrics = JSON.parse(evalRes.stdout.trim());
      expect(metrics.n).toBe(bench.instances.length);
      // most issues are findable from their text (some are written to mislead: the obvious file is wrong)
      expect(metrics.top10).toBeGreaterThanOrEqual(0.75);
      expect(metrics.mrr).toBeGreaterThan(0.5);
      // a traceback names the failing frames: the structural signals must put the gold file first
      for (const info of bench.catalog.filter((c) => c.kinds.includes('traceback'))) {
        const artifact = JSON.parse(await readFile(layout.artifactPath('retrieve', info.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
        expect(info.goldFiles, info.instance_id).toContain(artifact.output!.files[0].path);
      }
    },
    SLOW,
  );

  it(
    'resumes: existing artifacts are kept, missing and truncated ones recomputed, and the process exits',
    async () => {
      const run = path.join(dir, 'runs', 'r1');
      const layout = new RunLayout(run);
      const [first, second, third] = bench.instances;
      const keptBefore = (await stat(layout.artifactPath('retrieve', first.instance_id))).mtimeMs;
      await rm(layout.artifactPath('retrieve', second.instance_id));
      // a write cut short (an older version's crash, a full disk): once it aborted the run and hung the process
      const truncated = layout.artifactPath('retrieve', third.instance_id);
      await writeFile(truncated, (await readFile(truncated, 'utf8')).slice(0, 100));
      const res = await locfix(retrieveArgs(bench.datasetPath, run));
      expect(res.code, res.stderr).toBe(0);
      expect((await stat(layout.artifactPath('retrieve', first.instance_id))).mtimeMs).toBe(keptBefore);
      for (const redoneId of [second.instance_id, third.instance_id]) {
        const redone = JSON.parse(await readFile(layout.artifactPath('retrieve', redoneId), 'utf8')) as StageArtifact<FileLocalization>;
        expect(redone.status).toBe('ok');
      }
      expect(res.stderr).toContain(`${third.instance_id}: unreadable artifact (not valid JSON`);
      expect((await stat(`${truncated}.corrupt`)).size).toBe(100);
      expect(res.stderr).toMatch(new RegExp(`${bench.instances.length - 2} reused`));
    },
    SLOW,
  );

  it(
    'records a failing instance and goes on; fails only when nothing could be done',
    async () => {
      const good = bench.instances[0];
      const bad = { ...good, instance_id: `${good.instance_id}-badcommit`, base_commit: 'f'.repeat(40) };
      const rows = [bad, good].map((i) => JSON.stringify({ ...i, FAIL_TO_PASS: JSON.stringify(i.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(i.PASS_TO_PASS) }));
      const mixed = path.join(dir, 'mixed.jsonl');
      await writeFile(mixed, rows.join('\n') + '\n');
      const run = path.join(dir, 'runs', 'mixed');
      const res = await locfix(retrieveArgs(mixed, run));
      expect(res.code, res.stderr).toBe(0);
      const layout = new RunLayout(run);
      const failed = JSON.parse(await readFile(layout.artifactPath('retrieve', bad.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      expect(failed.status).toBe('error');
      expect(failed.error!.message).toMatch(/ffffffff/);
      expect((await readdir(layout.stageDir('retrieve'))).length).toBe(2);
      const metrics = JSON.parse((await locfix(['eval-loc', run, '--json'])).stdout);
      // a commit the mirror lacks is not the method's failure: listed with its cause, a miss in the headline until
      // rerun (issue 52's one denominator: every selected instance), and out of the rates over the reached
      expect(metrics.n).toBe(2);
      expect(metrics.reached.n).toBe(1);
      expect(metrics.notReached).toEqual([{ id: bad.instance_id, cause: 'infrastructure: repository-unavailable' }]);

      // a rerun keeps the recorded error; --retry-errors tries that instance again and only it
      const goodBefore = (await stat(layout.artifactPath('retrieve', good.instance_id))).mtimeMs;
      expect((await locfix(retrieveArgs(mixed, run))).code).toBe(0);
      const kept = JSON.parse(await readFile(layout.artifactPath('retrieve', bad.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      expect(kept.attempt).toBe(1);
      const retried = await locfix(retrieveArgs(mixed, run, ['--retry-errors']));
      expect(retried.code, retried.stderr).toBe(0);
      const again = JSON.parse(await readFile(layout.artifactPath('retrieve', bad.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
      expect([again.status, again.attempt]).toEqual(['error', 2]);
      expect((await stat(layout.artifactPath('retrieve', good.instance_id))).mtimeMs).toBe(goodBefore);

      const onlyBad = path.join(dir, 'bad.jsonl');
      await writeFile(onlyBad, rows[0] + '\n');
      const res2 = await locfix(retrieveArgs(onlyBad, path.join(dir, 'runs', 'bad')));
      expect(res2.code).toBe(1);
    },
    SLOW,
  );

  it(
    '--fusion learned ranks with the shipped model and records it; a model that cannot be read stops the run at start',
    async () => {
      const run = path.join(dir, 'runs', 'learned');
      const res = await locfix(retrieveArgs(bench.datasetPath, run, ['--fusion', 'learned']));
      expect(res.code, res.stderr).toBe(0);
      const layout = new RunLayout(run);
      for (const inst of bench.instances) {
        const artifact = JSON.parse(await readFile(layout.artifactPath('retrieve', inst.instance_id), 'utf8')) as StageArtifact<FileLocalization>;
        expect(artifact.status, JSON.stringify(artifact.error)).toBe('ok');
        const scores = artifact.output!.files.map((f) => f.score);
        // the reordered candidates carry their softmax share, best first; files below them 0
        expect(scores[0]).toBeGreaterThan(0);
        expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      }
      // the run records which model ranked, so a resume with another model is refused
      const selection = JSON.parse(await readFile(layout.selectionPath('retrieve'), 'utf8'));
      expect(selection.settings.options.fusion).toBe('learned');
      expect(selection.settings.ranker.sha256).toMatch(/^[0-9a-f]{64}$/);
      const evalRes = await locfix(['eval-loc', run, '--json']);
      expect(JSON.parse(evalRes.stdout.trim()).top10).toBeGreaterThanOrEqual(0.75);

      const missing = await locfix(
        retrieveArgs(bench.datasetPath, path.join(dir, 'runs', 'no-model'), ['--fusion', 'learned', '--ranker-model', path.join(dir, 'none.json')]),
      );
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/none\.json: no such file; retrain it \(npm run ranker:train\) or choose the hand-set fusion \(--fusion weighted\)/);
      const wrong = await locfix(retrieveArgs(bench.datasetPath, path.join(dir, 'runs', 'wrong'), ['--fusion', 'best']));
      expect(wrong.code).not.toBe(0);
      // checked by the retrieval localizer's registry entry, as `run` and `localize` check it
      expect(wrong.stderr).toMatch(/retrieval option retrieval\.fusion must be "weighted", "rrf" or "learned", got "best"/);
    },
    SLOW,
  );
});
