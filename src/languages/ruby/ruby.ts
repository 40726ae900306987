/** Ruby: tree-sitter-ruby; backtraces print `path/file.rb:12:in 'method'`. */
import { taggedLanguage } from '../tagged.ts';

export const ruby = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'ruby',
  packageName: 'tree-sitter-ruby',
  wasmFile: 'tree-sitter-ruby.wasm',
  tags: 'ruby.scm',
  extensions: ['.rb'],
  gitDiffDriver: 'ruby',
  isTestFile: (file) => file.endsWith('_spec.rb'),
  fence: 'ruby',
  frames: [{ name: 'ruby', pattern: /((?:[\w.~-]+\/)*[\w-]+\.rb):(\d+)(?::in [`'](?:[\w:#.]+[#.])?([\w?!=]+)')?/g }],
});
