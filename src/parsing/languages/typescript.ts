/** TypeScript and TSX: the two grammars of tree-sitter-typescript, one tags query. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

// biome-ignore format: a word list reads better wrapped than one word a line
const stopwords = ['function', 'const', 'let', 'var', 'return', 'this', 'new', 'null', 'undefined', 'typeof', 'instanceof', 'export', 'import', 'default', 'async', 'await', 'interface', 'type', 'readonly', 'string', 'number', 'boolean', 'any', 'unknown', 'void', 'ts'];

export const typescript = taggedLanguage({
  id: 'typescript',
  packageName: 'tree-sitter-typescript',
  wasmFile: 'tree-sitter-typescript.wasm',
  tags: 'typescript.scm',
  extensions: ['.ts', '.mts', '.cts'],
  fence: 'typescript',
  stopwords,
  frames: [fileLineFrame('typescript', ['.ts', '.mts', '.cts'])],
});

export const tsx = taggedLanguage({
  id: 'tsx',
  packageName: 'tree-sitter-typescript',
  wasmFile: 'tree-sitter-tsx.wasm',
  tags: 'typescript.scm',
  extensions: ['.tsx'],
  fence: 'tsx',
  stopwords,
  frames: [fileLineFrame('tsx', ['.tsx'])],
});
