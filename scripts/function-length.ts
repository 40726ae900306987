/**
 * Functions over MAX_FUNCTION_LINES, for the architecture check. A long function does several things and is read
 * and tested as one; the check holds the line where it is today: no new one, and the ones listed in
 * FUNCTION_DEBTS (each with the length it had when the rule came) may shrink but never grow. A debt paid off
 * (the function split below the limit, or gone) must leave the list, so it only ever gets shorter.
 *
 * Benchmarks' `main` is exempt: a benchmark script is one procedure read top to bottom (docs/architecture.md).
 * Lengths are counted from the TypeScript syntax tree, so a function's nested functions count inside it.
 */
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;

/**
 * `file:name` of each function over the limit when the rule came in (issue 54), with its length then. Anonymous
 * functions are named by what holds them (`register` for `.action(async () => …)` inside `register`).
 */
export const FUNCTION_DEBTS: Readonly<Record<string, number>> = {
  'localizer/blagent/index.ts:localize': 124,
  'src/patch.ts:parsePatch': 116,
  'localizer/blagent/react.ts:runSkeletonAgent': 112,
  'localizer/locagent/index.ts:localize': 112,
  'app/commands/evaluate.ts:register': 108,
  'repair/repair-instance.ts:repairInstance': 107,
  'scripts/fidelity-execute.ts:executeFidelity': 105,
  'localizer/explorer/commands.ts:tokenize': 104,
  'src/llm/chat-model.ts:serve': 97,
  'src/parsing/pruned-view.ts:prunedViewOfTree': 97,
  'localizer/interchange/loc-outputs.ts:importRecord': 95,
  'scripts/train-ranker.ts:trainOnPairs': 95,
  'localizer/hierarchy/locations.ts:resolveLocations': 94,
  'localizer/hierarchy/related-elements.ts:localizeRelatedElements': 94,
  'src/minibench/git-history.ts:buildProject': 93,
  'src/index/channels/dense.ts:open': 86,
  'src/llm/chat-model.ts:call': 84,
  'app/commands/repair.ts:register': 81,
};

export interface LongFunction {
  /** `file:name`, the key FUNCTION_DEBTS uses */
  key: string;
  line: number;
  lines: number;
}

/** The name a function is known by: its own, its variable's or property's, else the enclosing function's. */
function nameOf(node: ts.Node): string | undefined {
  const own = (node as { name?: ts.Node }).name;
  if (own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own))) return own.text;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return undefined;
}

function isFunctionWithBody(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node)) &&
    node.body !== undefined
  );
}

/**
 * The outermost functions of `text` over the limit (a nested function inside a long one is not counted again:
 * splitting the outer one is the work), each under the name of its own or of the function that holds it.
 */
export function longFunctions(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node, enclosing: string | undefined): void => {
    if (isFunctionWithBody(node)) {
      const name = nameOf(node) ?? enclosing ?? '<anonymous>';
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        out.push({ key: `${file}:${name}`, line: first + 1, lines });
        return;
      }
      ts.forEachChild(node, (child) => visit(child, name));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, enclosing));
  };
  visit(source, undefined);
  return out;
}

/** A benchmark script's `main`, exempt from the limit. */
export function isExempt(key: string): boolean {
  return /^scripts\/bench-[\w-]+\.ts:main$/.test(key);
}

/**
 * The violations of the rule over the checked files' long functions: new ones, grown debts, and debts paid but
 * still listed (for the files checked; a test asks that every listed file exists).
 */
export function functionLengthProblems(
  found: readonly LongFunction[],
  checked: ReadonlySet<string>,
  debts: Readonly<Record<string, number>> = FUNCTION_DEBTS,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    if (isExempt(f.key)) continue;
    seen.add(f.key);
    const allowed = debts[f.key];
    const [file, name] = [f.key.slice(0, f.key.lastIndexOf(':')), f.key.slice(f.key.lastIndexOf(':') + 1)];
    if (allowed === undefined)
      problems.push(`${file}:${f.line} ${name} has ${f.lines} lines (limit ${MAX_FUNCTION_LINES}): split it into functions that each do one thing`);
    else if (f.lines > allowed)
      problems.push(
        `${file}:${f.line} ${name} grew to ${f.lines} lines (it was ${allowed}, over the limit of ${MAX_FUNCTION_LINES}): split it, do not grow it`,
      );
  }
  for (const key of Object.keys(debts))
    if (!seen.has(key) && checked.has(key.slice(0, key.lastIndexOf(':'))))
      problems.push(`${key} is no longer over ${MAX_FUNCTION_LINES} lines (or is gone): remove it from FUNCTION_DEBTS in scripts/function-length.ts`);
  return problems;
}
