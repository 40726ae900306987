/**
 * Reading the file-level answers of the Agentless prompts, more tolerantly than Agentless (which takes
 * every raw line verbatim): list markers, numbering, backticks, quotes, `./` and trailing `:` are stripped,
 * and a path is kept only when it names a candidate file exactly (Agentless' correct_file_paths).
 */

/** One answer line without list markers, numbering, quotes, backticks and a leading `./`. */
export function cleanAnswerLine(line: string): string {
  let s = line.trim();
  s = s.replace(/^(?:[-*•+]\s+|\d+[.)]\s+)/, '');
  s = s.replace(/^[`'"]+|[`'",;:]+$/g, '').trim();
  s = s.replace(/^\.\//, '');
  return s;
}

/** Files the model listed, in its order, each once, restricted to `candidates` (exact paths). */
export function parseFileList(answer: string, candidates: readonly string[]): { files: string[]; dropped: string[] } {
  const known = new Set(candidates);
  // a line is a path attempt when it ends like a candidate does (`.py`, or `.go` in a Go repository)
  const extensionOf = (p: string) => /\.[^./]+$/.exec(p)?.[0] ?? '';
  const extensions = new Set(candidates.map(extensionOf).filter(Boolean));
  const files: string[] = [];
  const dropped: string[] = [];
  for (const raw of answer.split('\n')) {
    const line = cleanAnswerLine(raw);
    if (!line || line.startsWith('```') || !extensions.has(extensionOf(line))) continue;
    if (known.has(line)) {
      if (!files.includes(line)) files.push(line);
    } else {
      dropped.push(line);
    }
  }
  return { files, dropped };
}

/** Folders (ending with `/`) and source files (ending with one of `extensions`) the model called irrelevant, in its order. */
export function parseIrrelevantFolders(answer: string, extensions: readonly string[] = ['.py']): string[] {
  const out: string[] = [];
  for (const raw of answer.split('\n')) {
    const line = cleanAnswerLine(raw);
    if (!line || line.startsWith('```')) continue;
    if ((line.endsWith('/') || extensions.some((e) => line.endsWith(e))) && !out.includes(line)) out.push(line);
  }
  return out;
}

/** Agentless' rule: a file is irrelevant when its path starts with one of the named prefixes. */
export function splitByIrrelevant(files: readonly string[], prefixes: readonly string[]): { kept: string[]; filtered: string[] } {
  const kept: string[] = [];
  const filtered: string[] = [];
  for (const f of files) (prefixes.some((p) => f.startsWith(p)) ? filtered : kept).push(f);
  return { kept, filtered };
}
