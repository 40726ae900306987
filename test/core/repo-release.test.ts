import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupByRepo, releaseAfterLastInstance } from '../../src/run/repo-release.ts';
import { runStage } from '../../src/run/stage-runner.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';

const inst = (id: string, repo: string) => ({ instance_id: id, repo, base_commit: 'c', problem_statement: id, patch: '' }) as unknown as SweInstance;

describe('groupByRepo', () => {
  it('brings each repository together, first-seen order kept', () => {
    const order = groupByRepo([inst('a1', 'a'), inst('b1', 'b'), inst('a2', 'a'), inst('c1', 'c'), inst('b2', 'b')]).map((i) => i.instance_id);
    expect(order).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
  });
});

describe('releaseAfterLastInstance', () => {
  it('releases a repository once, after its last instance, whatever the finishing order', () => {
    const released: string[] = [];
    const done = releaseAfterLastInstance([inst('a1', 'a'), inst('a2', 'a'), inst('b1', 'b')], (repo) => released.push(repo));
    done(inst('a2', 'a'));
    expect(released).toEqual([]);
    done(inst('b1', 'b'));
    expect(released).toEqual(['b']);
    done(inst('a2', 'a')); // repeated: not counted twice
    expect(released).toEqual(['b']);
    done(inst('zz', 'a')); // unknown instance
    expect(released).toEqual(['b']);
    done(inst('a1', 'a'));
    done(inst('a1', 'a'));
    expect(released).toEqual(['b', 'a']);
  });

  it('is told by runStage about every instance, failed and reused ones included', async () => {
    const layout = new RunLayout(await mkdtemp(path.join(os.tmpdir(), 'locfix-release-')));
    const instances = [inst('a1', 'a'), inst('a2', 'a'), inst('b1', 'b')];
    const released: string[] = [];
    const work = async (i: SweInstance) => {
      if (i.instance_id === 'a2') throw new Error('boom');
      return { ok: i.instance_id };
    };
    await runStage({ layout, stage: 's', instances, work, concurrency: 2, onInstanceDone: releaseAfterLastInstance(instances, (r) => released.push(r)) });
    expect(released.sort()).toEqual(['a', 'b']);
    // resumed: every artifact is reused, and the repositories are still released
    const again: string[] = [];
    await runStage({ layout, stage: 's', instances, work, onInstanceDone: releaseAfterLastInstance(instances, (r) => again.push(r)) });
    expect(again).toEqual(['a', 'b']);
  });
});
