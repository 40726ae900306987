/** Java: tree-sitter-java; stack traces print `at pkg.Class.method(File.java:12)`. */
import { taggedLanguage } from '../tagged.ts';

export const java = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'java',
  packageName: 'tree-sitter-java',
  wasmFile: 'tree-sitter-java.wasm',
  tags: 'java.scm',
  extensions: ['.java'],
  gitDiffDriver: 'java',
  fence: 'java',
  // at com.google.gson.Gson.fromJson(Gson.java:1227): the file has no folder, the method is qualified
  // (a lookahead reads the file and line first, so the groups are path, line, function as for every frame)
  frames: [{ name: 'java', pattern: /at (?=[\w$.<>]*\(((?:[\w-]+\/)*[\w$-]+\.java):(\d+)\))[\w$.]+\.([\w$<>]+)\(/g }],
});
