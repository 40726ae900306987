/**
 * `git ls-tree -r -l -z` output as TreeEntry lists: the reference the tree listing (src/repo/catfile.ts
 * TreeLister, which replaced ls-tree in the store) is checked against.
 */
import type { TreeEntry } from '../../src/repo/types.ts';

/** Parses `git ls-tree -r -l -z` output, keeping regular files (symlinks and submodules left out). */
export function parseLsTree(output: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf(0, start);
    if (end < 0) end = output.length;
    const tab = output.indexOf(0x09, start);
    if (tab > start && tab < end) {
      // "<mode> SP <type> SP <oid> SP+ <size> TAB <path>"; the path is raw bytes (UTF-8 in practice)
      const meta = output.toString('latin1', start, tab).split(/ +/);
      const [mode, type, blob, size] = meta;
      if (type === 'blob' && mode !== undefined && mode.startsWith('100') && blob !== undefined) {
        entries.push({ path: output.toString('utf8', tab + 1, end), blob, size: Number(size) });
      }
    }
    start = end + 1;
  }
  return entries;
}
