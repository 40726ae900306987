/**
 * A scripted BLAgent "model" for the scripted server: recognises which phase a request belongs to from
 * the prompt and answers by a fixed, configurable policy. Used by the tests and by
 * scripts/bench-blagent-cost.ts (default policy: structural/first-words queries, inspect the top 5
 * skeletons, score by retrieval order, EAR keeps the order it is given).
 */
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { extractStructuralSignals, structuralQueryText } from '../../localizer/retrieval/structural-query.ts';

export type BlagentPhase = 'T0' | 'T1' | 'phase1' | 'phase2' | 'phase2-functions' | 'unknown';

export function phaseOf(request: ScriptedChatRequest): BlagentPhase {
  if (request.system.includes('bug localization agent')) return 'phase1';
  const first = request.messages[0]?.content ?? '';
  if (first.includes('Write the STRUCTURAL query')) return 'T0';
  if (first.includes('Write the BEHAVIOURAL query')) return 'T1';
  if (first.includes('Identify the functions and methods that must be edited')) return 'phase2-functions';
  if (first.includes('rank them by how likely each must be edited')) return 'phase2';
  return 'unknown';
}

/** The bug report inside the first prompt (between the last 'Bug report:' opener and the closer the prompt puts after it). */
export function issueOf(request: ScriptedChatRequest): string {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const opener = 'Bug report:\n"""\n';
  const start = user.lastIndexOf(opener);
  if (start < 0) return '';
  const from = start + opener.length;
  for (const closer of ['\n"""\nQuery:', '\n"""\n\nCandidate files']) {
    const end = user.indexOf(closer, from);
    if (end >= 0) return user.slice(from, end);
  }
  return '';
}

/** Phase 1 candidates in the order shown ("1. path" lines). */
export function candidatesOf(request: ScriptedChatRequest): string[] {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const list = user.split('Candidate files')[1] ?? '';
  return [...list.matchAll(/^\d+\. (\S+)$/gm)].map((m) => m[1]!);
}

/** EAR files in the order shown ("### path" headers). */
export function earFilesOf(request: ScriptedChatRequest): string[] {
  const first = request.messages[0]?.content ?? '';
  return [...first.matchAll(/^### (\S+)$/gm)].map((m) => m[1]!);
}

/** Assistant turns so far in the conversation. */
export function turnOf(request: ScriptedChatRequest): number {
  return request.messages.filter((m) => m.role === 'assistant').length;
}

export interface BlagentPolicyOptions {
  /** skeletons inspected before answering (default 5) */
  inspect?: number;
  t0?: (issue: string) => ScriptedReply;
  t1?: (issue: string) => ScriptedReply;
  /** Phase 1 final answer text; default: the inspected candidates scored 10, 9, … in retrieval order */
  scores?: (candidates: string[], inspected: string[], issue: string) => ScriptedReply;
  /** EAR answer; default the given order as a JSON list */
  ear?: (files: string[], issue: string) => ScriptedReply;
  /** function-level EAR answer; default: nothing usable (tests set it) */
  functions?: (files: string[], issue: string) => ScriptedReply;
}

export function defaultT0(issue: string): string {
  return structuralQueryText(extractStructuralSignals(issue)) || firstWords(issue, 40);
}

export function defaultT1(issue: string): string {
  return firstWords(issue, 60);
}

function firstWords(text: string, n: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, n).join(' ');
}

export function retrievalOrderScores(_candidates: string[], inspected: string[]): string {
  const scores = Object.fromEntries(inspected.map((p, i) => [p, Math.max(0, 10 - i)]));
  return `Thought: I have seen enough.\nFinal Answer:\n\`\`\`json\n${JSON.stringify(scores, null, 2)}\n\`\`\``;
}

export function blagentPolicy(options: BlagentPolicyOptions = {}): (request: ScriptedChatRequest) => ScriptedReply | undefined {
  const inspect = options.inspect ?? 5;
  return (request) => {
    const phase = phaseOf(request);
    const issue = issueOf(request);
    switch (phase) {
      case 'T0':
        return (options.t0 ?? defaultT0)(issue);
      case 'T1':
        return (options.t1 ?? defaultT1)(issue);
      case 'phase1': {
        const candidates = candidatesOf(request);
        const toInspect = candidates.slice(0, inspect);
        const turn = turnOf(request);
        if (turn < toInspect.length) return `Thought: ${toInspect[turn]} may be involved.\nAction: ReadFileSkeleton[${toInspect[turn]}]`;
        return (options.scores ?? retrievalOrderScores)(candidates, toInspect, issue);
      }
      case 'phase2': {
        const files = earFilesOf(request);
        return options.ear ? options.ear(files, issue) : `\`\`\`json\n${JSON.stringify(files)}\n\`\`\``;
      }
      case 'phase2-functions':
        return options.functions ? options.functions(earFilesOf(request), issue) : 'I cannot tell.';
      default:
        return undefined;
    }
  };
}
