/**
 * LocAgent's three tools over one commit's code graph, for an agent and for code alike, with LocAgent's
 * output shapes (plugins/location_tools/repo_ops/repo_ops.py) so traces compare:
 * - `searchCodeSnippets` (SearchEntity, LocAgent's `search_code_snippets`): per term, an entity id is shown
 *   whole; else the entities the term names (`## Searching for term "x"...`, `Found function \`id\`.`, a
 *   `Source:` line): up to three as a preview, more as a folded list of ids; else the best entities by BM25
 *   over their names and contents. `lineNums` with a file path shows the lines around each line number.
 * - `exploreTreeStructure` (TraverseGraph): the indented tree of traverse.ts per start entity.
 * - `getEntityContents` (RetrieveEntity): an entity's numbered lines.
 * Test files are left out of every answer, as LocAgent does. Every id an answer showed is counted in `shown`
 * (the agent's trajectory evidence).
 */
import { isTestPath } from '../file-filter.ts';
import { Bm25Index, TermDictionary, queryTermsOf, termVectorOf } from '../bm25.ts';
import type { RepoSnapshot } from '../../repo/types.ts';
import type { CodeGraph } from './code-graph.ts';
import { EntityIndex, entityContent } from './entities.ts';
import { type Direction, traverseTree } from './traverse.ts';
import type { EdgeType, GraphNode, NodeType } from './types.ts';

export interface GraphToolsOptions {
  /** a class or file longer than this many lines is previewed by its members' first lines (LocAgent: 100) */
  previewMaxLines?: number;
  /** lines shown either side of a requested line number (LocAgent: 20) */
  contextLines?: number;
  /** more matches than this are folded into a list of ids (LocAgent: 3) */
  previewMatches?: number;
}

export interface SearchArgs {
  searchTerms?: readonly string[];
  lineNums?: readonly number[];
  /** a glob over repository paths (`**` any folders, `*` within one) or one file's path */
  filePattern?: string;
}

export interface TraverseArgs {
  startEntities: readonly string[];
  direction?: Direction;
  depth?: number;
  entityTypes?: readonly NodeType[];
  edgeTypes?: readonly EdgeType[];
}

const isTestNode = (node: GraphNode) => isTestPath(node.path);

interface EntityBm25 {
  index: Bm25Index;
  dict: TermDictionary;
  docs: GraphNode[];
}

/** one BM25 index per graph object: the samples of one instance share their graph, and building the
 * index reads every source file (seconds on sympy), so it is built once and only read afterwards */
const bm25ByGraph = new WeakMap<CodeGraph, Promise<EntityBm25>>();

export class GraphTools {
  readonly entities: EntityIndex;
  /** node id → how many answers showed it */
  readonly shown = new Map<string, number>();
  private readonly contents = new Map<string, string | undefined>();
  private bm25?: EntityBm25;
  private readonly previewMaxLines: number;
  private readonly contextLines: number;
  private readonly previewMatches: number;

  constructor(
    readonly graph: CodeGraph,
    private readonly snapshot: RepoSnapshot,
    options: GraphToolsOptions = {},
  ) {
    this.entities = new EntityIndex(graph);
    this.previewMaxLines = options.previewMaxLines ?? 100;
    this.contextLines = options.contextLines ?? 20;
    this.previewMatches = options.previewMatches ?? 3;
  }

  async searchCodeSnippets(args: SearchArgs): Promise<string> {
    const files = this.graph.nodes('file').filter((n) => !isTestNode(n));
    let out = '';
    let include: Set<string> | undefined;
    if (args.filePattern && args.filePattern !== '**/*') {
      const re = globToRegExp(args.filePattern);
      const matched = files.filter((f) => re.test(f.path)).map((f) => f.path);
      if (matched.length > 0) include = new Set(matched);
      else out += `No files found for file pattern '${args.filePattern}'. Will search all files.\n...\n`;
    }
    const terms = (args.searchTerms ?? []).map((t) => t.trim().replace(/^\.+|\.+$/g, '')).filter(Boolean);
    if (terms.length === 0 && !(args.lineNums?.length && args.filePattern))
      return `${out}Either search_terms or line_nums with a file path must be given.`.trim();
    for (const term of terms) {
      if (isTestPath(term.split(':', 1)[0]!)) {
        out += `No results for test files: \`${term}\`. Please do not search for any test files.\n\n`;
        continue;
      }
      out += `##Searching for term "${term}"...\n### Search Result:\n${(await this.searchTerm(term, include)) || 'No locations found.\n'}\n`;
    }
    if (args.lineNums?.length && args.filePattern) out += await this.linesAround(args.filePattern, args.lineNums);
    return out.trim();
  }

  async exploreTreeStructure(args: TraverseArgs): Promise<string> {
    const parts: string[] = [];
    for (const start of args.startEntities) {
      const node = this.resolve(start);
      if (!node) {
        parts.push(`The entity \`${start}\` is not in the graph: search for it with search_code_snippets first.`);
        continue;
      }
      const tree = traverseTree(this.graph, node.id, {
        direction: args.direction ?? 'downstream',
        hops: args.depth ?? 2,
        ...(args.entityTypes ? { nodeTypes: args.entityTypes } : {}),
        ...(args.edgeTypes ? { edgeTypes: args.edgeTypes } : {}),
      });
      for (const line of tree.split('\n')) this.note(line.slice(line.lastIndexOf('── ') + (line.includes('── ') ? 3 : 0)).trim());
      parts.push(tree);
    }
    return parts.join('\n\n');
  }

  async getEntityContents(names: readonly string[]): Promise<string> {
    let out = '';
    for (const raw of names) {
      const name = raw.trim().replace(/^\.+|\.+$/g, '');
      if (!name) continue;
      out += `##Searching for entity \`${name}\`...\n### Search Result:\n`;
      const node = this.graph.node(name);
      if (node && node.type !== 'directory') {
        out += `${await this.complete(node, `Exact match found for entity name \`${name}\`.`)}\n`;
        continue;
      }
      const named = this.entities.findEntities(name);
      out +=
        named.length > 0
          ? `Invalid name \`${name}\`. Entities with that name:\n${named.map((n) => `- ${n.id}`).join('\n')}\nHint: ask for one of them by its full id.\n\n`
          : `Invalid name \`${name}\`.\nHint: search for it with search_code_snippets, then ask for the id it shows.\n\n`;
    }
    return out.trim();
  }

  /** a node by id, else the one entity a name names (undefined when none or several) */
  resolve(name: string): GraphNode | undefined {
    const direct = this.graph.node(name.trim());
    if (direct) return direct;
    const named = this.entities.findEntities(name);
    return named.length === 1 ? named[0] : undefined;
  }

  private async searchTerm(term: string, include: Set<string> | undefined): Promise<string> {
    const exact = this.graph.node(term);
    if (exact && exact.type !== 'directory' && !isTestNode(exact)) return `${await this.complete(exact, `Exact match found for entity name \`${term}\`.`)}\n`;
    const within = (nodes: GraphNode[]) => nodes.filter((n) => n.type !== 'directory' && !isTestNode(n) && (!include || include.has(n.path)));
    let used = term;
    let named = within(this.entities.findEntities(term));
    if (named.length === 0 && term.includes('.') && !term.includes('/')) {
      // `Class.method`: the method's name, kept to entities under that class when any are
      const prefix = term.slice(0, term.lastIndexOf('.'));
      used = term.slice(term.lastIndexOf('.') + 1);
      const byName = within(this.entities.findEntities(used));
      const underPrefix = byName.filter((n) => n.name?.startsWith(`${prefix.slice(prefix.lastIndexOf('.') + 1)}.`) || n.name?.includes(`.${prefix}.`));
      named = underPrefix.length > 0 ? underPrefix : byName;
    }
    if (named.length > 0) {
      const source = `Match found for entity name \`${used}\`.`;
      if (named.length <= this.previewMatches) return (await Promise.all(named.map((n) => this.preview(n, source)))).join('\n');
      for (const n of named) this.note(n.id);
      return `${named.map((n) => `${n.id}\n`).join('')}Source: ${source}\nHint: Use more detailed query to get the full content of some if needed.\n`;
    }
    await this.prepareKeywordSearch();
    const hits = this.keywordSearch(term, include);
    if (hits.length === 0) return '';
    return (await Promise.all(hits.slice(0, this.previewMatches).map((n) => this.preview(n, 'Retrieved entity using keyword search (bm25).')))).join('\n');
  }

  /** classes and functions by BM25 over their id and lines (LocAgent's fallback when no name matches) */
  private keywordSearch(term: string, include: Set<string> | undefined): GraphNode[] {
    const bm25 = this.bm25;
    if (!bm25) return [];
    const query = queryTermsOf(term, bm25.dict, 'unique');
    const hits = bm25.index.search(query, 50).map((h) => bm25.docs[h.doc]!);
    const inside = include ? hits.filter((n) => include.has(n.path)) : hits;
    return (inside.length > 0 ? inside : hits).slice(0, 5);
  }

  /** the BM25 index over every non-test class and function (built once per graph; reads their files) */
  async prepareKeywordSearch(): Promise<void> {
    if (this.bm25) return;
    let pending = bm25ByGraph.get(this.graph);
    if (!pending) {
      pending = buildEntityBm25(this.graph, this.snapshot);
      bm25ByGraph.set(this.graph, pending);
      // a failed read must not poison the graph's cache for the next caller
      pending.catch(() => bm25ByGraph.delete(this.graph));
    }
    this.bm25 = await pending;
  }

  private async content(path: string): Promise<string | undefined> {
    if (!this.contents.has(path)) this.contents.set(path, await this.snapshot.readFile(path));
    return this.contents.get(path);
  }

  private async complete(node: GraphNode, source: string): Promise<string> {
    this.note(node.id);
    const content = await this.content(node.path);
    return `Found ${node.type} \`${node.id}\`.\nSource: ${source}\n${content === undefined ? '(file not readable)' : entityContent(node, content)}\n`;
  }

  /** a function in full; a class or file in full when short, else its members' first lines */
  private async preview(node: GraphNode, source: string): Promise<string> {
    const content = await this.content(node.path);
    const lines = content?.split('\n').length ?? 0;
    const size = node.type === 'file' ? lines : (node.endLine ?? 0) - (node.startLine ?? 0);
    if (node.type === 'function' || size <= this.previewMaxLines || content === undefined) return this.complete(node, source);
    this.note(node.id);
    const fileLines = content.split('\n');
    const members = this.graph
      .edgesFrom(node.id, 'contains')
      .map((e) => this.graph.node(e.target)!)
      .filter((m) => m.startLine !== undefined)
      .sort((a, b) => a.startLine! - b.startLine!);
    const width = String(Math.max(1, ...members.map((m) => m.startLine!))).length;
    const outline = members.map((m) => `${String(m.startLine).padStart(width)} | ${fileLines[m.startLine! - 1] ?? ''}`);
    return `Found ${node.type} \`${node.id}\`.\nSource: ${source}\nJust show the structure of this ${node.type} due to response length limitations:\n\`\`\`\n${outline.join('\n')}\n\`\`\`\n`;
  }

  private async linesAround(path: string, lineNums: readonly number[]): Promise<string> {
    const node = this.graph.node(path);
    if (node?.type !== 'file') return `No file \`${path}\` in the repository: line numbers need one file's path.\n`;
    const content = await this.content(path);
    if (content === undefined) return `\`${path}\` could not be read.\n`;
    const lines = content.split('\n');
    let out = '';
    for (const n of lineNums) {
      if (!Number.isInteger(n) || n < 1 || n > lines.length) {
        out += `Line ${n} is outside \`${path}\` (1-${lines.length}).\n\n`;
        continue;
      }
      const owner = this.innermost(path, n);
      const start = Math.max(1, n - this.contextLines);
      const end = Math.min(lines.length, n + this.contextLines);
      const width = String(end).length;
      this.note(owner?.id ?? path);
      out += `##Searching for \`${path}:line ${n}\`...\n### Search Result:\nFound code snippet in \`${owner?.id ?? path}\` (lines ${start}-${end}):\n\`\`\`\n${lines
        .slice(start - 1, end)
        .map((l, i) => `${String(start + i).padStart(width)} | ${l}`)
        .join('\n')}\n\`\`\`\n\n`;
    }
    return out;
  }

  private innermost(path: string, line: number): GraphNode | undefined {
    let best: GraphNode | undefined;
    const visit = (id: string): void => {
      for (const e of this.graph.edgesFrom(id, 'contains')) {
        const n = this.graph.node(e.target)!;
        if (n.startLine !== undefined && n.startLine <= line && line <= (n.endLine ?? n.startLine)) {
          best = n;
          visit(n.id);
        }
      }
    };
    visit(path);
    return best;
  }

  private note(id: string): void {
    if (!id || !this.graph.node(id)) return;
    this.shown.set(id, (this.shown.get(id) ?? 0) + 1);
  }
}

/** `**` any number of folders, `*` and `?` within one path part; a pattern without a glob matches itself or a folder prefix */
export function globToRegExp(pattern: string): RegExp {
  const p = pattern.trim().replace(/^\.\//, '');
  if (!/[*?[]/.test(p)) return new RegExp(`^${escapeRegExp(p.replace(/\/+$/, ''))}(?:/.*)?$`);
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      const slash = p[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`);
}

const escapeRegExp = (s: string) => s.replace(/[.+^${}()|[\]\\*?]/g, '\\$&');

async function buildEntityBm25(graph: CodeGraph, snapshot: RepoSnapshot): Promise<EntityBm25> {
  const docs = graph.nodes().filter((n) => (n.type === 'class' || n.type === 'function') && !isTestNode(n));
  const read = await snapshot.readFiles([...new Set(docs.map((d) => d.path))]);
  const dict = new TermDictionary();
  const vectors = docs.map((d) => {
    const lines = (read.get(d.path) ?? '').split('\n').slice((d.startLine ?? 1) - 1, d.endLine);
    return termVectorOf(`${d.id}\n${lines.join('\n')}`, dict);
  });
  return { index: new Bm25Index(vectors), dict, docs };
}
