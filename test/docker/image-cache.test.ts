import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { DEFAULT_BASE_IMAGE, IMAGE_KEY_LABEL, ImageProvider } from '../../sandbox/docker/images.ts';
import { imageTier, listLocfixImages, pruneLocfixImages } from '../../sandbox/docker/image-inventory.ts';
import { makeInstanceSpec, officialImageName } from '../../src/harness/instance-spec.ts';
import type { InstanceImages } from '../../src/sandbox/types.ts';
import { evaluateInstance } from '../../validation/evaluate-instance.ts';
import { withTestbed } from '../../validation/testbed.ts';
import { ensureDocker } from '../support/docker.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const hasDocker = await ensureDocker('image cache tests');
// instance ids of their own, so that removing images here never touches another test file's images
const TAG = `cachetest${process.pid}`;

describe('image tiers', () => {
  it('names locfix images by tier and leaves every other image alone', () => {
    expect(imageTier('locfix/sweb.inst.django__django-1:abc')).toBe('instance');
    expect(imageTier('locfix/sweb.env.minibench.0.1:abc')).toBe('env');
    expect(imageTier('locfix/env.django-py39:1')).toBe('env');
    expect(imageTier('locfix/base:bookworm')).toBe('base');
    expect(imageTier('swebench/sweb.eval.x86_64.django_1776_django-1:latest')).toBeUndefined();
    expect(imageTier('myorg/locfix/sweb.inst.x:1')).toBeUndefined();
  });
});

describe.skipIf(!hasDocker)('image cache policy', () => {
  const runtime = new DockerRuntime();
  let fixture: EvalFixture;
  const tagged: string[] = [];

  beforeAll(() => {
    fixture = buildEvalFixture();
  });

  afterAll(async () => {
    if (!hasDocker) return;
    for (const image of tagged)
      await runtime.docker
        .getImage(image)
        .remove({ noprune: true })
        .catch(() => undefined);
    fixture?.cleanup();
  });

  async function tag(source: string, target: string): Promise<void> {
    const colon = target.lastIndexOf(':');
    await runtime.docker.getImage(source).tag({ repo: target.slice(0, colon), tag: target.slice(colon + 1) });
    tagged.push(target);
  }

  const instance = (suffix: string) => ({ ...fixture.instance, instance_id: `minibench__${TAG}-${suffix}` });

  it('removes an instance image once its instance is done by default, and keeps it at cache level "instance"', async () => {
    const byDefault = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const image = await byDefault.instanceImage(makeInstanceSpec(instance('env')));
    tagged.push(image.image);
    expect(await runtime.imageExists(image.image)).toBe(true);
    await byDefault.release(image);
    expect(await runtime.imageExists(image.image)).toBe(false);

    const keeping = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { useOfficialImages: false, cacheLevel: 'instance' });
    const kept = await keeping.instanceImage(makeInstanceSpec(instance('keep')));
    tagged.push(kept.image);
    await keeping.release(kept);
    await keeping.releaseAll();
    expect(await runtime.imageExists(kept.image)).toBe(true);
  });

  it('never removes an image it did not build (an official one)', async () => {
    const official = officialImageName(instance('official').instance_id);
    await tag(DEFAULT_BASE_IMAGE, official);
    const images = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { cacheLevel: 'none' });
    const chosen = await images.instanceImage(makeInstanceSpec(instance('official')));
    expect(chosen.source).toBe('official');
    await images.release(chosen);
    await images.releaseAll();
    expect(await runtime.imageExists(official)).toBe(true);
  });

  it('--arch picks the official image of that architecture', async () => {
    const arm = officialImageName(instance('arm').instance_id, 'arm64');
    expect(arm).toBe(`swebench/sweb.eval.arm64.minibench_1776_${TAG}-arm:latest`);
    await tag(DEFAULT_BASE_IMAGE, arm);
    const armProvider = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { arch: 'arm64' });
    expect(await armProvider.instanceImage(makeInstanceSpec(instance('arm')))).toMatchObject({ image: arm, source: 'official' });
    // the x86_64 name is absent, so the default architecture builds locally instead
    const x86 = await new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }).instanceImage(makeInstanceSpec(instance('arm')));
    tagged.push(x86.image);
    expect(x86.source).toBe('local');
  });

  it('lists locfix images by tier and prunes them down to a cache level', async () => {
    const inst = `locfix/sweb.inst.${TAG}-prune:a`;
    const env = `locfix/sweb.env.${TAG}-prune:b`;
    const foreign = `locfixtest/${TAG}-prune:c`;
    for (const name of [inst, env, foreign]) await tag(DEFAULT_BASE_IMAGE, name);
    const listed = (await listLocfixImages(runtime)).filter((i) => i.name.includes(`${TAG}-prune`));
    expect(listed.map((i) => [i.name, i.tier]).sort()).toEqual([
      [env, 'env'],
      [inst, 'instance'],
    ]);

    const dry = await pruneLocfixImages(runtime, { filter: `${TAG}-prune`, dryRun: true });
    expect(dry.removed.map((i) => i.name)).toEqual([inst]);
    expect(await runtime.imageExists(inst)).toBe(true);

    const atEnv = await pruneLocfixImages(runtime, { filter: `${TAG}-prune` });
    expect(atEnv.removed.map((i) => i.name)).toEqual([inst]);
    expect(await runtime.imageExists(inst)).toBe(false);
    expect(await runtime.imageExists(env)).toBe(true);

    const atBase = await pruneLocfixImages(runtime, { filter: `${TAG}-prune`, keep: 'base' });
    expect(atBase.removed.map((i) => i.name)).toEqual([env]);
    expect(await runtime.imageExists(foreign)).toBe(true);
    expect(await runtime.imageExists(DEFAULT_BASE_IMAGE)).toBe(true);
  });

  it('lists and prunes a layer locfix built that lost its tag (a rebuild moved it)', async () => {
    // what a second build of the same name leaves: the first commit, labelled, with no tag
    const sandbox = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: `${TAG}-untagged` });
    let id: string;
    try {
      ({ Id: id } = (await sandbox.container.commit({ changes: [`LABEL ${IMAGE_KEY_LABEL}=${TAG}`] })) as { Id: string });
    } finally {
      await sandbox.dispose();
    }
    const listed = (await listLocfixImages(runtime)).find((i) => i.id === id);
    expect(listed).toMatchObject({ name: id, tier: 'instance', untagged: true });
    const pruned = await pruneLocfixImages(runtime, { filter: id });
    expect(pruned.removed.map((i) => i.id)).toEqual([id]);
    expect(await runtime.imageExists(id)).toBe(false);
  });

  it('an instance image another process removes between the lookup and the container is looked up again (evaluation, testbed)', {
    timeout: 300_000,
  }, async () => {
    const real = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { useOfficialImages: false, cacheLevel: 'instance' });
    let lookups = 0;
    // the other process: right after our lookup, it finishes its own evaluation of the instance and removes the image
    const racing: InstanceImages = {
      instanceImage: async (spec, log) => {
        const image = await real.instanceImage(spec, log);
        tagged.push(image.image);
        lookups += 1;
        if (lookups === 1) await runtime.docker.getImage(image.image).remove({ force: true });
        return image;
      },
    };
    const inst = instance('race');
    const prediction = { instance_id: inst.instance_id, model_name_or_path: 'gold', model_patch: fixture.patches.gold };
    const runsDir = path.join(fixture.root, 'runs');
    const outcome = await evaluateInstance(inst, prediction, { runId: `race-${TAG}`, runsDir, runtime, images: racing, timeoutMs: 120_000 });
    expect(outcome.error).toBeUndefined();
    expect(outcome.resolved).toBe(true);
    expect(lookups).toBe(2);
    lookups = 0;
    await withTestbed(runtime, racing, inst, { runId: `race-${TAG}` }, async (testbed) => {
      expect((await testbed.run(['git status --short'])).exitCode).toBe(0);
    });
    expect(lookups).toBe(2);
  });
});
