import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { DEFAULT_BASE_IMAGE, ImageBuildError, ImageProvider } from '../../sandbox/docker/images.ts';
import { makeInstanceSpec, officialImageName } from '../../src/harness/instance-spec.ts';
import { ensureDocker } from '../support/docker.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const hasDocker = await ensureDocker('docker image tests');
const RUN_ID = `test-images-${process.pid}`;

describe.skipIf(!hasDocker)('instance images', () => {
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
    await runtime.sweepContainers(RUN_ID);
    fixture?.cleanup();
  });

  async function tag(source: string, target: string): Promise<void> {
    const [repo, tagName] = [target.slice(0, target.lastIndexOf(':')), target.slice(target.lastIndexOf(':') + 1)];
    await runtime.docker.getImage(source).tag({ repo, tag: tagName });
    tagged.push(target);
  }

  it('builds the instance layer on the base image with /testbed as a git checkout at the base commit, once', async () => {
    const images = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir });
    const first = await images.instanceImage(makeInstanceSpec(fixture.instance));
    expect(first.source).toBe('local');
    expect(first.image).toMatch(/^locfix\/sweb\.inst\.minibench__clampkit-1:[0-9a-f]{16}$/);
    expect(first.prelude).toEqual([]);
    expect(first.spec.logParser).toBe('pytest');
    const again = await images.instanceImage(makeInstanceSpec(fixture.instance));
    expect(again.image).toBe(first.image);
    expect(again.built).toBe(false);

    const check = await runtime.withSandbox({ image: first.image, runId: RUN_ID }, (sandbox) =>
      sandbox.exec(`cd /testbed && git cat-file -t ${fixture.instance.base_commit} && git status --porcelain && ls clampkit && git log -1 --format=%s`),
    );
    expect(check.exitCode).toBe(0);
    expect(check.output).toBe(`commit\n__init__.py\ncore.py\nlocfix-setup\n`);
  });

  it('checks /testbed out as the harness does: the history and the tags up to the base commit, nothing later', async () => {
    // a package whose version comes from git: v0.1.0 two commits before the base, v0.2.0 after it
    const work = mkdtempSync(path.join(os.tmpdir(), 'locfix-tagged-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, GIT_COMMITTER_DATE: '', GIT_AUTHOR_DATE: '' },
      }).trim();
    const commit = (message: string, date: string) => {
      writeFileSync(path.join(work, 'NOTES'), `${message}\n`);
      git('add', '-A');
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', message], {
        cwd: work,
        env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      });
      return git('rev-parse', 'HEAD');
    };
    git('init', '-q', '-b', 'main');
    mkdirSync(path.join(work, 'verpkg'));
    writeFileSync(
      path.join(work, 'verpkg', '__init__.py'),
      'import subprocess, os\n__version__ = subprocess.check_output(["git", "describe", "--tags"], cwd=os.path.dirname(__file__), text=True).strip()\n',
    );
    commit('first', '2020-01-01T00:00:00Z');
    git('tag', '-a', 'v0.1.0', '-m', 'release 0.1.0');
    commit('second', '2020-02-01T00:00:00Z');
    const base = commit('base', '2020-03-01T00:00:00Z');
    commit('later', '2020-04-01T00:00:00Z');
    git('tag', 'v0.2.0');
    const mirror = path.join(work, '..', `${path.basename(work)}.git`);
    execFileSync('git', ['clone', '-q', '--bare', work, mirror]);
    const instance = { ...fixture.instance, instance_id: 'minibench__verpkg-1', repo: 'minibench/verpkg', base_commit: base };
    try {
      const images = new ImageProvider(runtime, { gitDir: async () => mirror }, { useOfficialImages: false });
      const image = await images.instanceImage(makeInstanceSpec(instance));
      const check = await runtime.withSandbox({ image: image.image, runId: RUN_ID }, (sandbox) =>
        sandbox.exec(
          `cd /testbed && python3 -c 'import verpkg; print(verpkg.__version__)' && git tag && git rev-list --count HEAD && git rev-parse --abbrev-ref HEAD`,
        ),
      );
      expect(check.exitCode, check.output).toBe(0);
      // second, base and the setup commit the harness also makes: three past v0.1.0; v0.2.0 and "later" are absent
      const [version, tags, count, branch] = check.output.trim().split('\n');
      expect(version).toMatch(/^v0\.1\.0-3-g[0-9a-f]+$/);
      expect(tags).toBe('v0.1.0');
      expect(count).toBe('4');
      expect(branch).toBe('main');
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(mirror, { recursive: true, force: true });
    }
  });

  it('prefers the official image when one with the harness name is present', async () => {
    const official = officialImageName(fixture.instance.instance_id);
    expect(official).toBe('swebench/sweb.eval.x86_64.minibench_1776_clampkit-1:latest');
    await tag(DEFAULT_BASE_IMAGE, official);
    const images = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir });
    const chosen = await images.instanceImage(makeInstanceSpec(fixture.instance));
    expect(chosen).toMatchObject({ image: official, source: 'official', built: false });
    expect(chosen.prelude).toEqual(['source /opt/miniconda3/bin/activate', 'conda activate testbed']);
    const ignoring = await new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { useOfficialImages: false }).instanceImage(
      makeInstanceSpec(fixture.instance),
    );
    expect(ignoring.source).toBe('local');
  });

  it('builds on a user-named environment image with the configured setup, and names a missing one clearly', async () => {
    await tag(DEFAULT_BASE_IMAGE, 'locfixtest/env-py:1');
    const images = new ImageProvider(
      runtime,
      { gitDir: async () => fixture.gitDir },
      {
        useOfficialImages: false,
        envImages: { 'minibench/clampkit@0.1': 'locfixtest/env-py:1' },
        instanceSetup: { 'minibench/clampkit': ['echo configured > .locfix-configured'] },
      },
    );
    const chosen = await images.instanceImage(makeInstanceSpec(fixture.instance));
    expect(chosen.source).toBe('local');
    const check = await runtime.withSandbox({ image: chosen.image, runId: RUN_ID }, (sandbox) => sandbox.exec('cat /testbed/.locfix-configured'));
    expect(check.output).toBe('configured\n');

    const missing = new ImageProvider(
      runtime,
      { gitDir: async () => fixture.gitDir },
      { useOfficialImages: false, envImages: { 'minibench/clampkit': 'locfixtest/absent:0' } },
    );
    await expect(missing.instanceImage(makeInstanceSpec(fixture.instance))).rejects.toThrow(ImageBuildError);
    await expect(missing.instanceImage(makeInstanceSpec(fixture.instance))).rejects.toThrow(
      /locfixtest\/absent:0 configured for minibench\/clampkit@0.1 does not exist/,
    );
  });

  it('a SWE-bench repository without official or configured image is a clear error, not a network build', async () => {
    const images = new ImageProvider(runtime, { gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    await expect(
      images.instanceImage(makeInstanceSpec({ ...fixture.instance, instance_id: 'psf__requests-1', repo: 'psf/requests', version: '2.0' })),
    ).rejects.toThrow(/no image for psf\/requests@2.0: .*envImages\["psf\/requests@2.0"\]/);
  });
});
