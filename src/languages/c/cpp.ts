/** C++: tree-sitter-cpp; compilers and sanitizers print `path/file.cpp:12`. (`.h` stays C.) */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

const extensions = ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++'];

export const cpp = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'cpp',
  packageName: 'tree-sitter-cpp',
  wasmFile: 'tree-sitter-cpp.wasm',
  tags: 'cpp.scm',
  extensions,
  gitDiffDriver: 'cpp',
  family: 'c',
  fence: 'cpp',
  frames: [fileLineFrame('cpp', extensions)],
});
