/**
 * BLAgent §2.4 Phase 1, skeleton-based agent scoring (SAS): a ReAct loop in a plain-text protocol any chat
 * model can follow —
 *
 *     Thought: …                              Thought: …
 *     Action: ReadFileSkeleton[path]    or    Final Answer: {"path": 8, …}
 *
 * — with one tool. The model's turn is cut at "Observation:" (stop sequence, and again here for servers
 * that ignore stops), so it cannot invent tool output; locfix appends the real observation as the next
 * user turn. Limits: `maxSteps` tool calls (then the model is told to answer), `maxRetries` replies that
 * could not be used (no action and no answer, unparseable scores, actions past the limit); when those run
 * out, the phase falls back to retrieval order and says why.
 */
import { renderPrompt } from '../../src/prompts.ts';
import type { Phase1History } from './options.ts';
import { type AgentState, type AgentStep, agentBudget, runAgent } from '../agent/core.ts';
import type { CallContext } from './llm-call.ts';
import { CandidateMatcher, parseScores } from './scoring-parse.ts';

export const TOOL_NAME = 'ReadFileSkeleton';

export type AgentReply =
  | { kind: 'action'; thought: string; tool: string; argument: string /** the reply up to the end of the action */; text: string }
  | { kind: 'final'; thought: string; answer: string }
  | { kind: 'invalid'; reason: string };

const ACTION =
  /^[ \t>*_]*Action[ \t*_]*:[ \t*_`]*([A-Za-z_][\w]*)[ \t]*(?:\[([^\]\n]*)\]|\(([^)\n]*)\)|:?[ \t]*\n?[ \t]*Action[ \t]*Input[ \t]*:[ \t]*([^\n]+))?/im;
const FINAL = /^[ \t>*_#]*Final[ \t]+Answer[ \t*_]*:?[ \t*_]*/im;
const THOUGHT = /^[ \t>*_]*Thought[ \t*_]*:[ \t*_]*([\s\S]*?)(?=^[ \t>*_]*(?:Action|Final[ \t]+Answer)\b|$(?![\s\S]))/im;

/** Reads one agent turn. The earlier of an Action and a Final Answer wins (later text is the model running ahead). */
export function parseAgentReply(reply: string): AgentReply {
  const text = reply.replace(/\r\n/g, '\n').split(/^[ \t>*_]*Observation[ \t*_]*:/im)[0]!;
  const thought = THOUGHT.exec(text)?.[1]?.trim() ?? '';
  const action = ACTION.exec(text);
  const final = FINAL.exec(text);
  if (action && (!final || action.index < final.index)) {
    const tool = action[1]!;
    const argument = (action[2] ?? action[3] ?? action[4] ?? '')
      .trim()
      .replace(/^["'`]|["'`]$/g, '')
      .trim();
    if (tool.toLowerCase() !== TOOL_NAME.toLowerCase())
      return { kind: 'invalid', reason: `unknown tool "${tool}"; the only tool is ${TOOL_NAME}[<candidate path>]` };
    if (!argument) return { kind: 'invalid', reason: `${TOOL_NAME} needs a path: write "Action: ${TOOL_NAME}[<candidate path>]"` };
    return { kind: 'action', thought, tool: TOOL_NAME, argument, text: text.slice(0, action.index + action[0].length).trimEnd() };
  }
  if (final) return { kind: 'final', thought, answer: text.slice(final.index + final[0].length).trim() };
  // tolerated: an answer that is only the JSON scores, without the label
  if (/[{[]/.test(text) && /\}|\]/.test(text) && !/\bAction\b/i.test(text)) return { kind: 'final', thought, answer: text.trim() };
  return { kind: 'invalid', reason: 'the reply has neither an "Action: ReadFileSkeleton[<path>]" line nor a "Final Answer:"' };
}

export interface SkeletonAgentSettings {
  maxSteps: number;
  maxRetries: number;
  /**
   * 'full' (default): every observation stays in the conversation, as in plain ReAct. 'outline': once a
   * newer skeleton arrives, older ones are replaced by their outline (class and function names, no
   * signatures or docstrings) — each turn resends the history, so this bounds the quadratic growth.
   * 'notes': older skeletons are replaced by a one-line note; what the agent concluded from them stays in
   * its own Thoughts, which are kept — the explicit agent memory the paper recommends (§6, R) instead of
   * resending every observation: each skeleton is sent once, the conversation grows by Thoughts only.
   */
  history?: Phase1History;
}

/**
 * Names-only outline of a ReadFileSkeleton observation, indentation kept: for Python (and Ruby) skeletons
 * class headers and def names; for the brace languages each signature with its parameter lists emptied
 * (`func (s *Server) Run()`, `pub fn route()`). Doc comment lines are left out.
 */
export function outlineOfSkeleton(skeleton: string): string {
  const lines = skeleton.split('\n');
  const pythonLike = lines.some((l) => /^\s*(?:async\s+)?def\s/.test(l) || /^\s*class\s+[A-Za-z_]\w*(\(|:)/.test(l));
  const out: string[] = [];
  for (const line of lines) {
    if (pythonLike) {
      const def = /^(\s*)(?:async\s+)?def\s+((?:self\.)?[A-Za-z_]\w*[?!]?)/.exec(line);
      if (def) {
        out.push(`${def[1]}def ${def[2]}`);
        continue;
      }
      const cls = /^(\s*)(class|module)\s+([A-Za-z_][\w:]*)(\([^)]*\))?/.exec(line);
      if (cls) out.push(`${cls[1]}${cls[2]} ${cls[3]}${cls[4] ?? ''}`);
      continue;
    }
    const signature = /^(\s*)(?!\/\/|#|\/\*|\*)(\S.*)$/.exec(line);
    if (!signature) continue;
    const shortened = signature[2]!
      .replace(/^(?:@\w+(?:\([^)]*\))?\s+)+/, '')
      .replace(/\s*(?:\{ \.\.\. \}|\.\.\.)$/, '')
      .replace(/(\w)\((?:[^()]|\([^()]*\))*\)/g, '$1()');
    out.push(`${signature[1]}${shortened.length > 100 ? `${shortened.slice(0, 97)}...` : shortened}`);
  }
  return out.join('\n');
}

/** What an older skeleton observation becomes in the 'outline' and 'notes' histories. */
export function condensedObservation(older: { path: string; skeleton: string }, history: 'outline' | 'notes'): string {
  if (history === 'outline') return `Observation: (outline of ${older.path}; full skeleton shown earlier)\n${outlineOfSkeleton(older.skeleton)}`;
  const outline = outlineOfSkeleton(older.skeleton)
    .split('\n')
    .filter((l) => l.trim());
  const classes = outline.filter((l) => /(?:^|\s)(?:class|struct|interface|trait|impl|enum|module|namespace|type)\s/.test(l)).length;
  return `Observation: (skeleton of ${older.path} shown earlier: ${classes} classes, ${outline.length - classes} functions/methods; your Thought after it holds what you concluded)`;
}

export interface SkeletonAgentInput {
  issue: string;
  /** the candidate pool in retrieval order */
  candidates: readonly string[];
  /** the tool: a candidate's skeleton (the localizer records the tool call) */
  readSkeleton(path: string): Promise<string>;
}

export interface SkeletonAgentResult {
  /** candidates best first: scored ones by score (ties: pool order), then unscored in pool order */
  order: string[];
  /** empty after a fall back */
  scores: Map<string, number>;
  inspected: string[];
  /** tool calls made */
  steps: number;
  /** model calls made */
  turns: number;
  /** why the phase fell back to retrieval order */
  fallback?: string;
  /** written paths that were not candidates (tool arguments and score keys) */
  dropped: Array<{ entry: string; reason: string }>;
}

export async function runSkeletonAgent(ctx: CallContext, input: SkeletonAgentInput, settings: SkeletonAgentSettings): Promise<SkeletonAgentResult> {
  const matcher = new CandidateMatcher(input.candidates);
  const system = renderPrompt('blagent-sas-system', { max_steps: String(settings.maxSteps) });
  const task = renderPrompt('blagent-sas-user', { issue: input.issue.trim(), candidates: input.candidates.map((c, i) => `${i + 1}. ${c}`).join('\n') });
  const inspected: string[] = [];
  /** message indexes of full skeleton observations, for the 'outline' history */
  const fullObservations: Array<{ at: number; path: string; skeleton: string }> = [];
  const dropped: SkeletonAgentResult['dropped'] = [];
  let steps = 0;
  let turns = 0;
  let retries = 0;
  let lastProblem = '';
  const finish = (scores: Map<string, number>, fallback?: string): SkeletonAgentResult => {
    const rank = new Map(input.candidates.map((c, i) => [c, i]));
    const order = [...input.candidates].sort((a, b) => {
      const sa = scores.get(a);
      const sb = scores.get(b);
      if (sa !== undefined && sb !== undefined && sa !== sb) return sb - sa;
      if ((sa === undefined) !== (sb === undefined)) return sa === undefined ? 1 : -1;
      return rank.get(a)! - rank.get(b)!;
    });
    if (fallback) ctx.trace.push({ type: 'note', step: 'phase1', message: `fell back to retrieval order: ${fallback}` });
    return { order, scores, inspected, steps, turns, dropped, ...(fallback ? { fallback } : {}) };
  };
  const fellBack = () =>
    finish(new Map(), `no usable answer after ${settings.maxRetries} retries (${turns} replies, ${steps} inspections); last problem: ${lastProblem}`);
  /** an unusable reply: the retry prompt, or the fall back when no retry is left */
  const retry = (problem: string, expected: string): AgentStep<SkeletonAgentResult> => {
    retries += 1;
    lastProblem = problem;
    ctx.trace.push({
      type: 'note',
      step: 'phase1',
      message: `unusable reply (${retries <= settings.maxRetries ? `retry ${retries} of ${settings.maxRetries}` : 'no retries left'}): ${problem}`,
    });
    return retries > settings.maxRetries ? { end: fellBack() } : { next: renderPrompt('blagent-retry', { problem, expected }) };
  };

  const onReply = async (content: string, state: AgentState): Promise<AgentStep<SkeletonAgentResult>> => {
    turns += 1;
    const reply = parseAgentReply(content);
    if (reply.kind === 'invalid') {
      return retry(reply.reason, `Reply with "Thought: …" followed by either "Action: ${TOOL_NAME}[<candidate path>]" or "Final Answer:" and the JSON scores.`);
    }
    if (reply.kind === 'final') {
      try {
        const parsed = parseScores(reply.answer, matcher);
        if (parsed.dropped.length > 0) {
          dropped.push(...parsed.dropped);
          ctx.trace.push({ type: 'note', step: 'phase1', message: `final answer: ${parsed.dropped.length} entries dropped`, data: parsed.dropped });
        }
        ctx.trace.push({
          type: 'note',
          step: 'phase1',
          message: `scores for ${parsed.scores.size} of ${input.candidates.length} candidates`,
          data: Object.fromEntries(parsed.scores),
        });
        return { end: finish(parsed.scores) };
      } catch (err) {
        return retry(
          `the Final Answer could not be read: ${(err as Error).message}.`,
          'Give the Final Answer again as one JSON object mapping exact candidate paths to scores from 0 to 10, e.g. {"pkg/module.py": 8}.',
        );
      }
    }
    if (steps >= settings.maxSteps) {
      return retry(
        `the step limit (${settings.maxSteps} inspections) is reached.`,
        'Give your Final Answer now: one JSON object mapping candidate paths to scores from 0 to 10.',
      );
    }
    steps += 1;
    const path = matcher.resolve(reply.argument);
    let observation: string;
    if (!path) {
      dropped.push({ entry: reply.argument, reason: 'tool argument is not a candidate' });
      ctx.trace.push({ type: 'note', step: 'phase1', message: `tool argument "${reply.argument}" is not a candidate` });
      observation = `"${reply.argument}" is not one of the candidate files. Inspect only these:\n${input.candidates.join('\n')}`;
    } else if (inspected.includes(path)) {
      observation = `You already inspected ${path}; its skeleton is above.`;
    } else {
      inspected.push(path);
      observation = await input.readSkeleton(path);
      if (settings.history === 'outline' || settings.history === 'notes') {
        const messages = state.messages;
        for (const older of fullObservations.splice(0)) messages[older.at] = { role: 'user', content: condensedObservation(older, settings.history) };
        // the observation goes right after this reply
        fullObservations.push({ at: messages.length, path, skeleton: observation });
      }
    }
    if (steps === settings.maxSteps) observation += `\n\n(That was your last inspection: give your Final Answer next.)`;
    // the reply is kept up to its action: what the model wrote after it would be invented tool output
    return { assistant: reply.text, next: `Observation: ${observation}` };
  };

  const agent = await runAgent<SkeletonAgentResult>(
    {
      llm: ctx.llm,
      trace: ctx.trace,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      // every turn inspects (at most maxSteps), retries (the one past maxRetries ends it) or answers
      ...agentBudget(
        { ...ctx.settings, maxSteps: settings.maxSteps + settings.maxRetries + 1 },
        { purpose: 'blagent.phase1', traceStep: 'phase1', stop: ['\nObservation:', 'Observation:'] },
      ),
      onReply,
    },
    system,
    task,
  );
  return agent.answer ?? fellBack();
}
