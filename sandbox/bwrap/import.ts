/**
 * Images into the bubblewrap kind's store: a root filesystem tree (debootstrap's, say) copied in, or a
 * `docker save` / `podman save` archive flattened into one layer — its layers unpacked in order, each
 * whiteout (`.wh.NAME`) deleting NAME of the layers below and each opaque marker (`.wh..wh..opq`) emptying
 * its folder of them, as the image spec says. The archive's Env and WorkingDir become the image's.
 *
 * Unpacking happens under bwrap with the host read-only and only the new tree writable, so an archive whose
 * symbolic links point out of the tree cannot write anywhere else; whiteouts are applied by path, never
 * through a symbolic link.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import { z } from 'zod';
import { ownersLabel, sandboxIdentity } from './identity.ts';
import { settleLayer } from './layer-owners.ts';
import { DEFAULT_IMAGE_ENV, ImageStoreError, type RootfsStore, removeTree, type StoredImage } from './image-store.ts';

const ArchiveManifest = z.array(z.object({ Config: z.string(), RepoTags: z.array(z.string()).nullish(), Layers: z.array(z.string()) }).passthrough()).min(1);
const ImageConfigFile = z
  .object({
    config: z
      .object({ Env: z.array(z.string()).nullish(), WorkingDir: z.string().nullish() })
      .passthrough()
      .nullish(),
  })
  .passthrough();

/** Copies a root filesystem tree in as image `name` (symbolic links are copied as links). */
export async function importTree(store: RootfsStore, tree: string, name: string): Promise<StoredImage> {
  const stat = await fs.stat(tree).catch(() => undefined);
  if (!stat?.isDirectory()) throw new ImageStoreError(`${tree} is not a folder`);
  if (!(await fs.stat(path.join(tree, 'bin', 'sh')).catch(() => undefined))) throw new ImageStoreError(`${tree} has no bin/sh: not a root filesystem`);
  const layer = await store.scratch('import');
  try {
    await run('cp', ['-a', '--reflink=auto', '--', `${path.resolve(tree)}/.`, layer]);
    return await store.add({ name, env: DEFAULT_IMAGE_ENV, workdir: '/', owners: await settle(layer) }, layer, { replace: true });
  } finally {
    await removeTree(layer);
  }
}

/** Flattens a `docker save` / `podman save` archive (a file, or a stream of one) into image `name`. */
export async function importArchive(store: RootfsStore, archive: string | Readable, name: string): Promise<StoredImage> {
  const unpacked = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-archive-'));
  const layer = await store.scratch('import');
  try {
    await unpackOuter(typeof archive === 'string' ? createReadStream(archive) : archive, unpacked);
    const manifest = ArchiveManifest.safeParse(JSON.parse(await readInside(unpacked, 'manifest.json')));
    if (!manifest.success) throw new ImageStoreError('the archive has no usable manifest.json (is it a `docker save` / `podman save` archive?)');
    const entry = manifest.data[0];
    const config = ImageConfigFile.parse(JSON.parse(await readInside(unpacked, entry.Config))).config;
    for (const layerFile of entry.Layers) await applyLayer(insidePath(unpacked, layerFile), layer);
    const env = config?.Env?.length ? config.Env : DEFAULT_IMAGE_ENV;
    return await store.add({ name, env, workdir: config?.WorkingDir || '/', owners: await settle(layer) }, layer, { replace: true });
  } catch (err) {
    if (err instanceof SyntaxError) throw new ImageStoreError(`the archive's JSON is damaged: ${err.message}`);
    throw err;
  } finally {
    await removeTree(layer);
    await removeTree(unpacked);
  }
}

/**
 * An unpacked layer made ready for the store (layer-owners.ts): no setuid or setgid file, and as root its
 * owners shifted into the subordinate range the sandboxes map. Returns the owners label it is recorded with.
 */
async function settle(layer: string): Promise<string> {
  const identity = sandboxIdentity();
  await settleLayer(layer, identity);
  return ownersLabel(identity);
}

/** A path of the archive, refused when it would leave the folder it was unpacked to. */
function insidePath(root: string, relative: string): string {
  const at = path.resolve(root, relative);
  if (!at.startsWith(`${root}${path.sep}`)) throw new ImageStoreError(`the archive names ${JSON.stringify(relative)}, outside itself`);
  return at;
}

async function readInside(root: string, relative: string): Promise<string> {
  return fs.readFile(insidePath(root, relative), 'utf8').catch(() => {
    throw new ImageStoreError(`the archive has no ${relative}`);
  });
}

/** The outer archive's regular files (manifest, configs, layer tars) into `dir`; nothing else is kept. */
async function unpackOuter(input: Readable, dir: string): Promise<void> {
  const extract = tarExtract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const name = path.posix.normalize(header.name);
      if (header.type !== 'file' || name.startsWith('..') || path.posix.isAbsolute(name)) {
        stream.on('end', next);
        stream.resume();
        return;
      }
      const target = path.join(dir, name);
      fs.mkdir(path.dirname(target), { recursive: true })
        .then(() => pipeline(stream, createWriteStream(target)))
        .then(() => next(), reject);
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  input.on('error', (err) => extract.destroy(err));
  input.pipe(extract);
  await done;
}

/** One layer tar (plain or gzip) onto `root`: its whiteouts first, then its files. */
async function applyLayer(layerFile: string, root: string): Promise<void> {
  const whiteouts: string[] = [];
  const opaque: string[] = [];
  const extract = tarExtract();
  const listed = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const name = path.posix.normalize(header.name).replace(/^\.?\/+/, '');
      const base = path.posix.basename(name);
      if (base === '.wh..wh..opq') opaque.push(path.posix.dirname(name));
      else if (base.startsWith('.wh.')) whiteouts.push(path.posix.join(path.posix.dirname(name), base.slice(4)));
      stream.on('end', next);
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  const source = createReadStream(layerFile);
  const gzip = (await readMagic(layerFile)) === 0x1f8b;
  (gzip ? source.pipe(createGunzip()) : source).pipe(extract);
  await listed;
  for (const dir of opaque) {
    const at = await confined(root, dir);
    if (at) for (const child of await fs.readdir(at).catch(() => [])) await removeTree(path.join(at, child));
  }
  for (const gone of whiteouts) {
    const at = await confined(root, gone);
    if (at) await removeTree(at);
  }
  const owner = os.userInfo().uid === 0 ? ['--same-owner', '--numeric-owner'] : ['--no-same-owner'];
  const tar = ['tar', '-x', ...(gzip ? ['-z'] : []), '-f', layerFile, '-C', root, ...owner, '--exclude=.wh.*', '--exclude=*/.wh.*'];
  // the host read-only, the new tree writable: a link in the archive cannot point the unpacking elsewhere
  await run(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--bind',
      root,
      root,
      '--dev',
      '/dev',
      '--unshare-ipc',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-uts',
      '--die-with-parent',
      '--',
      ...tar,
    ],
    (output) =>
      // without root, device nodes cannot be made; the rest of the layer is still unpacked
      output.split('\n').filter((line) => line.trim() && !/Cannot mknod|Exiting with failure status due to previous errors/.test(line)).length === 0,
  );
}

async function readMagic(file: string): Promise<number> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(2);
    await handle.read(buffer, 0, 2, 0);
    return buffer.readUInt16BE(0);
  } finally {
    await handle.close();
  }
}

/** `root/relative` when no folder on the way is a symbolic link (so a removal stays inside the tree); else undefined. */
async function confined(root: string, relative: string): Promise<string | undefined> {
  const parts = path.posix.normalize(relative).split('/').filter(Boolean);
  if (parts.length === 0 || parts.includes('..')) return undefined;
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    const stat = await fs.lstat(at).catch(() => undefined);
    if (!stat?.isDirectory()) return undefined;
  }
  return path.join(at, parts[parts.length - 1]);
}

/** Runs a command; a non-zero exit is an error unless `acceptable(output)` says its complaints are harmless. */
function run(command: string, args: readonly string[], acceptable?: (output: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (output.length < 64_000) output += chunk.toString();
    });
    child.on('error', (err) => reject(new ImageStoreError(`${command}: ${err.message}`)));
    child.on('close', (code) => {
      if (code === 0 || (code === 2 && acceptable?.(output))) resolve();
      else reject(new ImageStoreError(`${command} exited with ${code}: ${output.trim().split('\n').slice(-5).join('; ')}`));
    });
  });
}
