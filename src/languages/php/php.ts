/** PHP: tree-sitter-php (the grammar that also reads the HTML around `<?php`); PHP prints `file.php:12` and `in file.php on line 12`. */
import { fileLineFrame, taggedLanguage } from '../tagged.ts';

export const php = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'php',
  packageName: 'tree-sitter-php',
  wasmFile: 'tree-sitter-php.wasm',
  tags: 'php.scm',
  extensions: ['.php'],
  gitDiffDriver: 'php',
  fence: 'php',
  frames: [fileLineFrame('php', ['.php']), { name: 'php-on-line', pattern: /in ((?:[\w.~-]+\/)*[\w-]+\.php) on line (\d+)/g }],
});
