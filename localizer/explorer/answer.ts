/**
 * The explorer's reply format: a THOUGHT, then exactly one action, either a ```bash block (one command line)
 * or the final ```json block `{"files": [...]}`. The answer's schema, documented in README:
 *
 *   {"files": ["path/a.py", "path/b.py"]}   ordered, most likely first; repository-relative
 *
 * Paths are normalised (a leading `./` or the workspace root is cut) and deduplicated, first place kept.
 * Nothing else is changed: a path that does not exist stays, and counts as a false positive, as the study
 * scores it. Extra keys are ignored; anything else is malformed.
 */

export type Reply =
  | { kind: 'command'; thought: string; command: string }
  | { kind: 'answer'; thought: string; files: string[] }
  | { kind: 'malformed-answer'; thought: string; problem: string }
  | { kind: 'format-error'; problem: string };

const BLOCK = /```([A-Za-z]*)[ \t]*\n([\s\S]*?)\n?```/g;

export function parseReply(text: string, root: string): Reply {
  const blocks = [...text.matchAll(BLOCK)].map((m) => ({ lang: m[1]!.toLowerCase(), body: m[2]! }));
  const commands = blocks.filter((b) => b.lang === 'bash' || b.lang === 'sh' || b.lang === 'shell');
  const answers = blocks.filter((b) => b.lang === 'json');
  const first = text.search(/```/);
  const thought = (first < 0 ? text : text.slice(0, first)).replace(/^\s*THOUGHT:\s*/i, '').trim();
  if (commands.length + answers.length !== 1) {
    const found = commands.length + answers.length;
    return {
      kind: 'format-error',
      problem:
        found === 0
          ? 'your reply has no ```bash block and no final ```json block'
          : `your reply has ${commands.length} bash and ${answers.length} json blocks; exactly one action is allowed per reply`,
    };
  }
  if (commands.length === 1) {
    const command = commands[0]!.body.trim();
    return command ? { kind: 'command', thought, command } : { kind: 'format-error', problem: 'the ```bash block is empty' };
  }
  const parsed = parseAnswer(answers[0]!.body, root);
  return 'problem' in parsed ? { kind: 'malformed-answer', thought, problem: parsed.problem } : { kind: 'answer', thought, files: parsed.files };
}

export function parseAnswer(body: string, root: string): { files: string[] } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { problem: `the json block is not valid JSON (${(err as Error).message})` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'the answer must be a JSON object {"files": [...]}' };
  const files = (value as { files?: unknown }).files;
  if (!Array.isArray(files)) return { problem: '"files" must be a list of paths' };
  if (!files.every((f) => typeof f === 'string')) return { problem: 'every entry of "files" must be a string (a path)' };
  const out: string[] = [];
  // a Set, not out.includes: a hostile answer of 100,000 paths took 31 s of blocked event loop
  const seen = new Set<string>();
  for (const raw of files as string[]) {
    const path = normalizePath(raw, root);
    if (path && !seen.has(path)) {
      seen.add(path);
      out.push(path);
    }
  }
  return { files: out };
}

export function normalizePath(raw: string, root: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  const prefix = `${root.replace(/\/+$/, '')}/`;
  if (p.startsWith(prefix)) p = p.slice(prefix.length);
  while (p.startsWith('./')) p = p.slice(2);
  return p.replace(/\/{2,}/g, '/');
}
