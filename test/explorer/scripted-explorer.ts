/**
 * A deterministic explorer for the scripted model server (tests and `bench:explorer`). It is not a model.
 * It issues the grep/find/sed sequence a careful explorer starts with, driven by the issue text and by what
 * each command printed:
 *
 *   1. which files mention the issue's most specific names      grep -rlw NAME . | grep -v test | head
 *   2. where the first of those names is defined                 grep -rnE "(def|class|function|fn|func) NAME" …
 *   3. that definition in context                                nl -ba FILE | sed -n 'A,Bp'
 *   4. the folder around it                                      find DIR -maxdepth 1 -type f | head
 *   5. the second name, if any                                   grep -rn -w NAME2 DIR | head
 *   6. the answer: the definition's file first, then the files step 1 found most often
 *
 * Every command is narrowed with `head`, as the system prompt asks.
 */
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { issueIdentifiers } from '../locagent/scripted-agent.ts';

const issueOf = (request: ScriptedChatRequest) => /<issue>\n([\s\S]*?)\n<\/issue>/.exec(request.messages[1]?.content ?? '')?.[1] ?? '';
const outputs = (request: ScriptedChatRequest) =>
  request.messages
    .filter((m, i) => i > 1 && m.role === 'user')
    .map((m) => m.content.replace(/<\/?(returncode|output|output_head|output_tail|warning|elided_chars)>[^\n]*\n?/g, ''));
const bash = (thought: string, command: string) => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
const answer = (files: string[]) => `THOUGHT: These are the files to change, most likely first.\n\n\`\`\`json\n${JSON.stringify({ files })}\n\`\`\``;

/** names worth grepping: the last part of dotted names, no shell-special characters */
function searchNames(issue: string): string[] {
  const names = issueIdentifiers(issue, 12)
    .map((n) => n.split(/[./]/).pop()!)
    .filter((n) => /^[A-Za-z_][A-Za-z0-9_]{3,}$/.test(n));
  return [...new Set(names)].slice(0, 3);
}

const pathsIn = (text: string) =>
  text
    .split('\n')
    .map((l) => l.replace(/^\.\//, '').split(':')[0]!.trim())
    .filter((p) => /\.[A-Za-z0-9]+$/.test(p));

export function scriptedExplorer(request: ScriptedChatRequest): ScriptedReply {
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  const names = searchNames(issueOf(request));
  const seen = outputs(request);
  const mentioned = pathsIn(seen[0] ?? '');
  const definition = /^\.?\/?([^:\n]+):(\d+):/m.exec(seen[1] ?? '');
  const defFile = definition?.[1];
  const defLine = Number(definition?.[2] ?? 1);
  const dir = defFile?.includes('/') ? defFile.slice(0, defFile.lastIndexOf('/')) : '.';
  if (names.length === 0) {
    if (turn === 0) return bash('The issue names no identifier; the layout first.', 'find . -maxdepth 2 -type d | grep -v "/\\." | head -40');
    return answer([]);
  }
  switch (turn) {
    case 0:
      return bash(`Which files mention ${names[0]}?`, `grep -rlw "${names[0]}" . 2>/dev/null | grep -v test | head -20`);
    case 1:
      return bash(
        `Where is ${names[0]} defined?`,
        `grep -rnE "(def|class|function|fn|func|interface|struct) ${names[0]}\\b" . 2>/dev/null | grep -v test | head -10`,
      );
    case 2:
      if (defFile) return bash('The definition in context.', `nl -ba ${defFile} | sed -n '${Math.max(1, defLine - 20)},${defLine + 40}p'`);
      return bash('No definition found; the first file that mentions it.', `head -80 ${mentioned[0] ?? 'README.md'}`);
    case 3:
      return bash('What else is in that folder?', `find ${dir} -maxdepth 1 -type f | head -30`);
    case 4:
      if (names[1]) return bash(`And ${names[1]}?`, `grep -rn -w "${names[1]}" ${dir} 2>/dev/null | head -15`);
      return answer(rankFiles(defFile, mentioned, []));
    default:
      return answer(rankFiles(defFile, mentioned, pathsIn(seen[4] ?? '')));
  }
}

function rankFiles(defFile: string | undefined, mentioned: string[], second: string[]): string[] {
  const counts = new Map<string, number>();
  for (const p of [...mentioned, ...second]) counts.set(p, (counts.get(p) ?? 0) + 1);
  const rest = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([p]) => p);
  return [...new Set([...(defFile ? [defFile] : []), ...rest])].slice(0, 3);
}
