/**
 * What a locfix process leaves on an engine carries its run and its owner ("host:pid", docker/ownership.ts).
 * Before, a sandbox or workspace snapshot left by a process killed with -9 carried at most a run id — build
 * containers carried "image-build", the explorer's none under `locfix localize` — so only a sweep of that
 * exact run, or an unscoped one, removed them. Now any locfix command sweeps what processes that are gone
 * left, and leaves alone what a live process (or one on another host) holds.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';
import { OWNER_LABEL, SANDBOX_LABEL, ownedLabels } from '../../sandbox/docker/ownership.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { ensureDocker } from '../support/docker.ts';

const hasDocker = await ensureDocker('sweeping what dead locfix processes left');
const ROOT = path.resolve(import.meta.dirname, '../..');
const RUN_ID = `orphans-${process.pid}`;
const runtime = new DockerRuntime();
afterAll(async () => {
  if (hasDocker) await runtime.sweepContainers(RUN_ID);
});

/** A process that makes a sandbox and a labelled volume, prints their names, and waits to be killed. */
function leaver(): Promise<{ container: string; volume: string; kill: () => void }> {
  const code = `import { DockerRuntime } from ${JSON.stringify(path.join(ROOT, 'sandbox/docker/sandbox.ts'))};
import { ownedLabels } from ${JSON.stringify(path.join(ROOT, 'sandbox/docker/ownership.ts'))};
const runtime = new DockerRuntime();
const sandbox = await runtime.create({ image: ${JSON.stringify(DEFAULT_BASE_IMAGE)}, runId: 'image-build' });
const volume = await runtime.docker.createVolume({ Name: 'locfix-ro-orphan-' + process.pid, Labels: ownedLabels() });
console.log(JSON.stringify({ container: sandbox.id, volume: volume.Name }));
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve({ ...JSON.parse(out.split('\n')[0]!), kill: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code) => reject(new Error(`the child exited with ${code} before printing`)));
  });
}

const exists = async (container: string) =>
  runtime.docker
    .getContainer(container)
    .inspect()
    .then(() => true)
    .catch(() => false);
const volumeExists = async (name: string) =>
  runtime.docker
    .getVolume(name)
    .inspect()
    .then(() => true)
    .catch(() => false);

describe.skipIf(!hasDocker)('orphans of locfix processes', () => {
  it('a killed process leaves labelled things; a sweep removes them and nothing a live process holds', { timeout: 120_000 }, async () => {
    const left = await leaver();
    // this process holds one too, and a process on another host another
    const mine = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID });
    const elsewhere = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, labels: { [OWNER_LABEL]: 'another-host:1' } });
    const info = await runtime.docker.getContainer(left.container).inspect();
    expect(info.Config.Labels[SANDBOX_LABEL]).toBe('1');
    expect(info.Config.Labels[OWNER_LABEL]).toMatch(new RegExp(`^${os.hostname()}:\\d+$`));
    left.kill();
    await new Promise((r) => setTimeout(r, 300));
    expect(await exists(left.container), 'kill -9 runs no cleanup').toBe(true);

    await runtime.sweepOrphans();
    expect(await exists(left.container)).toBe(false);
    expect(await volumeExists(left.volume)).toBe(false);
    expect(await exists(mine.id)).toBe(true);
    expect(await exists(elsewhere.id)).toBe(true);
    expect(ownedLabels(RUN_ID)).toMatchObject({ [OWNER_LABEL]: `${os.hostname()}:${process.pid}` });
    await mine.dispose();
    await elsewhere.dispose();
  });
});
