/**
 * A scripted LocAgent that knows no answer, for the end-to-end test and `bench:locagent`. It works the way
 * LocAgent's prompt asks, from what the tools return:
 * 1. search the identifiers of the issue (snake_case, CamelCase, dotted names, paths);
 * 2. follow the first entity found one step along `invokes`/`inherits`, both directions;
 * 3. read up to two entities the traversal reached;
 * 4. answer with the files of the entities it saw, in order of first appearance (at most 5), each with the
 *    functions and classes seen in it, and call `finish`.
 * Its prompts and tool results are what a model would get on a real repository; its replies are short.
 */
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';

export function toolCall(name: string, params: Record<string, unknown> = {}, thought = ''): string {
  const body = Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>${typeof v === 'string' ? v : JSON.stringify(v)}</parameter>\n`)
    .join('');
  return `${thought ? `${thought}\n` : ''}<function=${name}>\n${body}</function>`;
}

/** code-like words of an issue: snake_case, CamelCase, dotted names and paths, backticked words */
export function issueIdentifiers(issue: string, max = 8): string[] {
  const ticked = [...issue.matchAll(/`([^`\s]{3,60})`/g)].map((m) => m[1]!.replace(/\(.*$/, ''));
  const words = issue.match(/[A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*/g) ?? [];
  const codeLike = words.filter((w) => w.length > 3 && (w.includes('_') || /[a-z][A-Z]/.test(w) || /[./]/.test(w)));
  return [...new Set([...ticked, ...codeLike])].filter((w) => !/^https?:/.test(w)).slice(0, max);
}

const issueOf = (request: ScriptedChatRequest) => /### Issue ###\n([\s\S]*?)\n###/.exec(request.messages[1]?.content ?? '')?.[1] ?? '';
const observations = (request: ScriptedChatRequest) =>
  request.messages.filter((m) => m.role === 'user' && m.content.startsWith('EXECUTION RESULT')).map((m) => m.content);

/** entity ids (`path:Name` or paths) in tool output, in order of appearance */
function entityIds(text: string): string[] {
  const found = [...text.matchAll(/Found (?:function|class|file) `([^`]+)`|── (\S+)/g)].map((m) => (m[1] ?? m[2])!);
  return [...new Set(found)];
}

export function searchingAgent(request: ScriptedChatRequest): ScriptedReply {
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  const seen = observations(request);
  const last = seen[seen.length - 1] ?? '';
  if (turn === 0) {
    const terms = issueIdentifiers(issueOf(request));
    if (terms.length > 0) return toolCall('search_code_snippets', { search_terms: terms }, 'First, the names the issue mentions.');
  }
  if (turn === 1) {
    const first = entityIds(last).find((id) => id.includes(':'));
    if (first)
      return toolCall('explore_tree_structure', {
        start_entities: [first],
        direction: 'both',
        traversal_depth: 1,
        dependency_type_filter: ['invokes', 'inherits'],
      });
  }
  if (turn === 2) {
    const reached = entityIds(last)
      .filter((id) => id.includes(':'))
      .slice(1, 3);
    if (reached.length > 0) return toolCall('get_entity_contents', { entity_names: reached });
  }
  const ids = entityIds(seen.join('\n'));
  const files: string[] = [];
  const entities = new Map<string, string[]>();
  for (const id of ids) {
    const [file, name] = id.split(':') as [string, string | undefined];
    if (!/\.[A-Za-z0-9]+$/.test(file)) continue;
    if (!files.includes(file)) {
      if (files.length >= 5) continue;
      files.push(file);
    }
    if (name) entities.set(file, [...(entities.get(file) ?? []), name]);
  }
  const block = files.map((f) => [f, ...(entities.get(f) ?? []).slice(0, 3).map((n) => `function: ${n}`)].join('\n')).join('\n\n');
  return `\`\`\`\n${block}\n\`\`\`\n${toolCall('finish')}`;
}
