/**
 * The repository tree as Agentless shows it to the model (agentless/util/preprocess_data.py:
 * create_structure → filter_none_python → filter_out_test_files → show_project_structure).
 *
 * Rules reproduced:
 * - only `.py` files; folders left without any Python file disappear — this happens *before* test
 *   filtering, so a folder that held only `test*` files stays, shown empty (as in Agentless);
 * - every file or folder whose name starts with `test` is dropped, at any depth (case-sensitive);
 * - rendering: one entry per line, 4 spaces per level, folders end with `/`; a name with a dot that does
 *   not contain `.py` (e.g. `.github`, `docs.d`) is skipped together with everything below it;
 * - order: in each folder its files first, then its subfolders (Agentless follows `os.walk`, whose order
 *   is the file system's; we sort names so the prompt is reproducible).
 * Agentless also files root-level files under a folder named after the repository (a quirk of its
 * checkout layout); `rootFolder` reproduces that for prompt-size comparisons, locfix itself keeps real paths.
 */

export interface StructureFolder {
  kind: 'folder';
  children: Map<string, StructureNode>;
}
export interface StructureFile {
  kind: 'file';
  path: string;
}
export type StructureNode = StructureFolder | StructureFile;

export interface TreeOptions {
  /** Agentless' quirk: root-level files are listed inside a folder with this name */
  rootFolder?: string;
}

const folder = (): StructureFolder => ({ kind: 'folder', children: new Map() });

/** The nested structure of `paths` (every file of the commit), in Agentless' insertion order. */
export function buildStructure(paths: readonly string[], options: TreeOptions = {}): StructureFolder {
  const root = folder();
  const sorted = [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // files before subfolders in each folder: insert all files first, folders are created on demand after
  const byFolder = new Map<string, string[]>();
  for (const p of sorted) {
    const slash = p.lastIndexOf('/');
    const dir = slash < 0 ? '' : p.slice(0, slash);
    const list = byFolder.get(dir) ?? [];
    list.push(p);
    byFolder.set(dir, list);
  }
  // visit folders top-down in sorted pre-order (what os.walk does with sorted listings)
  const folders = new Set<string>(['']);
  for (const dir of byFolder.keys()) {
    const parts = dir === '' ? [] : dir.split('/');
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const order = [...folders].sort((a, b) => {
    const pa = a === '' ? [] : a.split('/');
    const pb = b === '' ? [] : b.split('/');
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
    return pa.length - pb.length;
  });
  const folderNode = (dir: string): StructureFolder => {
    let parts = dir === '' ? [] : dir.split('/');
    if (options.rootFolder !== undefined) parts = dir === '' ? [options.rootFolder] : parts;
    let node = root;
    for (const part of parts) {
      let child = node.children.get(part);
      if (child?.kind !== 'folder') {
        child = folder();
        node.children.set(part, child);
      }
      node = child;
    }
    return node;
  };
  for (const dir of order) {
    const node = folderNode(dir);
    for (const p of byFolder.get(dir) ?? []) node.children.set(p.slice(p.lastIndexOf('/') + 1), { kind: 'file', path: p });
  }
  return root;
}

/** filter_none_python: non-Python files go, then folders that became empty. */
export function filterNonPython(node: StructureFolder): void {
  for (const [name, child] of [...node.children]) {
    if (child.kind === 'file') {
      if (!name.endsWith('.py')) node.children.delete(name);
    } else {
      filterNonPython(child);
      if (child.children.size === 0) node.children.delete(name);
    }
  }
}

/** filter_out_test_files: any entry whose name starts with `test`, at any depth. */
export function filterOutTests(node: StructureFolder): void {
  for (const [name, child] of [...node.children]) {
    if (name.startsWith('test')) node.children.delete(name);
    else if (child.kind === 'folder') filterOutTests(child);
  }
}

/** show_project_structure */
export function renderStructure(node: StructureFolder, spacing = 0): string {
  let out = '';
  for (const [name, child] of node.children) {
    if (name.includes('.') && !name.includes('.py')) continue;
    out += ' '.repeat(spacing) + name + (name.includes('.') ? '' : '/') + '\n';
    if (child.kind === 'folder') out += renderStructure(child, spacing + 4);
  }
  return out;
}

/** Paths of the files left in the structure, in structure order (get_full_file_paths_and_classes_and_functions). */
export function structureFiles(node: StructureFolder, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, child] of node.children) {
    const full = prefix ? `${prefix}/${name}` : name;
    if (child.kind === 'file') out.push(full);
    else out.push(...structureFiles(child, full));
  }
  return out;
}

export interface AgentlessTree {
  /** the rendered tree, trimmed as Agentless puts it in the prompt */
  text: string;
  /** candidate files (Python, no tests), as the model must spell them */
  files: string[];
}

/** The tree Agentless shows for a commit whose files are `paths`. */
export function agentlessTree(paths: readonly string[], options: TreeOptions = {}): AgentlessTree {
  const structure = buildStructure(paths, options);
  filterNonPython(structure);
  filterOutTests(structure);
  return { text: renderStructure(structure).trim(), files: structureFiles(structure) };
}
