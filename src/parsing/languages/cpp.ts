/** C++: tree-sitter-cpp; compilers and sanitizers print `path/file.cpp:12`. (`.h` stays C.) */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

const extensions = ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++'];

export const cpp = taggedLanguage({
  id: 'cpp',
  packageName: 'tree-sitter-cpp',
  wasmFile: 'tree-sitter-cpp.wasm',
  tags: 'cpp.scm',
  extensions,
  fence: 'cpp',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['int', 'char', 'void', 'auto', 'const', 'static', 'class', 'struct', 'namespace', 'template', 'typename', 'public', 'private', 'protected', 'virtual', 'override', 'std', 'return', 'nullptr', 'this', 'new', 'delete', 'include'],
  frames: [fileLineFrame('cpp', extensions)],
});
