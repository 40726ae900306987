/**
 * The bwrap image store hands out nothing (issue 50, finding 2). Before, a layer built in the store was 0755 and its
 * build step ran as real root, so a setuid file it wrote stayed in the store and `nobody` ran it on the host as euid
 * 0. Now the store is 0700 and its owner's, a built layer keeps no setuid or setgid bit, a store other users can
 * reach is refused, and an image imported before sandboxes ran as subordinate ids is refused by name.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownersLabel, sandboxIdentity, subordinateBase } from '../../sandbox/bwrap/identity.ts';
import { ImageStoreError, RootfsStore, storeAccessProblem } from '../../sandbox/bwrap/image-store.ts';
import { BwrapImageEngine } from '../../sandbox/bwrap/images.ts';
import { settleLayer } from '../../sandbox/bwrap/layer-owners.ts';
import { BwrapRuntime } from '../../sandbox/bwrap/runtime.ts';
import { seccompFilter, seccompProfile } from '../../sandbox/bwrap/seccomp.ts';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/common/image-recipe.ts';
import { runLocfix } from '../support/cli.ts';
import { reachableBy } from '../support/containment-battery.ts';
import { bwrapTestStore, ensureBwrap } from '../support/sandbox-kinds.ts';

const hasBwrap = await ensureBwrap('bwrap image store tests');
const asRoot = process.getuid?.() === 0;
const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-store-'));
afterAll(() => fs.rm(scratch, { recursive: true, force: true }));

describe('the store folder is private', () => {
  it('is made 0700; one open to others, or of another user, is refused with what to do', async () => {
    const store = new RootfsStore(path.join(scratch, 'fresh'));
    await store.scratch('x');
    expect(((await fs.stat(store.root)).mode & 0o777).toString(8)).toBe('700');
    const shared = path.join(scratch, 'shared');
    await fs.mkdir(shared, { mode: 0o755 });
    await fs.chmod(shared, 0o755);
    await expect(new RootfsStore(shared).scratch('x')).rejects.toThrow(/mode 755: other users can reach its layers; it must be 0700/);
    expect(storeAccessProblem({ uid: 1234, mode: 0o700 }, 0)).toMatch(/belongs to uid 1234, not to this user/);
    expect(storeAccessProblem({ uid: 0, mode: 0o40700 }, 0)).toBeUndefined();
  });

  it('layers lose setuid and setgid bits (directories keep setgid); as root, owners move into the subordinate range', async () => {
    const layer = path.join(scratch, 'layer');
    await fs.mkdir(path.join(layer, 'bin'), { recursive: true });
    await fs.writeFile(path.join(layer, 'bin', 'rootsh'), '#!/bin/sh\n');
    await fs.chmod(path.join(layer, 'bin', 'rootsh'), 0o6755);
    await fs.mkdir(path.join(layer, 'shared'));
    await fs.chmod(path.join(layer, 'shared'), 0o2775);
    await fs.symlink('/etc/passwd', path.join(layer, 'link'));
    const settled = await settleLayer(layer, asRoot ? { kind: 'mapped', uidBase: 700_000, gidBase: 800_000 } : undefined);
    expect((await fs.stat(path.join(layer, 'bin', 'rootsh'))).mode & 0o7777).toBe(0o755);
    expect((await fs.stat(path.join(layer, 'shared'))).mode & 0o7777).toBe(0o2775);
    if (asRoot) {
      const stat = await fs.lstat(path.join(layer, 'link'));
      expect([stat.uid, stat.gid]).toEqual([700_000, 800_000]);
      expect((await fs.stat(layer)).uid).toBe(700_000);
      expect(settled.shifted).toBe(5);
    } else expect(settled.setidCleared).toEqual(['bin/rootsh']);
  });

  it('reads subordinate ranges as shadow writes them: by name or uid, the first with 65,536 ids', () => {
    const text = 'alice:100000:65536\nroot:200000:1000\n0:300000:65536\nroot:400000:65536\n';
    expect(subordinateBase(text, { name: 'root', uid: 0 })).toBe(300_000);
    expect(subordinateBase(text, { name: 'bob', uid: 1001 })).toBeUndefined();
  });

  it("the seccomp profile compiles here, every call known to this machine's libseccomp, and is kept once", async () => {
    const profile = await seccompProfile();
    expect(profile.groups.flatMap((g) => g.syscalls)).toEqual(
      expect.arrayContaining(['add_key', 'keyctl', 'unshare', 'setns', 'mount', 'bpf', 'open_by_handle_at']),
    );
    const dir = path.join(scratch, 'seccomp');
    const file = await seccompFilter(dir);
    expect((await fs.stat(file)).size % 8).toBe(0);
    expect(await fs.readdir(dir)).toHaveLength(1);
    const compiler = path.resolve(import.meta.dirname, '../../sandbox/bwrap/seccomp/compile.py');
    const stderr = spawnSync('/usr/bin/python3', [compiler, path.resolve(import.meta.dirname, '../../sandbox/bwrap/seccomp/profile.json')]).stderr.toString();
    expect(stderr, 'no call left out').toBe('');
  });
});

describe.skipIf(!hasBwrap)('built layers in the store', () => {
  it("a build step's setuid root shell is stored without the bit, in a store nobody else reaches", { timeout: 120_000 }, async () => {
    const store = bwrapTestStore();
    const runtime = new BwrapRuntime({ store });
    const engine = new BwrapImageEngine(runtime);
    const name = `test/setuid-${process.pid}:1`;
    await engine.buildLayer(DEFAULT_BASE_IMAGE, name, 'k', undefined, async (sandbox) => {
      const made = await sandbox.exec('cp /bin/sh /usr/local/bin/rootsh && chmod 4755 /usr/local/bin/rootsh && ls -l /usr/local/bin/rootsh');
      expect(made.output).toMatch(/^-rwsr-xr-x/);
    });
    try {
      const [layer] = (await store.layers(name)).layers;
      const shell = path.join(layer!, 'usr/local/bin/rootsh');
      expect((await fs.stat(shell)).mode & 0o7777).toBe(0o755); // before: 04755, owned by host root
      expect(((await fs.stat(store.root)).mode & 0o777).toString(8)).toBe('700');
      if (asRoot) {
        expect(reachableBy(65_534, shell)).toBe('unreachable');
        expect((await fs.stat(shell)).uid).not.toBe(0);
      }
      expect((await store.get(name))?.owners).toBe(ownersLabel(sandboxIdentity()));
    } finally {
      await engine.remove(name);
    }
  });

  it.skipIf(!asRoot)('an image imported before (host ids, no owners recorded) is refused by name, with what to do', async () => {
    const store = bwrapTestStore();
    const name = `test/legacy-${process.pid}:1`;
    await store.add({ name, parent: DEFAULT_BASE_IMAGE, env: [], workdir: '/' }, await store.scratch('layer'));
    try {
      const error = await new BwrapRuntime({ store }).create({ image: name }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImageStoreError);
      expect((error as Error).message).toMatch(new RegExp(`image ${name} holds host ids .*import it again \\(locfix images import\\)`));
    } finally {
      await store.remove(name);
    }
  });

  it('`locfix images list --image-store` shows the store owner, its mode and whose ids sandboxes run as', async () => {
    const result = await runLocfix(['images', 'list', '--image-store', bwrapTestStore().root], path.join(scratch, 'cache'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`image store .*: owner uid ${process.getuid?.()}, mode 0700 \\(private to its owner\\); sandboxes run as`));
  });
});
