/**
 * The agent's tools: LocAgent's names and parameters (`search_code_snippets`, `explore_tree_structure`,
 * `get_entity_contents`, `finish`), described in locfix's words, each run on the commit's GraphTools.
 */
import type { GraphTools } from '../../src/index/graph/tools.ts';
import type { Direction } from '../../src/index/graph/traverse.ts';
import type { EdgeType, NodeType } from '../../src/index/graph/types.ts';
import type { ToolSpec } from './fn-call.ts';

const NODE_TYPES: readonly NodeType[] = ['directory', 'file', 'class', 'function'];
const EDGE_TYPES: readonly EdgeType[] = ['contains', 'imports', 'invokes', 'inherits'];

export const FINISH = 'finish';

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'search_code_snippets',
    description: `Searches the repository for code entities and snippets.
- A term that is an entity id (\`path/to/file{{ext}}:Class.method\`) or a file path shows that entity whole.
- A term that names a file, class or function shows the entities of that name (up to three in full, more as a list of ids).
- Any other term (keywords, a code fragment) finds the classes and functions whose names and code match it best.
- \`line_nums\` with a file path in \`file_path_or_pattern\` shows the code around those lines.`,
    parameters: [
      { name: 'search_terms', type: 'array', items: 'string', description: 'names, keywords or code fragments to search for' },
      { name: 'line_nums', type: 'array', items: 'integer', description: 'line numbers to show; needs one file path in file_path_or_pattern' },
      { name: 'file_path_or_pattern', type: 'string', description: 'a glob (`pkg/**/*{{ext}}`) or one file path that limits the search; default: every file' },
    ],
  },
  {
    name: 'explore_tree_structure',
    description: `Follows the code graph from start entities and prints what it reaches as an indented tree.
Nodes are directories, files, classes and functions; edges are \`contains\`, \`imports\`, \`invokes\` and \`inherits\`.
\`downstream\` follows edges out of an entity (what it contains, imports, calls, inherits from), \`upstream\` edges into it (printed as \`invokes-by\` etc.: who calls it, who inherits from it), \`both\` does both.`,
    parameters: [
      { name: 'start_entities', type: 'array', items: 'string', required: true, description: 'entity ids or file/directory paths to start from' },
      { name: 'direction', type: 'string', enum: ['downstream', 'upstream', 'both'], description: 'default downstream' },
      { name: 'traversal_depth', type: 'integer', description: 'edges to follow from a start entity (default 2; -1 for no limit)' },
      { name: 'entity_type_filter', type: 'array', items: 'string', enum: NODE_TYPES, description: 'only reach entities of these types' },
      { name: 'dependency_type_filter', type: 'array', items: 'string', enum: EDGE_TYPES, description: 'only follow edges of these types' },
    ],
  },
  {
    name: 'get_entity_contents',
    description:
      'Shows the full code of entities, with line numbers. Name a function or class by its id (`path/to/file{{ext}}:Class.method`), a file by its path.',
    parameters: [{ name: 'entity_names', type: 'array', items: 'string', required: true, description: 'entity ids or file paths' }],
  },
  {
    name: FINISH,
    description: 'Ends the search. Write the final list of locations (the required format) in this message, before the call.',
    parameters: [],
  },
];

/** The specs with the repository's main extension in their examples. */
export function toolSpecsFor(ext: string): ToolSpec[] {
  return TOOL_SPECS.map((t) => ({
    ...t,
    description: t.description.replaceAll('{{ext}}', ext),
    parameters: t.parameters.map((p) => ({ ...p, description: p.description.replaceAll('{{ext}}', ext) })),
  }));
}

type Args = Record<string, string | number | string[] | number[]>;

/** Runs one (already type-checked) call of a tool other than `finish`. */
export function runTool(tools: GraphTools, name: string, args: Args): Promise<string> {
  switch (name) {
    case 'search_code_snippets':
      return tools.searchCodeSnippets({
        ...(args.search_terms ? { searchTerms: args.search_terms as string[] } : {}),
        ...(args.line_nums ? { lineNums: args.line_nums as number[] } : {}),
        ...(args.file_path_or_pattern ? { filePattern: args.file_path_or_pattern as string } : {}),
      });
    case 'explore_tree_structure':
      return tools.exploreTreeStructure({
        startEntities: args.start_entities as string[],
        ...(args.direction ? { direction: args.direction as Direction } : {}),
        ...(args.traversal_depth !== undefined ? { depth: args.traversal_depth as number } : {}),
        ...(args.entity_type_filter ? { entityTypes: args.entity_type_filter as NodeType[] } : {}),
        ...(args.dependency_type_filter ? { edgeTypes: args.dependency_type_filter as EdgeType[] } : {}),
      });
    case 'get_entity_contents':
      return tools.getEntityContents(args.entity_names as string[]);
    default:
      return Promise.reject(new Error(`unknown tool ${name}`));
  }
}
