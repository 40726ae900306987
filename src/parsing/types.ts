/** Line numbers are 1-based and inclusive everywhere in locfix. */

export interface CodeChunk {
  /** repository-relative path of the file the chunk comes from */
  path: string;
  startLine: number;
  endLine: number;
  /** text to embed/index: starts with the path line (path augmentation), then the code */
  text: string;
  /** AST node type(s) the chunk covers, e.g. "function_definition", "class_definition", "module" */
  kind: string;
  /** qualified name of the innermost definition enclosing the chunk, e.g. "Request.register_hook" */
  symbol?: string;
}

import type { DefinitionKind } from '../languages/types.ts';

export type { DefinitionKind };

export interface Definition {
  path: string;
  /** bare name, e.g. "register_hook" */
  name: string;
  /** dotted qualified name inside the file, e.g. "Request.register_hook" (nested classes: "A.B.f") */
  qualifiedName: string;
  kind: DefinitionKind;
  /** includes decorators */
  startLine: number;
  endLine: number;
}

/** a name bound at module level by an assignment (used to resolve `variable:` locations and boost files) */
export interface ModuleAssignment {
  path: string;
  name: string;
  /** the whole assignment statement */
  startLine: number;
  endLine: number;
}

export interface LineRange {
  startLine: number;
  endLine: number;
}

export interface PrunedView {
  /** the view; elided code is a `...` line at the elided code's indentation */
  text: string;
  /** original 1-based line number of each line of `text`, null for elision markers */
  lineNumbers: Array<number | null>;
  /** original line ranges shown, merged */
  keptRanges: LineRange[];
}
