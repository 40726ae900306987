/**
 * The explorer's protocol over the shared agent core (localizer/agent/core.ts, mini-swe-agent's loop: the message
 * list is the trajectory, each step is one model call, budgets and deadline handled there). Its reply either runs one checked command in the read-only workspace (the observation is the next
 * user message), or ends the run with the final answer. A refused command, a reply without exactly one
 * action and a malformed answer each get a message the model reads. A malformed answer gets one such
 * repair prompt; a second one ends the run as an error.
 *
 * How a run ends:
 *
 *   answer          a valid final answer (possibly an empty list)
 *   invalid-answer  two malformed final answers
 *   max-steps       the last step was spent without an answer (it was asked for one)
 *   tokens          the token budget was spent, and the one call after it gave no answer
 *   time            the wall clock ran out; the study counts this as an error row
 *
 * Transport and spend-cap errors propagate: the stage records them (a spend cap stops the run).
 */
import type { TraceEvent } from '../../src/artifacts/localization.ts';
import type { ChatMessage, ChatModel } from '../../src/llm/types.ts';
import type { ReadOnlyWorkspace } from '../../src/sandbox/types.ts';
import { agentBudget, runAgent } from '../agent/core.ts';
import { parseReply } from './answer.ts';
import { READ_PROGRAMS, checkCommandLine } from './commands.ts';

export type ExplorerStop = 'answer' | 'invalid-answer' | 'max-steps' | 'tokens' | 'time';

export const LAST_STEP_MESSAGE = 'This is your last reply: give your final answer now, as one ```json block {"files": [...]}.';
export const TOKENS_SPENT_MESSAGE = 'The token budget is spent: give your final answer now, as one ```json block {"files": [...]}.';

export interface ExplorerSettings {
  maxSteps: number;
  tokenBudget: number;
  /** epoch ms when the run stops */
  deadline?: number;
  commandTimeoutMs: number;
  observationChars: number;
  maxOutputBytes: number;
  temperature: number;
  maxTokens?: number;
  seed?: number;
}

export interface ExplorerRun {
  stop: ExplorerStop;
  /** the final answer's files (empty unless stop is "answer") */
  files: string[];
  thought: string;
  steps: number;
  /** command lines run in the workspace */
  commands: number;
  /** commands that read a file's content (cat, nl, sed, head, tail on a file) */
  reads: number;
  /** command lines refused by the read-only check */
  refused: number;
  /** replies without exactly one action, and malformed answers */
  formatErrors: number;
  commandTimeouts: number;
  /** time spent in the workspace, over all commands */
  commandMs: number;
  tokens: number;
  /** the trajectory */
  messages: ChatMessage[];
}

export interface ExplorerContext {
  llm: ChatModel;
  workspace: ReadOnlyWorkspace;
  trace: TraceEvent[];
  signal?: AbortSignal;
}

export async function runExplorer(ctx: ExplorerContext, system: string, task: string, settings: ExplorerSettings): Promise<ExplorerRun> {
  const counts = { commands: 0, reads: 0, refused: 0, formatErrors: 0, commandTimeouts: 0, commandMs: 0 };
  let malformedAnswers = 0;
  const agent = await runAgent<{ stop: 'answer' | 'invalid-answer'; files: string[]; thought: string }>(
    {
      llm: ctx.llm,
      trace: ctx.trace,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...agentBudget(settings, { purpose: 'explorer.step', traceStep: 'explore' }),
      prompts: { lastStep: LAST_STEP_MESSAGE, tokensSpent: TOKENS_SPENT_MESSAGE },
      onReply: async (reply) => {
        const parsed = parseReply(reply, ctx.workspace.root);
        if (parsed.kind === 'answer') return { end: { stop: 'answer', files: parsed.files, thought: parsed.thought } };
        if (parsed.kind === 'malformed-answer') {
          counts.formatErrors++;
          if (++malformedAnswers >= 2) return { end: { stop: 'invalid-answer', files: [], thought: parsed.thought } };
          return {
            next: `Your final answer could not be read: ${parsed.problem}. Reply again with one \`\`\`json block of the form {"files": ["path/one.ext", "path/two.ext"]} and nothing else to run.`,
          };
        }
        if (parsed.kind === 'format-error') {
          counts.formatErrors++;
          return {
            next: `Format error: ${parsed.problem}. Reply with a THOUGHT and exactly one \`\`\`bash block (one command line), or with the final \`\`\`json block.`,
          };
        }
        return { next: await execute(ctx, parsed.command, settings, counts) };
      },
    },
    system,
    task,
  );
  const ended = agent.answer;
  return {
    stop: ended ? ended.stop : agent.stop === 'done' ? 'max-steps' : agent.stop,
    files: ended?.stop === 'answer' ? ended.files : [],
    thought: ended?.thought ?? '',
    steps: agent.steps,
    ...counts,
    tokens: agent.tokens,
    messages: agent.messages,
  };
}

type CommandCounts = Pick<ExplorerRun, 'commands' | 'reads' | 'refused' | 'commandTimeouts' | 'commandMs'>;

async function execute(ctx: ExplorerContext, command: string, settings: ExplorerSettings, run: CommandCounts): Promise<string> {
  const checked = checkCommandLine(command);
  if (!checked.ok) {
    run.refused++;
    ctx.trace.push({ type: 'tool', step: 'explore', tool: 'refused', input: command, output: checked.reason, durationMs: 0 });
    return `<returncode>-1</returncode>\n<error>Command refused: ${checked.reason}.</error>`;
  }
  const timeLeft = settings.deadline === undefined ? Number.POSITIVE_INFINITY : settings.deadline - Date.now();
  const timeoutMs = Math.max(1000, Math.min(settings.commandTimeoutMs, timeLeft));
  const t0 = performance.now();
  const result = await ctx.workspace.run(['/bin/sh', '-c', checked.script], { timeoutMs, maxOutputBytes: settings.maxOutputBytes });
  const ms = performance.now() - t0;
  run.commands++;
  run.commandMs += ms;
  run.reads += checked.reads;
  if (result.timedOut) run.commandTimeouts++;
  const shown = cutObservation(result.output, settings.observationChars);
  ctx.trace.push({
    type: 'tool',
    step: 'explore',
    tool: checked.programs.filter((p) => READ_PROGRAMS.has(p)).length ? 'read' : 'shell',
    input: { command, script: checked.script, exitCode: result.exitCode, timedOut: result.timedOut },
    output: shown,
    durationMs: ms,
  });
  const note = result.timedOut
    ? `\n<warning>The command was stopped after ${Math.round(timeoutMs / 1000)} s (the per-command limit): narrow it down.</warning>`
    : '';
  return `<returncode>${result.timedOut ? 124 : (result.exitCode ?? -1)}</returncode>${note}\n${shown}`;
}

/** mini-swe-agent's window: short outputs whole, long ones as head and tail with what was left out */
export function cutObservation(output: string, maxChars: number): string {
  if (output.length <= maxChars) return `<output>\n${output}</output>`;
  const half = Math.floor(maxChars / 2);
  return [
    `<warning>The output has ${output.length} characters; the middle ${output.length - 2 * half} are left out. Use a narrower command (grep with a path, sed -n with a line range, head).</warning>`,
    `<output_head>\n${output.slice(0, half)}\n</output_head>`,
    `<elided_chars>${output.length - 2 * half} characters elided</elided_chars>`,
    `<output_tail>\n${output.slice(-half)}\n</output_tail>`,
  ].join('\n');
}
