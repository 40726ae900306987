/** Rust: tree-sitter-rust; panics and rustc print `src/file.rs:12:5`. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

export const rust = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'rust',
  packageName: 'tree-sitter-rust',
  wasmFile: 'tree-sitter-rust.wasm',
  tags: 'rust.scm',
  extensions: ['.rs'],
  gitDiffDriver: 'rust',
  fence: 'rust',
  frames: [fileLineFrame('rust', ['.rs'])],
});
