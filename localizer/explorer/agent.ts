/**
 * The explorer loop, mini-swe-agent's shape: the message list is the trajectory. Each step is one model
 * call. Its reply either runs one checked command in the read-only workspace (the observation is the next
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
import { LlmError } from '../../src/llm/errors.ts';
import type { ChatMessage, ChatModel } from '../../src/llm/types.ts';
import type { ReadOnlyWorkspace } from '../../src/sandbox/types.ts';
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
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
  const run: ExplorerRun = {
    stop: 'max-steps',
    files: [],
    thought: '',
    steps: 0,
    commands: 0,
    reads: 0,
    refused: 0,
    formatErrors: 0,
    commandTimeouts: 0,
    commandMs: 0,
    tokens: 0,
    messages,
  };
  let maxSteps = settings.maxSteps;
  let asked: 'max-steps' | 'tokens' | undefined;
  let malformedAnswers = 0;

  while (run.steps < maxSteps) {
    if (settings.deadline !== undefined && Date.now() >= settings.deadline) return { ...run, stop: 'time' };
    if (run.steps === maxSteps - 1 && !asked) {
      messages.push({ role: 'user', content: LAST_STEP_MESSAGE });
      asked = 'max-steps';
    }
    const reply = await call(ctx, messages, settings);
    if (reply === undefined) return { ...run, stop: 'time' };
    run.steps++;
    run.tokens += reply.tokens;
    messages.push({ role: 'assistant', content: reply.content });
    const parsed = parseReply(reply.content, ctx.workspace.root);

    if (parsed.kind === 'answer') return { ...run, stop: 'answer', files: parsed.files, thought: parsed.thought };
    let next: string;
    if (parsed.kind === 'malformed-answer') {
      run.formatErrors++;
      if (++malformedAnswers >= 2) return { ...run, stop: 'invalid-answer', thought: parsed.thought };
      next = `Your final answer could not be read: ${parsed.problem}. Reply again with one \`\`\`json block of the form {"files": ["path/one.ext", "path/two.ext"]} and nothing else to run.`;
    } else if (parsed.kind === 'format-error') {
      run.formatErrors++;
      next = `Format error: ${parsed.problem}. Reply with a THOUGHT and exactly one \`\`\`bash block (one command line), or with the final \`\`\`json block.`;
    } else {
      next = await execute(ctx, parsed.command, settings, run);
    }
    if (run.tokens >= settings.tokenBudget && !asked) {
      next += `\n\n${TOKENS_SPENT_MESSAGE}`;
      asked = 'tokens';
      maxSteps = run.steps + 1;
    }
    messages.push({ role: 'user', content: next });
  }
  return { ...run, stop: asked ?? 'max-steps' };
}

async function call(ctx: ExplorerContext, messages: ChatMessage[], settings: ExplorerSettings): Promise<{ content: string; tokens: number } | undefined> {
  const timeLeft = settings.deadline === undefined ? undefined : settings.deadline - Date.now();
  const deadline = timeLeft === undefined ? undefined : AbortSignal.timeout(Math.max(1, timeLeft));
  const signals = [ctx.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  try {
    const response = await ctx.llm.chat({
      messages: [...messages],
      temperature: settings.temperature,
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      purpose: 'explorer.step',
      ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
      trace: (t) => ctx.trace.push({ type: 'llm', step: 'explore', trace: t }),
    });
    return { content: response.choices[0]?.content ?? '', tokens: response.usage.promptTokens + response.usage.completionTokens };
  } catch (err) {
    // our deadline (not the caller's signal) cancelled the call: the run ran out of time
    if (err instanceof LlmError && err.kind === 'aborted' && deadline?.aborted && !ctx.signal?.aborted) return undefined;
    throw err;
  }
}

async function execute(ctx: ExplorerContext, command: string, settings: ExplorerSettings, run: ExplorerRun): Promise<string> {
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
