/** TypeScript and TSX: the two grammars of tree-sitter-typescript, one tags query. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

export const typescript = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'typescript',
  packageName: 'tree-sitter-typescript',
  wasmFile: 'tree-sitter-typescript.wasm',
  tags: 'typescript.scm',
  extensions: ['.ts', '.mts', '.cts'],
  isTestFile: (file) => /\.(test|spec)\.[cm]?ts$/.test(file),
  declarationSuffixes: ['.d.ts', '.d.mts', '.d.cts'],
  family: 'javascript',
  fence: 'typescript',
  frames: [fileLineFrame('typescript', ['.ts', '.mts', '.cts'])],
});

export const tsx = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'tsx',
  packageName: 'tree-sitter-typescript',
  wasmFile: 'tree-sitter-tsx.wasm',
  tags: 'typescript.scm',
  extensions: ['.tsx'],
  isTestFile: (file) => /\.(test|spec)\.tsx$/.test(file),
  family: 'javascript',
  fence: 'tsx',
  frames: [fileLineFrame('tsx', ['.tsx'])],
});
