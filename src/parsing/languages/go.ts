/** Go: tree-sitter-go; panics and `go test` print `path/file.go:12`. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

export const go = taggedLanguage({
  id: 'go',
  packageName: 'tree-sitter-go',
  wasmFile: 'tree-sitter-go.wasm',
  tags: 'go.scm',
  extensions: ['.go'],
  fence: 'go',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['func', 'package', 'import', 'var', 'const', 'type', 'struct', 'interface', 'map', 'chan', 'go', 'defer', 'return', 'nil', 'err', 'range', 'select', 'switch', 'case', 'fallthrough', 'goto'],
  frames: [fileLineFrame('go', ['.go'])],
});
