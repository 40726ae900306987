/**
 * The elements a function-level localizer ranks, named as SWE-bench localization papers name them (LocAgent's and
 * SweRank's `edit_functions`: `path:Class.method`, `path:function`, `path:Class`): a file's functions and methods,
 * and its classes. A constructor is its class (`path:Class.__init__` is `path:Class`, as LocAgent's evaluation
 * reads it), so a class element covers the class's own lines: its header, docstring, attributes and `__init__`,
 * not its other methods. Functions defined inside function bodies are not elements (src/parsing/definitions.ts),
 * and module-level code is no element at all.
 */
import type { CodeElement } from '../../src/artifacts/localization.ts';
import { MODULE_LEVEL } from '../../src/artifacts/localization.ts';
import type { Definition } from '../../src/parsing/types.ts';

export interface RankedElementCandidate {
  path: string;
  /** `Class.method`, `function` or `Class` (dotted for nesting) */
  name: string;
  kind: 'function' | 'class';
  /** 1-based, inclusive; a class element's range is the whole class */
  startLine: number;
  endLine: number;
  /** the lines the element owns, for the lexical channel: a class without its methods (its `__init__` kept) */
  text: string;
}

const CONSTRUCTOR = '__init__';

/** The element name of a definition's qualified name: a constructor is its class. */
export function elementName(qualifiedName: string): string {
  return qualifiedName.endsWith(`.${CONSTRUCTOR}`) ? qualifiedName.slice(0, -CONSTRUCTOR.length - 1) : qualifiedName;
}

/** `path:name`, the key both papers' gold uses. */
export function elementKey(path: string, name: string): string {
  return `${path}:${name}`;
}

/**
 * The gold elements of a patch as the papers count them, from the elements it edits (gold-locations.ts names the
 * innermost definition of each changed line): module-level lines drop out, a constructor is its class. Order kept,
 * duplicates dropped.
 */
export function goldElementKeys(edited: readonly CodeElement[]): string[] {
  const keys = edited.filter((e) => e.name !== MODULE_LEVEL).map((e) => elementKey(e.path, elementName(e.name)));
  return [...new Set(keys)];
}

/** The candidates of one file from its definitions and source. */
export function fileElements(path: string, source: string, definitions: readonly Definition[]): RankedElementCandidate[] {
  const lines = source.split('\n');
  const slice = (start: number, end: number) => lines.slice(start - 1, end).join('\n');
  const out: RankedElementCandidate[] = [];
  for (const d of definitions) {
    if (d.kind === 'class') {
      const own = ownLinesOfClass(d, definitions);
      out.push({ path, name: d.qualifiedName, kind: 'class', startLine: d.startLine, endLine: d.endLine, text: own.map((n) => lines[n - 1] ?? '').join('\n') });
    } else if (!d.qualifiedName.endsWith(`.${CONSTRUCTOR}`)) {
      out.push({ path, name: d.qualifiedName, kind: 'function', startLine: d.startLine, endLine: d.endLine, text: slice(d.startLine, d.endLine) });
    }
  }
  return out;
}

/** A class's lines minus those of its methods other than `__init__` and of its nested classes. */
function ownLinesOfClass(cls: Definition, definitions: readonly Definition[]): number[] {
  const taken = new Set<number>();
  for (const d of definitions) {
    if (d === cls || !d.qualifiedName.startsWith(`${cls.qualifiedName}.`)) continue;
    if (d.qualifiedName === `${cls.qualifiedName}.${CONSTRUCTOR}`) continue;
    for (let n = d.startLine; n <= d.endLine; n++) taken.add(n);
  }
  const own: number[] = [];
  for (let n = cls.startLine; n <= cls.endLine; n++) if (!taken.has(n)) own.push(n);
  return own;
}
