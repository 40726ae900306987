/** Go: tree-sitter-go; panics and `go test` print `path/file.go:12`. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

export const go = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'go',
  packageName: 'tree-sitter-go',
  wasmFile: 'tree-sitter-go.wasm',
  tags: 'go.scm',
  extensions: ['.go'],
  gitDiffDriver: 'golang',
  isTestFile: (file) => file.endsWith('_test.go'),
  fence: 'go',
  frames: [fileLineFrame('go', ['.go'])],
});
