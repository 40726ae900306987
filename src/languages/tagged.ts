/**
 * The record of a language described by a tags query (a .scm file in its folder) rather than walked by hand: its
 * module rules are file-based (a file is its own module, named by its stem), its source paths are the
 * files with its extensions, and its traceback frames are given per language.
 */
import { folderOf } from './language-folder.ts';
import type { FramePattern, LanguageSpec } from './types.ts';

export interface TaggedLanguage {
  id: string;
  /** the record's module URL (`import.meta.url`): its folder holds the query file */
  moduleUrl: string;
  packageName: string;
  wasmFile: string;
  /** the query file, in the language's folder */
  tags: string;
  extensions: readonly string[];
  fence: string;
  /** languages sharing one repository index (see LanguageSpec.family) */
  family?: string;
  /** see LanguageSpec.declarationSuffixes */
  declarationSuffixes?: readonly string[];
  /** see LanguageSpec.isTestFile */
  isTestFile?(fileName: string): boolean;
  /** see LanguageSpec.gitDiffDriver */
  gitDiffDriver?: string;
  frames: readonly FramePattern[];
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function taggedLanguage(l: TaggedLanguage): LanguageSpec {
  const exts = l.extensions.map((e) => e.slice(1));
  const stem = (path: string) => {
    const file = path.slice(path.lastIndexOf('/') + 1);
    const dot = file.lastIndexOf('.');
    return dot > 0 ? file.slice(0, dot) : file;
  };
  return {
    id: l.id,
    folder: folderOf(l.moduleUrl),
    grammar: { packageName: l.packageName, wasmFile: l.wasmFile },
    tags: l.tags,
    ...(l.family ? { family: l.family } : {}),
    ...(l.declarationSuffixes ? { declarationSuffixes: l.declarationSuffixes } : {}),
    ...(l.isTestFile ? { isTestFile: l.isTestFile } : {}),
    ...(l.gitDiffDriver ? { gitDiffDriver: l.gitDiffDriver } : {}),
    indexed: true,
    extensions: l.extensions,
    // No stopword list: the lists are global to every search, so a word that is a keyword here (`type`,
    // `map`, `new`) would vanish from Python searches too; BM25's IDF discounts a language's keywords
    // within its own repository instead.
    stopwords: [],
    fence: l.fence,
    modulePath: () => undefined,
    moduleName: (path) => stem(path) || undefined,
    moduleFiles: (base) => l.extensions.map((e) => `${base}${e}`),
    sourcePath: new RegExp(`(?:[A-Za-z0-9_.~-]+\\/)*[A-Za-z0-9_-]+\\.(?:${exts.map(escapeRegex).join('|')})\\b`, 'g'),
    fileSuffixWords: exts,
    frames: l.frames,
  };
}

/** `path/file.ext:12` and `path/file.ext:12:5`, the frame form most compilers, runtimes and test runners print. */
export function fileLineFrame(name: string, extensions: readonly string[]): FramePattern {
  const exts = extensions.map((e) => escapeRegex(e.slice(1))).join('|');
  return { name, pattern: new RegExp(`((?:[\\w.~-]+\\/)*[\\w-]+\\.(?:${exts})):(\\d+)(?::\\d+)?`, 'g') };
}
