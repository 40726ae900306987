/** JavaScript (with JSX): tree-sitter-javascript; Node and browsers print `at f (path/file.js:12:5)`. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

const extensions = ['.js', '.jsx', '.mjs', '.cjs'];

export const javascript = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'javascript',
  packageName: 'tree-sitter-javascript',
  wasmFile: 'tree-sitter-javascript.wasm',
  tags: 'javascript.scm',
  extensions,
  isTestFile: (file) => /\.(test|spec)\.[cm]?jsx?$/.test(file),
  family: 'javascript',
  fence: 'javascript',
  frames: [fileLineFrame('javascript', extensions)],
});
