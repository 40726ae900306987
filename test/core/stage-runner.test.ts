import type { StageInput, StageName } from '../../src/run/stage.ts';
import { RepoError } from '../../src/repo/errors.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { createProgress } from '../../src/run/progress.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readArtifact, runInstanceStage, runStage, type RetryErrors } from '../../src/run/stage-runner.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { causeOf } from '../../src/run/failure-cause.ts';
import { stubRow } from '../support/rows.ts';

const instance = stubRow;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runStage', () => {
  it('persists ok and error artifacts, isolates failures, and resumes without recomputing', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-stage-'));
    const layout = new RunLayout(dir);
    const instances = ['a__b-1', 'a__b-2', 'a/b-3'].map(instance);
    const calls: string[] = [];
    const work = async (i: SweInstance) => {
      calls.push(i.instance_id);
      if (i.instance_id === 'a__b-2') throw new RepoError('missing-commit', 'a/b', 'commit missing');
      return { files: [i.instance_id] };
    };
    const lines: string[] = [];
    const progress = createProgress({ tty: false, write: (l) => lines.push(l) });
    progress.begin('retrieve', instances.length);
    const first = await runStage({ layout, stage: 'retrieve', instances, work, concurrency: 2, onEvent: progress.event });
    progress.end();
    expect(first.map((a) => a.status)).toEqual(['ok', 'error', 'ok']);
    expect(first[1].error).toMatchObject({ message: 'commit missing', kind: 'missing-commit' });
    expect((await readArtifact<{ files: string[] }>(layout, 'retrieve', 'a/b-3'))?.output).toEqual({ files: ['a/b-3'] });
    expect(lines.some((l) => l.includes('a__b-2 ERROR commit missing'))).toBe(true);
    expect(lines.at(-1)).toContain('2 ok, 1 failed');

    calls.length = 0;
    const second = await runStage({ layout, stage: 'retrieve', instances, work });
    expect(calls).toEqual([]);
    expect(second.map((a) => a.status)).toEqual(['ok', 'error', 'ok']);

    const third = await runStage({ layout, stage: 'retrieve', instances, work, retryErrors: true });
    expect(calls).toEqual(['a__b-2']);
    expect(third[1].attempt).toBe(2);
  });
});

describe("--retry-errors reruns what was not the method's doing (issue 41)", () => {
  it("true: infrastructure, configuration, a missing input and an ambiguous evaluation; the method's own failures only with 'all'", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-retry-'));
    const layout = new RunLayout(dir);
    const errors: Record<string, { stage: string; error: Record<string, unknown> }> = {
      'm__unreachable-1': { stage: 'repair', error: { message: 'Connection error.', kind: 'connection' } },
      'm__replay-1': { stage: 'repair', error: { message: 'no recorded answer', kind: 'replay-miss' } },
      'm__upstream-1': { stage: 'repair', error: { message: 'localize-lines failed', kind: 'input-failed' } },
      'm__commit-1': { stage: 'repair', error: { message: 'commit not in the mirror', kind: 'missing-commit' } },
      'm__unusable-1': { stage: 'repair', error: { message: 'no edit in the answer', kind: 'parse' } },
      'm__overflow-1': { stage: 'repair', error: { message: 'context length exceeded', kind: 'http', details: { status: 400 } } },
      'm__max-steps-1': { stage: 'repair', error: { message: 'gave up', kind: 'max-steps' } },
      'm__timeout-1': { stage: 'evaluate', error: { message: 'Test timed out after 1800 seconds.', kind: 'timeout' } },
      'm__apply-1': { stage: 'evaluate', error: { message: '>>>>> Patch Apply Failed', kind: 'patch-apply-failed' } },
      'm__network-1': { stage: 'evaluate', error: { message: 'cannot run the tests (network)', kind: 'cannot-run:network' } },
    };
    for (const [id, { stage, error }] of Object.entries(errors)) {
      await writeJsonAtomic(layout.artifactPath(stage, id), {
        stage,
        instanceId: id,
        status: 'error',
        startedAt: '',
        finishedAt: '',
        durationMs: 1,
        attempt: 1,
        error,
      });
    }
    const rerun = async (retryErrors: RetryErrors | undefined): Promise<string[]> => {
      const ran: string[] = [];
      for (const [id, { stage }] of Object.entries(errors))
        await runInstanceStage(layout, stage, instance(id), async () => (ran.push(id), 'ok'), { retryErrors });
      return ran;
    };
    // before: the plain flag reran every error, the method's own included
    expect(await rerun(undefined)).toEqual([]);
    const retried = await rerun(true);
    expect(retried).toEqual(['m__unreachable-1', 'm__replay-1', 'm__upstream-1', 'm__commit-1', 'm__timeout-1', 'm__network-1']);
  });

  it('"all" reruns every recorded error', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-retry-all-'));
    const layout = new RunLayout(dir);
    await writeJsonAtomic(layout.artifactPath('repair', 'm__unusable-1'), {
      stage: 'repair',
      instanceId: 'm__unusable-1',
      status: 'error',
      startedAt: '',
      finishedAt: '',
      durationMs: 1,
      attempt: 1,
      error: { message: 'no edit', kind: 'parse' },
    });
    const ran: string[] = [];
    await runInstanceStage(layout, 'repair', instance('m__unusable-1'), async () => (ran.push('x'), 'ok'), { retryErrors: true });
    expect(ran).toEqual([]);
    const result = await runInstanceStage(layout, 'repair', instance('m__unusable-1'), async () => (ran.push('x'), 'ok'), { retryErrors: 'all' });
    expect([ran, result.artifact.attempt]).toEqual([['x'], 2]);
  });
});

describe('error kinds in one style (issue 43)', () => {
  it("an older artifact's budget_exhausted reads as budget-exhausted: the spend cap's cause, and rerun by --retry-errors", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-stage-'));
    const layout = new RunLayout(dir);
    const old = { stage: 'retrieve', instanceId: 'a__b-1', status: 'error', startedAt: '', finishedAt: '', durationMs: 1, attempt: 1 };
    await writeJsonAtomic(layout.artifactPath('retrieve', 'a__b-1'), { ...old, error: { kind: 'budget_exhausted', message: 'instance budget spent' } });
    expect((await readArtifact(layout, 'retrieve', 'a__b-1'))?.error?.kind).toBe('budget-exhausted');
    expect(causeOf({ kind: 'budget_exhausted' }).cause).toBe('spend-cap');
    const calls: string[] = [];
    await runStage({
      layout,
      stage: 'retrieve',
      instances: [instance('a__b-1')],
      retryErrors: true,
      work: async (i) => (calls.push(i.instance_id), { files: [] }),
    });
    expect(calls).toEqual(['a__b-1']);
  });
});

describe('corrupt artifacts', () => {
  it('a truncated, foreign or non-artifact file is moved aside and recomputed, with a progress line naming it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-stage-'));
    const layout = new RunLayout(dir);
    const instances = ['a__b-1', 'a__b-2', 'a__b-3', 'a__b-4'].map(instance);
    const work = async (i: SweInstance) => ({ files: [i.instance_id] });
    await runStage({ layout, stage: 'retrieve', instances, work });
    const file = (id: string) => layout.artifactPath('retrieve', id);
    const whole = readFileSync(file('a__b-1'), 'utf8');
    writeFileSync(file('a__b-1'), whole.slice(0, Math.floor(whole.length / 2))); // a write cut short
    writeFileSync(file('a__b-2'), readFileSync(file('a__b-3'), 'utf8')); // another instance's artifact
    writeFileSync(file('a__b-3'), '[1, 2, 3]');

    const lines: string[] = [];
    const progress = createProgress({ tty: false, write: (l) => lines.push(l) });
    progress.begin('retrieve', instances.length);
    const calls: string[] = [];
    const again = await runStage({
      layout,
      stage: 'retrieve',
      instances,
      work: async (i) => {
        calls.push(i.instance_id);
        return work(i);
      },
      onEvent: progress.event,
    });
    expect(calls.sort()).toEqual(['a__b-1', 'a__b-2', 'a__b-3']);
    expect(again.map((a) => [a.status, a.instanceId, a.output])).toEqual(instances.map((i) => ['ok', i.instance_id, { files: [i.instance_id] }]));
    for (const id of ['a__b-1', 'a__b-2', 'a__b-3']) expect(existsSync(`${file(id)}.corrupt`)).toBe(true);
    expect(lines.filter((l) => l.includes('unreadable artifact'))).toHaveLength(3);
    expect(lines.find((l) => l.includes('a__b-1: unreadable'))).toMatch(/not valid JSON .* moved to .*a__b-1\.json\.corrupt; recomputing/);
    expect(lines.find((l) => l.includes('a__b-2: unreadable'))).toMatch(/it is the artifact of "a__b-3"/);
    expect(await readArtifact(layout, 'retrieve', 'a__b-1')).toMatchObject({ status: 'ok' });
  });
});

describe('runPipeline', () => {
  it('moves each instance through the stages, stops an instance at its failing stage, and resumes', async () => {
    const { runPipeline } = await import('../../app/engine/pipeline.ts');
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-pipeline-'));
    const layout = new RunLayout(dir);
    const calls: string[] = [];
    let failOnce = true;
    const stages = [
      { name: 'a', run: async ({ instance }: { instance: SweInstance }) => (calls.push(`a:${instance.instance_id}`), { n: instance.instance_id.length }) },
      {
        name: 'b',
        run: async (input: StageInput) => {
          calls.push(`b:${input.instance.instance_id}`);
          if (input.instance.instance_id === 'x-2' && failOnce) throw new Error('flaky');
          return (await input.output<{ n: number }>('a' as StageName)).n * 2;
        },
      },
      { name: 'c', run: async (input: StageInput) => (calls.push(`c:${input.instance.instance_id}`), (await input.output<number>('b' as StageName)) + 1) },
    ];
    const instances = ['x-1', 'x-2'].map(instance);
    const first = await runPipeline({ layout, instances, stages, concurrency: 2 });
    expect(first[0].artifacts.c.output).toBe(7);
    expect(first[1].failedStage).toBe('b');
    expect(first[1].artifacts.c).toBeUndefined();

    calls.length = 0;
    failOnce = false;
    const second = await runPipeline({ layout, instances, stages, retryErrors: 'all' });
    // finished work is not repeated; only the failed stage and what follows it run again
    expect(calls).toEqual(['b:x-2', 'c:x-2']);
    expect(second[1].artifacts.c.output).toBe(7);
  });

  it('Ctrl-C (shouldStop): the stage in flight finishes and is kept, nothing is recorded for work not started, and a resume does the rest', async () => {
    const { runPipeline } = await import('../../app/engine/pipeline.ts');
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-pipeline-'));
    const layout = new RunLayout(dir);
    let stop = false;
    const calls: string[] = [];
    const stages = [
      {
        name: 'a',
        run: async ({ instance }: { instance: SweInstance }) => {
          calls.push(`a:${instance.instance_id}`);
          stop = true; // the user presses Ctrl-C while the first instance's first stage runs
          return 1;
        },
      },
      { name: 'b', run: async ({ instance }: { instance: SweInstance }) => (calls.push(`b:${instance.instance_id}`), 2) },
    ];
    const instances = ['y-1', 'y-2', 'y-3'].map(instance);
    const first = await runPipeline({ layout, instances, stages, concurrency: 1, shouldStop: () => stop });
    expect(calls).toEqual(['a:y-1']);
    expect(first.map((r) => [r.instanceId, Boolean(r.interrupted), Object.keys(r.artifacts)])).toEqual([
      ['y-1', true, ['a']],
      ['y-2', true, []],
      ['y-3', true, []],
    ]);
    expect(first.some((r) => r.failedStage)).toBe(false);
    expect(await readArtifact(layout, 'a', 'y-1')).toMatchObject({ status: 'ok' });
    for (const id of ['y-2', 'y-3']) expect(await readArtifact(layout, 'a', id)).toBeUndefined();
    expect(await readArtifact(layout, 'b', 'y-1')).toBeUndefined();

    calls.length = 0;
    const resumed = await runPipeline({ layout, instances, stages: [stages[0], stages[1]].map((s) => ({ ...s })), shouldStop: () => false });
    expect(calls).toEqual(['b:y-1', 'a:y-2', 'b:y-2', 'a:y-3', 'b:y-3']);
    expect(resumed.every((r) => !r.interrupted && r.artifacts.b?.status === 'ok')).toBe(true);
  });
});

describe("a full disk is the host's own errno, not a server's words (issue 52)", () => {
  it('a model server error saying "No space left on device" (even with code ENOSPC) is the instance\'s error; a failed write of this host stops', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'locfix-stage-'));
    const layout = new RunLayout(dir);
    // as the OpenAI client builds it: the body's message and code copied onto the error, no system call
    const serverSaid = Object.assign(new Error('500 No space left on device'), { status: 500, code: 'ENOSPC' });
    const recorded = await runInstanceStage(layout, 'repair', instance('a__b-1'), async () => {
      throw serverSaid;
    });
    expect(recorded.artifact.status).toBe('error');
    expect(recorded.artifact.error).toMatchObject({ message: '500 No space left on device' });
    expect(recorded.artifact.error?.kind).toBeUndefined();
    expect(causeOf(recorded.artifact.error, 'repair')?.cause).not.toBe('disk-full');
    // this host's own write failing for space: nothing recorded, the run stops
    const hostFull = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    await expect(
      runInstanceStage(layout, 'repair', instance('a__b-2'), async () => {
        throw hostFull;
      }),
    ).rejects.toThrow(/the disk is full/);
    expect(existsSync(layout.artifactPath('repair', 'a__b-2'))).toBe(false);
  });
});
