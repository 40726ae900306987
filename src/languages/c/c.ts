/** C: tree-sitter-c (headers included); compilers, sanitizers and gdb print `path/file.c:12`. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

export const c = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'c',
  packageName: 'tree-sitter-c',
  wasmFile: 'tree-sitter-c.wasm',
  tags: 'c.scm',
  extensions: ['.c', '.h'],
  gitDiffDriver: 'cpp',
  family: 'c',
  fence: 'c',
  frames: [fileLineFrame('c', ['.c', '.h'])],
});
