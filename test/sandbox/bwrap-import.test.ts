/**
 * Images into the bwrap kind's store (sandbox/bwrap/import.ts): a `docker save` archive's layers flattened
 * with their whiteouts and opaque folders, gzip layers, Env and WorkingDir kept; hostile archives refused or
 * confined; a tree copied in; the store refusing to remove a parent. Real bwrap and GNU tar.
 */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack as tarPack } from 'tar-stream';
import { RootfsStore } from '../../sandbox/bwrap/image-store.ts';
import { importArchive, importTree } from '../../sandbox/bwrap/import.ts';
import { ensureBwrap } from '../support/sandbox-kinds.ts';

type Entry = { name: string; type?: 'file' | 'directory' | 'symlink'; body?: string; linkname?: string };

async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tarPack();
  for (const e of entries) {
    const type = e.type ?? 'file';
    if (type === 'file') pack.entry({ name: e.name, mode: 0o644 }, e.body ?? '');
    else if (type === 'directory') pack.entry({ name: e.name, type, mode: 0o755 });
    else pack.entry({ name: e.name, type, linkname: e.linkname });
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A `docker save`-shaped archive: manifest.json, a config, and the layers in order. */
async function saveArchive(layers: readonly Buffer[], config: object = {}, manifest?: unknown): Promise<Buffer> {
  const files: Entry[] = [];
  const names = layers.map((_, i) => `layer${i}/layer.tar`);
  files.push({ name: 'manifest.json', body: JSON.stringify(manifest ?? [{ Config: 'config.json', RepoTags: ['x:latest'], Layers: names }]) });
  files.push({ name: 'config.json', body: JSON.stringify({ config }) });
  const pack = tarPack();
  for (const f of files) pack.entry({ name: f.name }, f.body ?? '');
  layers.forEach((layer, i) => pack.entry({ name: names[i] }, layer));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const hasBwrap = await ensureBwrap('bwrap image import tests');

describe.skipIf(!hasBwrap)('bwrap image import', () => {
  let root: string;
  let store: RootfsStore;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-import-'));
    store = new RootfsStore(path.join(root, 'store'));
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('flattens layers: a whiteout deletes what lies below, an opaque folder empties it, later files win; gzip layers read', async () => {
    const lower = await tarOf([
      { name: 'etc/', type: 'directory' },
      { name: 'etc/gone', body: 'a' },
      { name: 'etc/kept', body: 'old' },
      { name: 'cache/', type: 'directory' },
      { name: 'cache/old', body: 'x' },
    ]);
    const upper = gzipSync(
      await tarOf([{ name: 'etc/.wh.gone' }, { name: 'etc/kept', body: 'new' }, { name: 'cache/.wh..wh..opq' }, { name: 'cache/fresh', body: 'y' }]),
    );
    const archive = path.join(root, 'image.tar');
    await fs.writeFile(archive, await saveArchive([lower, upper], { Env: ['PATH=/opt/bin:/usr/bin', 'A=1'], WorkingDir: '/srv' }));
    const image = await importArchive(store, archive, 'test/flat:1');
    expect(image).toMatchObject({ name: 'test/flat:1', env: ['PATH=/opt/bin:/usr/bin', 'A=1'], workdir: '/srv' });
    const [layer] = (await store.layers('test/flat:1')).layers;
    expect(existsSync(path.join(layer, 'etc', 'gone'))).toBe(false);
    expect(await fs.readFile(path.join(layer, 'etc', 'kept'), 'utf8')).toBe('new');
    expect((await fs.readdir(path.join(layer, 'cache'))).sort()).toEqual(['fresh']);
    expect((await fs.readdir(path.join(layer, 'etc'))).filter((n) => n.startsWith('.wh.'))).toEqual([]);
  });

  it('an archive cannot write outside its tree: a link out of it makes the import fail, and the host folder stays empty', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-outside-'));
    try {
      const layer = await tarOf([
        { name: 'evil', type: 'symlink', linkname: outside },
        { name: 'evil/pwned', body: 'x' },
      ]);
      const archive = path.join(root, 'evil.tar');
      await fs.writeFile(archive, await saveArchive([layer]));
      await expect(importArchive(store, archive, 'test/evil:1')).rejects.toThrow(/tar/);
      expect(await fs.readdir(outside)).toEqual([]);
      expect(await store.exists('test/evil:1')).toBe(false);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('refuses an archive that is not an image or names files outside itself, saying why', async () => {
    const plain = path.join(root, 'plain.tar');
    await fs.writeFile(plain, await tarOf([{ name: 'hello.txt', body: 'hi' }]));
    await expect(importArchive(store, plain, 'test/plain:1')).rejects.toThrow(/no manifest.json/);
    const escaping = await saveArchive([await tarOf([{ name: 'a', body: 'b' }])], {}, [{ Config: '../../etc/passwd', Layers: [] }]);
    await expect(importArchive(store, Readable.from(escaping), 'test/escape:1')).rejects.toThrow(/outside itself/);
  });

  it('copies a root filesystem tree in; the store refuses to remove an image another is built on', async () => {
    const tree = path.join(root, 'tree');
    await fs.mkdir(path.join(tree, 'bin'), { recursive: true });
    await fs.writeFile(path.join(tree, 'bin', 'sh'), '#!/bin/false\n');
    await fs.symlink('/etc/passwd', path.join(tree, 'link'));
    await importTree(store, tree, 'test/tree:1');
    const [layer] = (await store.layers('test/tree:1')).layers;
    expect(await fs.readlink(path.join(layer, 'link'))).toBe('/etc/passwd');
    await expect(importTree(store, path.join(root, 'image.tar'), 'test/not-a-tree')).rejects.toThrow(/is not a folder/);

    const child = await store.scratch('layer');
    await store.add({ name: 'test/child:1', parent: 'test/tree:1', env: [], workdir: '/' }, child);
    expect((await store.layers('test/child:1')).layers).toHaveLength(2);
    await expect(store.remove('test/tree:1')).rejects.toThrow(/parent of test\/child:1/);
    expect(await store.remove('test/child:1')).toBe(true);
    expect(await store.remove('test/tree:1')).toBe(true);
  });
});
