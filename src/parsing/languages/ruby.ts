/** Ruby: tree-sitter-ruby; backtraces print `path/file.rb:12:in 'method'`. */
import { taggedLanguage } from './tagged.ts';

export const ruby = taggedLanguage({
  id: 'ruby',
  packageName: 'tree-sitter-ruby',
  wasmFile: 'tree-sitter-ruby.wasm',
  tags: 'ruby.scm',
  extensions: ['.rb'],
  fence: 'ruby',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['def', 'end', 'class', 'module', 'self', 'nil', 'true', 'false', 'require', 'attr', 'attr_reader', 'attr_accessor', 'do', 'unless', 'elsif', 'then', 'yield', 'rb'],
  frames: [{ name: 'ruby', pattern: /((?:[\w.~-]+\/)*[\w-]+\.rb):(\d+)(?::in [`'](?:[\w:#.]+[#.])?([\w?!=]+)')?/g }],
});
