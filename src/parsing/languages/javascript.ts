/** JavaScript (with JSX): tree-sitter-javascript; Node and browsers print `at f (path/file.js:12:5)`. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

const extensions = ['.js', '.jsx', '.mjs', '.cjs'];

export const javascript = taggedLanguage({
  id: 'javascript',
  packageName: 'tree-sitter-javascript',
  wasmFile: 'tree-sitter-javascript.wasm',
  tags: 'javascript.scm',
  extensions,
  fence: 'javascript',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['function', 'const', 'let', 'var', 'return', 'this', 'new', 'null', 'undefined', 'typeof', 'instanceof', 'export', 'import', 'default', 'require', 'module', 'exports', 'async', 'await', 'js'],
  frames: [fileLineFrame('javascript', extensions)],
});
