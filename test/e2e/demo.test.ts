/**
 * The README's main job, `locfix demo`: the whole pipeline on the bundled mini-benchmark, replaying the
 * bundled recording. With Docker every instance must end in the category of the recorded run; without it
 * (and with --no-docker) the run stops after patch selection and says why. A prompt changed since the
 * recording makes the replay refuse it, and this test fails: rerun `node --import tsx scripts/record-demo.ts`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../app/commands/demo.ts';
import { DEMO_RECORDING_DIR, type DemoRecordingFile } from '../../src/minibench/demo-run.ts';
import { ensureDocker } from '../support/docker.ts';

const hasDocker = await ensureDocker('demo with validation and evaluation');
let dir: string;
let output = '';
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-e2e-demo-'));
});
afterAll(async () => {
  if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

async function demo(out: string, docker: boolean): Promise<string> {
  output = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await demoCommand({
      out: path.join(dir, out),
      minibench: path.join(dir, 'minibench'),
      cacheDir: path.join(dir, 'cache'),
      recording: DEMO_RECORDING_DIR,
      docker,
      fresh: true,
    });
  } finally {
    process.stdout.write = write;
  }
  return output;
}

describe('locfix demo (bundled recording replayed, no model)', () => {
  it.skipIf(!hasDocker)('with Docker: the whole pipeline ends every instance in the recorded category', { timeout: 300_000 }, async () => {
    const text = await demo('with-docker', true);
    expect(text).toContain('Every instance ended in the category of the recorded run.');
    expect(process.exitCode ?? 0).toBe(0);
    const recording = JSON.parse(await readFile(path.join(DEMO_RECORDING_DIR, 'recording.json'), 'utf8')) as DemoRecordingFile;
    const analysis = JSON.parse(await readFile(path.join(dir, 'with-docker', 'analysis.json'), 'utf8')) as {
      instances: Array<{ instanceId: string; category: string }>;
    };
    expect(Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a.category]))).toEqual(recording.categories);
    const html = await readFile(path.join(dir, 'with-docker', 'report', 'report.html'), 'utf8');
    expect(html).toContain('<h2>Cascade tiers of');
    // replayed answers are free: the spend table says so beside the tokens per stage (before: "0 tokens", unexplained)
    expect(html).toContain('Answers served from the response cache or replayed from a recording are free');
    // 5 instances make no reliability diagram (before: diagrams of one or two answers per bucket)
    expect(html).toMatch(/too few for reliability diagrams/);
    expect(html).not.toContain('Figure 18');
    // the outcome chart's caption fits its one line, and a wide table scrolls inside its column (issue 52)
    expect(html).toContain('class="title">Instances per run by outcome</text>');
    expect(html).toMatch(/table\{[^}]*overflow-x:auto/);
    // the run's closing lines name the report; the demo's summary does not print the path a second time
    expect(text).not.toContain('Report:');
    // a rerun into the same folder under other settings names --fresh (before: only "use a new --run-id")
    const again = demoCommand({
      out: path.join(dir, 'with-docker'),
      minibench: path.join(dir, 'minibench'),
      cacheDir: path.join(dir, 'cache'),
      recording: DEMO_RECORDING_DIR,
      docker: false,
    });
    await expect(again).rejects.toThrow(/rerun with --fresh to discard the earlier demo run/);
  });

  it('without Docker: localization, repair and selection, then the analysis, saying what was left out', { timeout: 300_000 }, async () => {
    const text = await demo('no-docker', false);
    expect(text).toMatch(/Validation and evaluation need Docker: Docker stages turned off/);
    expect(text).toMatch(/minibench__qty-7\s+agentless/);
    // patches that were never graded are not failures: before, analysis.json said "unresolved: 5" and the report
    // "60 % unresolved (with a patch)" although qty-7 resolves when Docker is there
    const analysis = JSON.parse(await readFile(path.join(dir, 'no-docker', 'analysis.json'), 'utf8')) as {
      summary: { total: number; judged: number; unresolved: number; notJudgedReasons: Record<string, number>; categories: Record<string, { count: number }> };
      instances: Array<{ instanceId: string; category: string; notJudged?: string }>;
    };
    // the two empty patches are outcomes of their own (no locations found); the three patches were never graded
    expect(analysis.summary).toMatchObject({ total: 5, judged: 2, unresolved: 2 });
    expect(analysis.summary.categories['not-evaluated'].count).toBe(3);
    expect(analysis.summary.categories['empty-patch'].count).toBe(2);
    expect(new Set(analysis.instances.map((i) => i.category))).toEqual(new Set(['not-evaluated', 'empty-patch']));
    expect(analysis.instances.find((i) => i.instanceId === 'minibench__qty-7')).toMatchObject({
      category: 'not-evaluated',
      notJudged: 'Docker stages turned off (--no-docker)',
    });
    const md = await readFile(path.join(dir, 'no-docker', 'report', 'report.md'), 'utf8');
    expect(md).toMatch(/not-evaluated: Docker stages turned off \(--no-docker\)/);
    expect(md).not.toMatch(/unresolved \(with a patch\)/);
  });
});
