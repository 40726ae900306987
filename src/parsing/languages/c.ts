/** C: tree-sitter-c (headers included); compilers, sanitizers and gdb print `path/file.c:12`. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

export const c = taggedLanguage({
  id: 'c',
  packageName: 'tree-sitter-c',
  wasmFile: 'tree-sitter-c.wasm',
  tags: 'c.scm',
  extensions: ['.c', '.h'],
  fence: 'c',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['int', 'char', 'void', 'unsigned', 'signed', 'long', 'short', 'struct', 'union', 'enum', 'typedef', 'static', 'const', 'extern', 'sizeof', 'return', 'null', 'define', 'include', 'ifdef', 'ifndef', 'endif'],
  frames: [fileLineFrame('c', ['.c', '.h'])],
});
