/**
 * The explorer localizer (the IssueLoc study's runner): a model explores the snapshot through read-only
 * shell commands in a sandbox and ends with an ordered list of files. That list is handed downstream as it
 * is: the predicted set, which the study's F1 and exact match score (`predicted`). It is not filled up or
 * cut afterwards.
 *
 * A run without a valid final answer is an error row, with its reason as the error kind:
 *
 *   explorer-timeout  the 600 s wall clock ran out
 *   invalid-answer    the answer was malformed twice
 *   max-steps         the step budget ran out
 *   tokens            the token budget ran out
 *
 * The error keeps the trajectory, steps and usage in its details, so nothing the run paid for is lost and
 * the runner metrics can count it.
 */
import { KindedError } from '../../src/run/kinded-error.ts';
import { earlyStop, signals } from '../../src/artifacts/confidence.ts';
import { renderPrompt } from '../../src/prompts.ts';
import { usageOfTrace, type FileLocalization, type TraceEvent } from '../../src/artifacts/localization.ts';
import type { ContextWith, FileLocalizer } from '../types.ts';
import { type ExplorerRun, runExplorer } from './agent.ts';
import { ALLOWED_PROGRAMS } from './commands.ts';
import type { ExplorerOptions } from './options.ts';
import { ERROR_KINDS, type ErrorKind } from '../../src/util/error-kinds.ts';

const ERROR_KIND: Record<Exclude<ExplorerRun['stop'], 'answer'>, ErrorKind> = {
  time: ERROR_KINDS.explorerTimeout,
  'invalid-answer': ERROR_KINDS.invalidAnswer,
  'max-steps': ERROR_KINDS.maxSteps,
  tokens: ERROR_KINDS.tokens,
};

export class ExplorerLocalizer implements FileLocalizer<'model' | 'workspace'> {
  readonly name = 'explorer';

  constructor(private readonly options: ExplorerOptions) {}

  async localize(ctx: ContextWith<'model' | 'workspace'>): Promise<FileLocalization> {
    const o = this.options;
    const started = Date.now();
    const trace: TraceEvent[] = [];
    let t = performance.now();
    const workspace = await ctx.workspace({ image: o.image, limits: { memoryBytes: o.memoryMb * 1024 ** 2, nanoCpus: Math.round(o.cpus * 1e9) } });
    const setupMs = performance.now() - t;
    let run: ExplorerRun;
    try {
      const vars = {
        root: workspace.root,
        command_timeout: String(o.commandTimeoutSeconds),
        max_steps: String(o.maxSteps),
        time_limit: o.timeLimitSeconds ? String(o.timeLimitSeconds) : 'unlimited',
      };
      const system = renderPrompt('explorer-system', { ...vars, programs: ALLOWED_PROGRAMS.join(', ') });
      const task = renderPrompt('explorer-task', { ...vars, problem_statement: ctx.instance.problem_statement });
      t = performance.now();
      run = await runExplorer({ llm: ctx.llm, workspace, trace, ...(ctx.signal ? { signal: ctx.signal } : {}) }, system, task, {
        maxSteps: o.maxSteps,
        tokenBudget: o.tokenBudget,
        ...(o.timeLimitSeconds > 0 ? { deadline: started + o.timeLimitSeconds * 1000 } : {}),
        commandTimeoutMs: o.commandTimeoutSeconds * 1000,
        observationChars: o.observationChars,
        maxOutputBytes: o.maxOutputBytes,
        temperature: o.temperature,
        ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
      });
    } finally {
      await workspace.dispose();
    }
    const agentMs = performance.now() - t;
    const usage = usageOfTrace(trace);
    const agent = {
      stop: run.stop,
      steps: run.steps,
      commands: run.commands,
      reads: run.reads,
      writes: 0,
      refused: run.refused,
      formatErrors: run.formatErrors,
      commandTimeouts: run.commandTimeouts,
      commandMs: Math.round(run.commandMs),
      elapsedMs: Date.now() - started,
    };
    const details = { agent, sandbox: { setupMs: Math.round(workspace.setupMs), openMs: Math.round(setupMs) }, trajectory: run.messages };
    if (run.stop !== 'answer') {
      const why = {
        time: `the ${o.timeLimitSeconds} s time limit ran out after ${run.steps} steps`,
        'invalid-answer': 'the final answer was malformed twice',
        'max-steps': `no final answer within ${o.maxSteps} steps`,
        tokens: `no final answer after the ${o.tokenBudget}-token budget was spent`,
      }[run.stop];
      throw new KindedError(ERROR_KIND[run.stop], `explorer: ${why}`, { ...details, usage, trace });
    }
    return {
      localizer: this.name,
      files: run.files.map((path, i) => ({ path, score: run.files.length - i, evidence: { source: 'explorer', rank: i + 1 } })),
      predicted: run.files,
      agent,
      trace,
      usage,
      timingsMs: { sandbox: setupMs, agent: agentMs },
      details: { ...details, thought: run.thought },
      confidence: signals({ 'early-stop': earlyStop(run.steps, o.maxSteps), 'answer-focus': run.files.length ? 1 / run.files.length : undefined }),
      ...(run.files.length === 0 ? { warnings: ['the explorer answered with an empty list'] } : {}),
    };
  }
}
