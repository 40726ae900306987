/**
 * One assembly of file localization (app/engine/file-localization.ts) for `run`, `localize` and `retrieve`: a
 * sandbox backend is asked for only by a localizer that declares `workspace`, the capability check names what
 * the run cannot supply, and the localizer is made once from its resolved entry.
 */
import { describe, expect, it } from 'vitest';
import { assembleFileLocalization } from '../../app/engine/file-localization.ts';
import { resolveLocalizer } from '../../localizer/registry.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';

const services = { snapshot: async () => ({}) as never, index: async () => ({}) as never, releaseRepo: () => undefined, llm: undefined };

describe('file localization assembly', () => {
  it('gives a sandbox only to a localizer that reads through one, and sweeps only then', async () => {
    let asked = 0;
    const swept: string[] = [];
    const backend = {
      openWorkspace: async () => ({}) as never,
      sweep: async (runId: string) => (swept.push(runId), 2),
      sweepOrphans: async () => 1,
    } as unknown as ExecutionBackend;
    const sandbox = () => (asked++, backend);

    const retrieval = assembleFileLocalization(await resolveLocalizer('retrieval'), services, { runDir: '/tmp/runs/a', sandbox });
    expect([asked, retrieval.workspaces, await retrieval.sweepWorkspaces()]).toEqual([0, undefined, 0]);
    expect(retrieval.stageOptions).toMatchObject({ runDir: '/tmp/runs/a', capabilities: { needs: [] } });
    retrieval.assertReady();
    expect((await retrieval.localizer).name).toBe('retrieval');

    const explorer = assembleFileLocalization(await resolveLocalizer('explorer'), services, { runDir: '/tmp/runs/b', sandbox });
    expect(asked).toBe(1);
    expect(explorer.workspaces).toBe(backend);
    expect(await explorer.sweepWorkspaces()).toBe(3);
    expect(swept).toEqual(['b']);
    // the explorer needs a model too: the check names it before any instance
    expect(() => explorer.assertReady()).toThrow(/the explorer localizer needs a chat model/);
  });
});
