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
 *
 * Agentless knows only Python. In a repository whose main language is another (src/index/file-filter.ts
 * decides it, as for the retrieval index), the same tree holds that language family's source files
 * instead, without the vendored, generated and build-output files, and test files are those the
 * ecosystem names as tests (`x_test.go`, `__tests__/`) rather than every name starting with `test`.
 */
import { isTestPath, mainLanguageExtensions, skipReason } from '../../src/index/file-filter.ts';

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
  /** source extensions shown; default: the commit's main language family (`.py` for a Python repository) */
  extensions?: readonly string[];
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

/** filter_none_python: files without a source extension go (and skipped ones), then folders that became empty. */
export function filterNonSource(node: StructureFolder, extensions: readonly string[] = ['.py']): void {
  const python = isPythonOnly(extensions);
  for (const [name, child] of [...node.children]) {
    if (child.kind === 'file') {
      const source = extensions.some((e) => name.toLowerCase().endsWith(e)) && (python || !skipReason(child.path));
      if (!source) node.children.delete(name);
    } else {
      filterNonSource(child, extensions);
      if (child.children.size === 0) node.children.delete(name);
    }
  }
}

const isPythonOnly = (extensions: readonly string[]) => extensions.length === 1 && extensions[0] === '.py';

/** filter_out_test_files: any entry whose name starts with `test`, at any depth. */
export function filterOutTests(node: StructureFolder): void {
  for (const [name, child] of [...node.children]) {
    if (name.startsWith('test')) node.children.delete(name);
    else if (child.kind === 'folder') filterOutTests(child);
  }
}

/** The test filter of other ecosystems: files their conventions name as tests, then emptied folders. */
function filterOutEcosystemTests(node: StructureFolder): void {
  for (const [name, child] of [...node.children]) {
    if (child.kind === 'file') {
      if (isTestPath(child.path)) node.children.delete(name);
    } else {
      filterOutEcosystemTests(child);
      if (child.children.size === 0) node.children.delete(name);
    }
  }
}

/** show_project_structure: a dotted name is shown only when it names a source file */
export function renderStructure(node: StructureFolder, spacing = 0, extensions: readonly string[] = ['.py']): string {
  let out = '';
  for (const [name, child] of node.children) {
    if (name.includes('.') && !extensions.some((e) => name.includes(e))) continue;
    out += ' '.repeat(spacing) + name + (name.includes('.') ? '' : '/') + '\n';
    if (child.kind === 'folder') out += renderStructure(child, spacing + 4, extensions);
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
  /** candidate files (source of the main language, no tests), as the model must spell them */
  files: string[];
  /** the source extensions shown */
  extensions: string[];
}

/** The tree Agentless shows for a commit whose files are `paths`. */
export function agentlessTree(paths: readonly string[], options: TreeOptions = {}): AgentlessTree {
  const main = mainLanguageExtensions(paths);
  const extensions = [...(options.extensions ?? (main.length > 0 ? main : ['.py']))];
  const structure = buildStructure(paths, options);
  filterNonSource(structure, extensions);
  if (isPythonOnly(extensions)) filterOutTests(structure);
  else filterOutEcosystemTests(structure);
  return { text: renderStructure(structure, 0, extensions).trim(), files: structureFiles(structure), extensions };
}
