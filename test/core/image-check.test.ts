/**
 * A run that validates or evaluates asks before any instance whether the selection's images can be had (issue 52):
 * before, a missing base image failed each instance alike at "select has not run" and the run said 0.0 % over 2
 * judged, exit 0. Now no image for any instance stops the run at start, naming the fix; some missing leave those
 * instances to be not reached, with their cause.
 */
import { describe, expect, it } from 'vitest';
import { checkImagesAtStart } from '../../app/engine/image-check.ts';
import { InstanceImageRecipe, type ImageEngine } from '../../sandbox/common/image-recipe.ts';
import { makeInstanceSpec } from '../../src/harness/instance-spec.ts';
import type { ExecutionBackend, InstanceImages } from '../../src/sandbox/types.ts';
import { stubRow } from '../support/rows.ts';

function engineWith(existing: readonly string[]): ImageEngine {
  return {
    baseImageHint: 'build it with scripts/setup-docker.sh',
    exists: async (name) => existing.includes(name),
    identity: async (name) => name,
    buildLayer: async () => {
      throw new Error('nothing is built by a check');
    },
    remove: async () => undefined,
  };
}

function backendOf(images: InstanceImages): ExecutionBackend {
  return {
    name: 'test',
    run: (_label, work) => work({ id: 'local', runtime: undefined as never, images }),
    sweep: async () => 0,
    sweepOrphans: async () => 0,
  };
}

const mirrors = { gitDir: async () => '/nowhere' };
const row = (id: string, version = '2.0') => ({ ...stubRow(id), repo: 'psf/requests', version });
const rows = [row('psf__requests-1'), row('psf__requests-2')];

describe('images at start (issue 52)', () => {
  it('names why no image can be had, without building one', async () => {
    const recipe = new InstanceImageRecipe(engineWith([]), mirrors, { baseImage: 'locfix/absent:none', useOfficialImages: false, envImages: {} });
    const spec = makeInstanceSpec(rows[0]!);
    expect(await recipe.missingImage(spec)).toMatch(/no image for psf\/requests@2.0|base image locfix\/absent:none is missing/);
    const named = new InstanceImageRecipe(engineWith([]), mirrors, { envImages: { 'psf/requests': 'locfix/env.requests:1' }, useOfficialImages: false });
    expect(await named.missingImage(spec)).toBe('environment image locfix/env.requests:1 does not exist');
    const present = new InstanceImageRecipe(engineWith(['locfix/env.requests:1']), mirrors, {
      envImages: { 'psf/requests': 'locfix/env.requests:1' },
      useOfficialImages: false,
    });
    expect(await present.missingImage(spec)).toBeUndefined();
  });

  it('stops the run when no instance can have one, and lets it go on when some can', async () => {
    const none = new InstanceImageRecipe(engineWith([]), mirrors, { envImages: { 'psf/requests': 'locfix/env.requests:1' }, useOfficialImages: false });
    await expect(checkImagesAtStart(backendOf(none), rows)).rejects.toMatchObject({
      kind: 'image-missing',
      message: expect.stringMatching(
        /no image for any of the 2 selected instances .*environment image locfix\/env.requests:1 does not exist.*--stop-after select/,
      ),
    });
    const some: InstanceImages = {
      instanceImage: async () => {
        throw new Error('not asked');
      },
      missingImage: async (spec) => (spec.instanceId === 'psf__requests-1' ? 'gone' : undefined),
    };
    const mixed = [rows[0]!, row('psf__requests-3')];
    expect([...(await checkImagesAtStart(backendOf(some), mixed))]).toEqual([['psf__requests-1', 'gone']]);
  });
});
