/** Tar archives of host folders for copying into containers (symlinks kept). */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Header, Pack } from 'tar-stream';

export async function addTree(pack: Pack, hostDir: string, prefix: string): Promise<void> {
  const entries = await fs.readdir(hostDir, { withFileTypes: true });
  for (const entry of entries) {
    const hostPath = path.join(hostDir, entry.name);
    const name = `${prefix}/${entry.name}`;
    const stat = await fs.lstat(hostPath);
    if (stat.isSymbolicLink()) {
      await addEntry(pack, { name, type: 'symlink', linkname: await fs.readlink(hostPath), mode: stat.mode & 0o7777 });
    } else if (stat.isDirectory()) {
      await addEntry(pack, { name, type: 'directory', mode: stat.mode & 0o7777 });
      await addTree(pack, hostPath, name);
    } else if (stat.isFile()) {
      await addEntry(pack, { name, type: 'file', mode: stat.mode & 0o7777, size: stat.size }, await fs.readFile(hostPath));
    }
  }
}

function addEntry(pack: Pack, header: Partial<Header> & { name: string }, body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry(header, body ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
  });
}
