import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { createProgress } from '../../src/orchestrator/progress.ts';
import { RunLayout } from '../../src/orchestrator/run-layout.ts';
import { readArtifact, runStage } from '../../src/orchestrator/stage-runner.ts';

const instance = (id: string): SweInstance =>
  ({ instance_id: id, repo: 'o/r', base_commit: 'a'.repeat(40), problem_statement: '', patch: '', test_patch: '', hints_text: '', FAIL_TO_PASS: [], PASS_TO_PASS: [] });

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
      if (i.instance_id === 'a__b-2') throw Object.assign(new Error('commit missing'), { code: 'missing-commit' });
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
