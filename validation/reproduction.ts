/**
 * Reproduction tests (Agentless 1.5): the model writes standalone scripts that print exactly one of
 * `Issue reproduced` / `Issue resolved` / `Other issues` (greedy sample first, then sampled ones). Scripts
 * that print `Issue reproduced` on the unpatched repository are kept; the one most samples agree on
 * (normalized) is chosen; a candidate passes when, with it applied, the script prints `Issue resolved` and
 * neither of the other two lines. Scripts run only inside the instance's sandbox.
 */
import type { ChatModel } from '../src/llm/types.ts';
import { renderPrompt } from '../src/prompts.ts';
import type { Candidate } from './regression.ts';
import type { InstanceTestbed } from './testbed.ts';

export const ISSUE_REPRODUCED = 'Issue reproduced';
export const ISSUE_RESOLVED = 'Issue resolved';
export const OTHER_ISSUES = 'Other issues';

export type ReproductionOutcome = 'reproduced' | 'resolved' | 'other' | 'none';

// In the repository root, as Agentless runs it, so the project imports without being installed; the reset
// after the run removes it.
const SCRIPT_PATH = '/testbed/reproduce_bug.py';

/** The script of a model answer: the first ```python block, else the first fenced block. */
export function extractScript(answer: string): string | undefined {
  const python = /```python[^\n]*\n([\s\S]*?)```/.exec(answer);
  if (python) return python[1];
  const any = /```[^\n]*\n([\s\S]*?)```/.exec(answer);
  return any?.[1];
}

/** Comparison key of a script: without comment-only lines, blank lines, trailing and repeated spaces. */
export function normalizeScript(script: string): string {
  return script
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    .map((l) => {
      const indent = /^\s*/.exec(l)![0];
      return indent + l.trim().replace(/\s+/g, ' ');
    })
    .join('\n');
}

/** Which marker lines the output holds; more than one, or none, is not a clean outcome. */
export function outcomeOf(output: string): ReproductionOutcome {
  const lines = new Set(output.split('\n').map((l) => l.trim()));
  const seen = [lines.has(ISSUE_REPRODUCED), lines.has(ISSUE_RESOLVED), lines.has(OTHER_ISSUES)];
  if (seen.filter(Boolean).length !== 1) return seen.some(Boolean) ? 'other' : 'none';
  return seen[0] ? 'reproduced' : seen[1] ? 'resolved' : 'other';
}

export interface GenerateOptions {
  /** total samples, the greedy one included (default 40) */
  samples?: number;
  temperature?: number;
}

/** Asks the model for reproduction scripts: one greedy sample, then `samples - 1` sampled ones. */
export async function generateReproductionScripts(model: ChatModel, problemStatement: string, options: GenerateOptions = {}): Promise<(string | undefined)[]> {
  const samples = options.samples ?? 40;
  const messages = [{ role: 'user' as const, content: renderPrompt('validation-reproduction', { problem_statement: problemStatement }) }];
  const greedy = await model.chat({ messages, temperature: 0, n: 1, purpose: 'validation.reproduction' });
  const answers = [greedy.choices[0]?.content ?? ''];
  if (samples > 1) {
    const sampled = await model.chat({ messages, temperature: options.temperature ?? 0.8, n: samples - 1, purpose: 'validation.reproduction' });
    answers.push(...sampled.choices.map((c) => c.content));
  }
  return answers.map(extractScript);
}

/** Runs a script in /testbed with the candidate applied ('' = unpatched). */
async function runScript(
  testbed: InstanceTestbed,
  script: string,
  patch: string,
  timeoutMs?: number,
): Promise<{ outcome: ReproductionOutcome; output: string; applied: boolean }> {
  const run = await testbed.runWithPatch(patch, ['PY=$(command -v python || command -v python3)', `"$PY" ${SCRIPT_PATH}`], timeoutMs, [
    { path: SCRIPT_PATH, content: script },
  ]);
  if (!run.applied) return { outcome: 'none', output: run.applyOutput, applied: false };
  return { outcome: run.timedOut ? 'none' : outcomeOf(run.output), output: run.output, applied: true };
}

export interface ReproductionSelection {
  /** the chosen script; undefined when no sample reproduces the issue */
  script?: string;
  /** per sample: its outcome on the unpatched repository ('none' for samples without a script) */
  outcomes: ReproductionOutcome[];
  /** sample indices whose script reproduces the issue */
  reproducing: number[];
}

/** Keeps scripts that print `Issue reproduced` unpatched and picks the normalized majority (earliest on ties). */
export async function selectReproductionScript(
  testbed: InstanceTestbed,
  scripts: readonly (string | undefined)[],
  options: { timeoutMs?: number } = {},
): Promise<ReproductionSelection> {
  const byKey = new Map<string, ReproductionOutcome>();
  const outcomes: ReproductionOutcome[] = [];
  for (const script of scripts) {
    if (!script) {
      outcomes.push('none');
      continue;
    }
    const key = normalizeScript(script);
    let outcome = byKey.get(key);
    if (outcome === undefined) {
      outcome = (await runScript(testbed, script, '', options.timeoutMs)).outcome;
      byKey.set(key, outcome);
    }
    outcomes.push(outcome);
  }
  const reproducing = outcomes.flatMap((o, i) => (o === 'reproduced' ? [i] : []));
  const votes = new Map<string, { count: number; first: number }>();
  for (const i of reproducing) {
    const key = normalizeScript(scripts[i]!);
    const entry = votes.get(key);
    if (entry) entry.count += 1;
    else votes.set(key, { count: 1, first: i });
  }
  let best: { count: number; first: number } | undefined;
  for (const entry of votes.values()) {
    if (!best || entry.count > best.count || (entry.count === best.count && entry.first < best.first)) best = entry;
  }
  await testbed.reset().catch(() => undefined);
  return { script: best ? scripts[best.first] : undefined, outcomes, reproducing };
}

export interface ReproductionResult {
  reproductionPassed: boolean;
  outcome: ReproductionOutcome;
  output: string;
}

/** Runs the chosen script once per distinct candidate key. */
export async function runReproductionTest(
  testbed: InstanceTestbed,
  script: string,
  candidates: readonly Candidate[],
  options: { timeoutMs?: number } = {},
): Promise<Map<string, ReproductionResult>> {
  const results = new Map<string, ReproductionResult>();
  for (const candidate of candidates) {
    if (results.has(candidate.key)) continue;
    const run = await runScript(testbed, script, candidate.patch, options.timeoutMs);
    results.set(candidate.key, { reproductionPassed: run.outcome === 'resolved', outcome: run.outcome, output: run.output });
  }
  await testbed.reset().catch(() => undefined);
  return results;
}
