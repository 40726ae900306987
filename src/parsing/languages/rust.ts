/** Rust: tree-sitter-rust; panics and rustc print `src/file.rs:12:5`. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

export const rust = taggedLanguage({
  id: 'rust',
  packageName: 'tree-sitter-rust',
  wasmFile: 'tree-sitter-rust.wasm',
  tags: 'rust.scm',
  extensions: ['.rs'],
  fence: 'rust',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['fn', 'let', 'mut', 'impl', 'pub', 'crate', 'mod', 'use', 'struct', 'enum', 'trait', 'match', 'ref', 'move', 'dyn', 'unsafe', 'where', 'self', 'super', 'some', 'ok', 'err', 'none'],
  frames: [fileLineFrame('rust', ['.rs'])],
});
