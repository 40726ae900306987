/**
 * The images of the bubblewrap sandbox kind: unpacked root filesystems in a folder of their own, no daemon.
 *
 *   <store>/images/<hash of the name>/image.json   { name, parent?, key?, env, workdir, created }
 *   <store>/images/<hash of the name>/rootfs/      this image's layer
 *   <store>/sandboxes/                             sandboxes' writable layers (same filesystem: a built layer is renamed in)
 *   <store>/seccomp/<hash>.bpf                     the sandboxes' compiled seccomp filter (seccomp.ts)
 *
 * The store's folder is this user's and no one else's (0700): its layers hold whatever images and builds put
 * there, and a store other users can reach would hand them those files. One that is not is refused.
 *
 * An imported image (a `docker save` / `podman save` archive flattened, or a copied debootstrap tree) is one
 * layer; an image built on another adds the writable layer of the sandbox that built it, whiteouts and all,
 * and names its parent. A sandbox stacks an image's layers as overlayfs lower layers, top first.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MissingImageError } from '../../src/sandbox/types.ts';

export interface StoredImage {
  name: string;
  /** the image this one's layer sits on */
  parent?: string;
  /** what it was built from (the same hash the Docker kind's image label carries) */
  key?: string;
  /** NAME=VALUE lines, as a Docker image's Env */
  env: string[];
  workdir: string;
  created: string;
  /** whose ids its layer holds (identity.ts `ownersLabel`): a sandbox of another identity cannot use it */
  owners?: string;
}

const StoredImageSchema = z
  .object({
    name: z.string().min(1),
    parent: z.string().min(1).optional(),
    key: z.string().optional(),
    env: z.array(z.string()),
    workdir: z.string().startsWith('/'),
    created: z.string(),
    owners: z.string().optional(),
  })
  .strict();

export const DEFAULT_IMAGE_ENV = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'LANG=C.UTF-8'];
/** overlayfs takes this many lower layers at most; a chain longer than this is a mistake, not an image */
const MAX_LAYERS = 128;

export class ImageStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageStoreError';
  }
}

/** overlayfs separates lower layers with ':' and options with ','; a store path holding either cannot be mounted */
export function assertMountablePath(dir: string): void {
  if (/[,:\n]/.test(dir)) throw new ImageStoreError(`${dir}: a path with ',' or ':' cannot be an overlay layer; put the image store elsewhere (--image-store)`);
}

export class RootfsStore {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    assertMountablePath(this.root);
  }

  get sandboxesDir(): string {
    return path.join(this.root, 'sandboxes');
  }

  get seccompDir(): string {
    return path.join(this.root, 'seccomp');
  }

  private ready?: Promise<void>;

  /**
   * Makes the store's folder (0700) or checks it: it must be this user's, with no access for group or others.
   * A store on a shared path that others can reach is refused, never opened up or used.
   */
  ensurePrivate(): Promise<void> {
    this.ready ??= (async () => {
      await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
      const problem = storeAccessProblem(await fs.stat(this.root), process.getuid?.() ?? 0);
      if (problem) throw new ImageStoreError(`image store ${this.root}: ${problem}`);
    })();
    this.ready.catch(() => {
      this.ready = undefined;
    });
    return this.ready;
  }

  /** The store's owner and mode, for `locfix images list`. */
  async describe(): Promise<{ uid: number; mode: string; problem?: string }> {
    const stat = await fs.stat(this.root);
    const problem = storeAccessProblem(stat, process.getuid?.() ?? 0);
    return { uid: stat.uid, mode: (stat.mode & 0o7777).toString(8).padStart(4, '0'), ...(problem ? { problem } : {}) };
  }

  private imageDir(name: string): string {
    return path.join(this.root, 'images', createHash('sha256').update(name).digest('hex').slice(0, 24));
  }

  async get(name: string): Promise<StoredImage | undefined> {
    let text: string;
    try {
      text = await fs.readFile(path.join(this.imageDir(name), 'image.json'), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = StoredImageSchema.safeParse(JSON.parse(text));
    if (!parsed.success || parsed.data.name !== name)
      throw new ImageStoreError(`image store ${this.root}: the record of ${name} is damaged; remove it (locfix images prune) and import it again`);
    return parsed.data;
  }

  async exists(name: string): Promise<boolean> {
    return (await this.get(name)) !== undefined;
  }

  async list(): Promise<StoredImage[]> {
    const dirs = await fs.readdir(path.join(this.root, 'images')).catch(() => [] as string[]);
    const images: StoredImage[] = [];
    for (const dir of dirs) {
      const text = await fs.readFile(path.join(this.root, 'images', dir, 'image.json'), 'utf8').catch(() => undefined);
      const parsed = text === undefined ? undefined : StoredImageSchema.safeParse(JSON.parse(text));
      if (parsed?.success) images.push(parsed.data);
    }
    return images.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The image's layers, top first (overlayfs' lowerdir order), the names of its chain (itself first), and its record. */
  async layers(name: string): Promise<{ image: StoredImage; layers: string[]; chain: string[]; images: StoredImage[] }> {
    const image = await this.get(name);
    if (!image) throw new MissingImageError(name, `the image store ${this.root} (locfix images import)`);
    const layers: string[] = [];
    const images: StoredImage[] = [];
    const seen = new Set<string>();
    for (let at: StoredImage | undefined = image; at; at = at.parent ? await this.get(at.parent) : undefined) {
      if (seen.has(at.name) || layers.length >= MAX_LAYERS) throw new ImageStoreError(`image ${name}: its parent chain loops or is longer than ${MAX_LAYERS}`);
      seen.add(at.name);
      images.push(at);
      layers.push(path.join(this.imageDir(at.name), 'rootfs'));
      if (at.parent && !(await this.get(at.parent))) throw new MissingImageError(at.parent, `the image store ${this.root} (the parent of ${at.name})`);
    }
    return { image, layers, chain: [...seen], images };
  }

  /**
   * Records `layerDir` (moved in, so on the store's filesystem) as image `name`. An image of the same name is
   * replaced; an image built on it keeps working only while its parent's layer is the same, so the caller
   * replaces only images nothing is built on.
   */
  async add(record: Omit<StoredImage, 'created'>, layerDir: string, options: { replace?: boolean } = {}): Promise<StoredImage> {
    await this.ensurePrivate();
    const dir = this.imageDir(record.name);
    // a build of the same name (the same key: the same content) that another process finished first is kept:
    // its sandboxes may be using its layer
    const existing = options.replace ? undefined : await this.get(record.name);
    if (existing) return existing;
    const staging = `${dir}.adding-${process.pid}-${Date.now()}`;
    await fs.mkdir(staging, { recursive: true });
    const image: StoredImage = { ...record, created: new Date().toISOString() };
    try {
      await fs.rename(layerDir, path.join(staging, 'rootfs'));
      await fs.writeFile(path.join(staging, 'image.json'), `${JSON.stringify(image, null, 2)}\n`);
      await removeTree(dir);
      await fs.rename(staging, dir);
    } catch (err) {
      await removeTree(staging);
      throw err;
    }
    return image;
  }

  /** Removes an image; refused while another image is built on it. Returns false when it was not there. */
  async remove(name: string): Promise<boolean> {
    if (!(await this.get(name))) return false;
    const children = (await this.list()).filter((image) => image.parent === name).map((image) => image.name);
    if (children.length) throw new ImageStoreError(`image ${name} is the parent of ${children.join(', ')}; remove those first`);
    await removeTree(this.imageDir(name));
    return true;
  }

  /** A fresh folder on the store's filesystem (layers are built and unpacked there, then moved in). */
  async scratch(prefix: string): Promise<string> {
    await this.ensurePrivate();
    await fs.mkdir(this.sandboxesDir, { recursive: true, mode: 0o700 });
    return fs.mkdtemp(path.join(this.sandboxesDir, `${prefix}-`));
  }
}

/** Why a store folder with this owner and mode is open to other users than `uid`, or undefined. */
export function storeAccessProblem(stat: { uid: number; mode: number }, uid: number): string | undefined {
  if (stat.uid !== uid) return `the folder belongs to uid ${stat.uid}, not to this user (uid ${uid}); use a store of your own (--image-store)`;
  if (stat.mode & 0o077)
    return `the folder is mode ${(stat.mode & 0o777).toString(8)}: other users can reach its layers; it must be 0700 (chmod 700 the folder, or use another --image-store)`;
  return undefined;
}

/**
 * Removes a tree that sandboxed code may have written: folders it made unreadable or unwritable are opened
 * first, so a non-root owner can remove them too.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' && (err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    await openFolders(dir);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function openFolders(dir: string): Promise<void> {
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return;
  await fs.chmod(dir, 0o700).catch(() => undefined);
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (entry.isDirectory()) await openFolders(path.join(dir, entry.name));
  }
}
