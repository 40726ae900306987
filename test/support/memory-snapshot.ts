/** A repository snapshot held in memory (blob ids as git computes them), for index tests that need no git. */
import { createHash } from 'node:crypto';
import type { RepoSnapshot, TreeEntry } from '../../src/repo/types.ts';

export class MemorySnapshot implements RepoSnapshot {
  private readonly blobs = new Map<string, Buffer>();
  private readonly entries: TreeEntry[];
  constructor(
    readonly repo: string,
    readonly commit: string,
    files: Record<string, string>,
  ) {
    this.entries = Object.entries(files).map(([p, text]) => {
      const data = Buffer.from(text);
      const blob = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
      this.blobs.set(blob, data);
      return { path: p, blob, size: data.length };
    });
  }
  async listFiles(): Promise<TreeEntry[]> {
    return this.entries;
  }
  async readFile(p: string): Promise<string | undefined> {
    const e = this.entries.find((x) => x.path === p);
    return e ? this.blobs.get(e.blob)!.toString('utf8') : undefined;
  }
  async readFiles(paths: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const p of paths) {
      const t = await this.readFile(p);
      if (t !== undefined) out.set(p, t);
    }
    return out;
  }
  async readBlob(blob: string): Promise<Buffer> {
    const b = this.blobs.get(blob);
    if (!b) throw new Error(`no blob ${blob}`);
    return b;
  }
}
