/** Java: tree-sitter-java; stack traces print `at pkg.Class.method(File.java:12)`. */
import { taggedLanguage } from './tagged.ts';

export const java = taggedLanguage({
  id: 'java',
  packageName: 'tree-sitter-java',
  wasmFile: 'tree-sitter-java.wasm',
  tags: 'java.scm',
  extensions: ['.java'],
  fence: 'java',
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: ['public', 'private', 'protected', 'static', 'final', 'void', 'class', 'interface', 'extends', 'implements', 'new', 'this', 'super', 'null', 'throws', 'throw', 'import', 'package', 'abstract', 'synchronized', 'instanceof', 'string', 'int', 'boolean'],
  // at com.google.gson.Gson.fromJson(Gson.java:1227): the file has no folder, the method is qualified
  // (a lookahead reads the file and line first, so the groups are path, line, function as for every frame)
  frames: [{ name: 'java', pattern: /at (?=[\w$.<>]*\(((?:[\w-]+\/)*[\w$-]+\.java):(\d+)\))[\w$.]+\.([\w$<>]+)\(/g }],
});
