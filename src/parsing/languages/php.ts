/** PHP: tree-sitter-php (the grammar that also reads the HTML around `<?php`); PHP prints `file.php:12` and `in file.php on line 12`. */
import { fileLineFrame, taggedLanguage } from './tagged.ts';

export const php = taggedLanguage({
  id: 'php',
  packageName: 'tree-sitter-php',
  wasmFile: 'tree-sitter-php.wasm',
  tags: 'php.scm',
  extensions: ['.php'],
  fence: 'php',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['function', 'public', 'private', 'protected', 'static', 'class', 'return', 'new', 'this', 'null', 'array', 'namespace', 'use', 'extends', 'implements', 'self', 'php', 'echo', 'string', 'int', 'bool'],
  frames: [fileLineFrame('php', ['.php']), { name: 'php-on-line', pattern: /in ((?:[\w.~-]+\/)*[\w-]+\.php) on line (\d+)/g }],
});
