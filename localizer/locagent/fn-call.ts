/**
 * Tool calls as text, the form LocAgent uses for models without native function calling
 * (utils/runtime/fn_call_converter.py, after OpenHands): the tools are described in the system message,
 * the model answers with
 *
 *   <function=name>
 *   <parameter=p>value</parameter>
 *   </function>
 *
 * and the result comes back as a user message `EXECUTION RESULT of [name]:\n…`. It needs nothing of the
 * server beyond chat, so every model locfix talks to (Ollama, OpenAI-compatible servers) can drive the agent.
 * Array values may be JSON (`["a", "b"]`) or one item per line / comma-separated; integers are checked.
 */

export type ParamType = 'string' | 'integer' | 'array';

export interface ToolParam {
  name: string;
  type: ParamType;
  /** element type of an array */
  items?: 'string' | 'integer';
  required?: boolean;
  description: string;
  enum?: readonly string[];
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: readonly ToolParam[];
}

export const STOP_WORDS = ['</function'];

/** The tools in LocAgent's description layout (`---- BEGIN FUNCTION #1: name ----`). */
export function describeTools(tools: readonly ToolSpec[]): string {
  return tools
    .map((tool, i) => {
      const params = tool.parameters.length
        ? `Parameters:\n${tool.parameters
            .map((p, j) => {
              const type = p.type === 'array' ? `array of ${p.items ?? 'string'}` : p.type;
              const allowed = p.enum ? `\nAllowed values: [${p.enum.map((v) => `\`${v}\``).join(', ')}]` : '';
              return `  (${j + 1}) ${p.name} (${type}, ${p.required ? 'required' : 'optional'}): ${p.description}${allowed}`;
            })
            .join('\n')}\n`
        : 'No parameters are required for this function.\n';
      return `---- BEGIN FUNCTION #${i + 1}: ${tool.name} ----\nDescription: ${tool.description.trim()}\n${params}---- END FUNCTION #${i + 1} ----`;
    })
    .join('\n\n');
}

export interface ParsedCall {
  name: string;
  params: Record<string, string>;
}

export interface ParsedReply {
  /** the text before the call (all of it when there is no call) */
  thought: string;
  call?: ParsedCall;
  /** a call was started but could not be read */
  malformed?: string;
}

/**
 * The first call in a reply. The closing `</function>` may be missing (the stop word cut it); a second
 * call is ignored (one call per turn, as the prompt says).
 */
export function parseReply(text: string): ParsedReply {
  const start = text.search(/<function\s*=/);
  if (start < 0) return { thought: text.trim() };
  const thought = text.slice(0, start).trim();
  const head = /^<function\s*=\s*([A-Za-z_][\w.-]*)\s*>/.exec(text.slice(start));
  if (!head) return { thought, malformed: 'a <function=...> tag without a readable function name' };
  let body = text.slice(start + head[0].length);
  const end = body.search(/<\/function\s*>?|<function\s*=/);
  if (end >= 0) body = body.slice(0, end);
  const params: Record<string, string> = {};
  for (const m of body.matchAll(/<parameter\s*=\s*([A-Za-z_][\w-]*)\s*>([\s\S]*?)(?:<\/parameter\s*>|(?=<parameter\s*=)|$)/g)) {
    params[m[1]!] = stripNewlines(m[2]!);
  }
  return { thought, call: { name: head[1]!, params } };
}

const stripNewlines = (s: string) => s.replace(/^\n/, '').replace(/\n$/, '');

export type CoercedArgs = { ok: true; args: Record<string, string | number | string[] | number[]> } | { ok: false; error: string };

/** Typed arguments of a call, or a message for the model naming what is wrong. */
export function coerceArgs(spec: ToolSpec, params: Record<string, string>): CoercedArgs {
  const args: Record<string, string | number | string[] | number[]> = {};
  const known = new Set(spec.parameters.map((p) => p.name));
  const unknown = Object.keys(params).filter((k) => !known.has(k));
  if (unknown.length)
    return {
      ok: false,
      error: `${spec.name} has no parameter ${unknown.map((u) => `\`${u}\``).join(', ')}; its parameters: ${[...known].join(', ') || 'none'}`,
    };
  for (const p of spec.parameters) {
    const raw = params[p.name];
    if (raw === undefined || raw.trim() === '') {
      if (p.required) return { ok: false, error: `${spec.name} needs the parameter \`${p.name}\`` };
      continue;
    }
    if (p.type === 'string') {
      const value = raw.trim();
      if (p.enum && !p.enum.includes(value)) return { ok: false, error: `\`${p.name}\` must be one of ${p.enum.join(', ')}; got ${JSON.stringify(value)}` };
      args[p.name] = value;
    } else if (p.type === 'integer') {
      const n = Number(raw.trim());
      if (!Number.isInteger(n)) return { ok: false, error: `\`${p.name}\` must be an integer; got ${JSON.stringify(raw.trim())}` };
      args[p.name] = n;
    } else {
      const items = arrayItems(raw);
      if (p.items === 'integer') {
        const nums = items.map(Number);
        if (nums.some((n) => !Number.isInteger(n))) return { ok: false, error: `\`${p.name}\` must be a list of integers; got ${JSON.stringify(raw.trim())}` };
        args[p.name] = nums;
      } else {
        if (p.enum) {
          const bad = items.filter((i) => !p.enum!.includes(i));
          if (bad.length) return { ok: false, error: `\`${p.name}\` items must be among ${p.enum.join(', ')}; got ${bad.join(', ')}` };
        }
        args[p.name] = items;
      }
    }
  }
  return { ok: true, args };
}

/** `["a","b"]` (JSON, or Python-style single quotes), else one item per line or comma */
function arrayItems(raw: string): string[] {
  const text = raw.trim();
  if (text.startsWith('[')) {
    for (const candidate of [text, text.replace(/'/g, '"')]) {
      try {
        const parsed = JSON.parse(candidate) as unknown;
        if (Array.isArray(parsed)) return parsed.map((v) => String(v).trim()).filter(Boolean);
      } catch {
        // not JSON: read as a list below
      }
    }
  }
  return text
    .replace(/^\[|\]$/g, '')
    .split(/\n|,/)
    .map((s) => s.trim().replace(/^["'`]|["'`]$/g, ''))
    .filter(Boolean);
}

/** A tool's result as the model sees it next. */
export function observation(tool: string, output: string): string {
  return `EXECUTION RESULT of [${tool}]:\n${output}`;
}
