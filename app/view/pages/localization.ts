/**
 * File, function and line localization as a person reads them: the ranking with the gold files marked and
 * each file's evidence, the agent's trajectory as a conversation, and the chosen locations against the gold
 * ones.
 */
import { html } from 'hono/html';
import type { FileLocalization, TraceEvent } from '../../../src/artifacts/localization.ts';
import type { ChatMessage, ChatTrace } from '../../../src/llm/types.ts';
import type { FunctionStageOutput, LineStageOutput } from '../../../localizer/hierarchy/stage.ts';
import type { InstanceAnalysis } from '../../../results/failure-analysis.ts';
import { json, longText, seconds, sync, type Html } from '../html.ts';

/** How many ranked files the page lists before collapsing the rest. */
const SHOWN_FILES = 20;

export function rankedFiles(files: FileLocalization, gold: readonly string[], handed: number): Html {
  const goldSet = new Set(gold);
  const row = (f: FileLocalization['files'][number], i: number) =>
    html`<tr class="${goldSet.has(f.path) ? 'gold' : ''}"><td class="num">${i + 1}</td><td>${f.path}${goldSet.has(f.path) ? html` <b>gold</b>` : ''}${
      i < handed ? '' : html` <span class="muted">not handed on</span>`
    }</td><td class="num">${Number.isFinite(f.score) ? f.score.toFixed(3) : String(f.score)}</td><td>${
      f.evidence ? html`<details><summary>evidence</summary>${json(f.evidence, 20)}</details>` : ''
    }</td></tr>`;
  const missing = gold.filter((g) => !files.files.some((f) => f.path === g));
  return sync(html`<table><thead><tr><th>#</th><th>file</th><th>score</th><th>evidence (per channel)</th></tr></thead>
<tbody>${files.files.slice(0, SHOWN_FILES).map(row)}</tbody></table>
${files.files.length > SHOWN_FILES ? html`<details><summary>${files.files.length - SHOWN_FILES} more files</summary><table><tbody>${files.files.slice(SHOWN_FILES).map((f, i) => row(f, i + SHOWN_FILES))}</tbody></table></details>` : ''}
${missing.length ? html`<p>gold files not ranked: ${missing.join(', ')}</p>` : ''}
${files.predicted ? html`<p>the localizer's own answer: ${files.predicted.join(', ') || '(none)'}</p>` : ''}
${files.warnings?.length ? html`<p class="warn">${files.warnings.join('; ')}</p>` : ''}
${files.confidence ? html`<details><summary>confidence signals</summary>${json(files.confidence)}</details>` : ''}`);
}

function message(m: ChatMessage, note?: string): Html {
  return sync(
    html`<div class="msg msg-${m.role}"><div class="role">${m.role}${note ? html` <span class="muted">${note}</span>` : ''}</div>${longText(m.content, m.role === 'assistant' ? 60 : 12)}</div>`,
  );
}

function callNote(t: ChatTrace): string {
  const u = t.response?.usage;
  const tokens = u ? `${u.promptTokens} in / ${u.completionTokens} out tokens` : 'no answer';
  return `${tokens} · ${seconds(t.latencyMs)}${t.response?.cached ? ' · cached' : ''}${t.error ? ` · ${t.error.kind}: ${t.error.message}` : ''}`;
}

/** One model call: its prompt collapsed (the last user message shows what was asked), its answer open. */
function llmEvent(step: string, t: ChatTrace): Html {
  const prompt = t.request.messages;
  const answers = t.response?.choices ?? [];
  return sync(html`<div class="step"><div class="step-head">${step} <span class="muted">${t.purpose ?? ''} · ${callNote(t)}</span></div>
<details><summary>prompt (${prompt.length} messages)</summary>${prompt.map((m) => message(m))}</details>
${answers.map((c, i) => message({ role: 'assistant', content: c.content }, answers.length > 1 ? `sample ${i + 1}` : undefined))}
${t.error ? html`<p class="warn">${t.error.kind}: ${t.error.message}</p>` : ''}</div>`);
}

function traceEvent(e: TraceEvent): Html {
  if (e.type === 'llm') return llmEvent(e.step, e.trace);
  if (e.type === 'tool')
    return sync(html`<div class="step tool"><details><summary>${e.step} · tool <b>${e.tool}</b> <span class="muted">${seconds(e.durationMs)}</span></summary>
<div class="role">input</div>${json(e.input, 12)}<div class="role">output</div>${longText(e.output, 30)}</details></div>`);
  return sync(
    html`<div class="step note">${e.step}: ${e.message}${e.data !== undefined ? html`<details><summary>data</summary>${json(e.data)}</details>` : ''}</div>`,
  );
}

/**
 * An agent's run as a conversation. When the localizer kept its message list (the trajectory: the explorer,
 * an agent that failed), the messages are shown, each assistant turn with the tokens and time of the call that
 * made it; otherwise the trace (model calls, tool calls, notes) in order.
 */
export function conversation(trace: readonly TraceEvent[], trajectory?: readonly ChatMessage[]): Html {
  if (trajectory?.length) {
    const calls = trace.filter((e): e is Extract<TraceEvent, { type: 'llm' }> => e.type === 'llm');
    let turn = 0;
    return sync(
      html`<div class="conversation">${trajectory.map((m) => {
        if (m.role !== 'assistant')
          return m.role === 'user' && turn > 0
            ? html`<details class="obs"><summary>observation (${m.content.length} characters)</summary>${longText(m.content, 40)}</details>`
            : message(m);
        const call = calls[turn++];
        return message(m, call ? `step ${turn} · ${callNote(call.trace)}` : `step ${turn}`);
      })}</div>`,
    );
  }
  if (!trace.length) return sync(html`<p class="muted">no trace recorded</p>`);
  return sync(html`<div class="conversation">${trace.map(traceEvent)}</div>`);
}

/** The trajectory a localizer kept in its details (the explorer) or in its error's details (any agent that failed). */
export function trajectoryOf(details: Record<string, unknown> | undefined): ChatMessage[] | undefined {
  const t = details?.trajectory;
  return Array.isArray(t) && t.every((m) => m && typeof m === 'object' && typeof (m as ChatMessage).content === 'string') ? (t as ChatMessage[]) : undefined;
}

export function fileLocalization(files: FileLocalization, gold: readonly string[], handed: number): Html {
  const agent = files.agent
    ? html`<p>agent: ${files.agent.steps} steps, ${files.agent.commands} commands, ${files.agent.reads} reads, stopped: ${files.agent.stop}</p>`
    : '';
  return sync(html`${rankedFiles(files, gold, handed)}${agent}
<details open><summary>how it was found (${files.trace.length} trace events${files.usage ? `, ${files.usage.calls} model calls` : ''})</summary>${conversation(files.trace, trajectoryOf(files.details))}</details>
${files.details ? html`<details><summary>details</summary>${json(files.details, 40)}</details>` : ''}`);
}

const elementKey = (e: { path: string; name: string }) => `${e.path} :: ${e.name}`;

export function functionLocalization(
  out: FunctionStageOutput,
  analysis: InstanceAnalysis | undefined,
  goldElements: ReadonlyArray<{ path: string; name: string }>,
): Html {
  const gold = new Set(goldElements.map(elementKey));
  const chosen = out.codeElements ?? [];
  return sync(html`<p>files handed on: ${(out.handed ?? out.files ?? []).join(', ')}${analysis ? html` · function level ${analysis.functionCorrect ? 'right' : 'wrong'}` : ''}</p>
<table><thead><tr><th>chosen element</th><th></th></tr></thead><tbody>${chosen.map(
    (e) => html`<tr class="${gold.has(elementKey(e)) ? 'gold' : ''}"><td>${elementKey(e)}</td><td>${gold.has(elementKey(e)) ? 'gold' : ''}</td></tr>`,
  )}</tbody></table>
${goldElements.length ? html`<p>gold elements: ${goldElements.map(elementKey).join('; ')}</p>` : ''}
${out.rawOutputs?.length ? html`<details><summary>the model's ${out.rawOutputs.length} answers</summary>${out.rawOutputs.map((r) => longText(r, 20))}</details>` : ''}
${out.trace?.length ? html`<details><summary>trace</summary>${conversation(out.trace)}</details>` : ''}`);
}

export function lineLocalization(out: LineStageOutput, analysis: InstanceAnalysis | undefined): Html {
  const line = analysis?.line;
  return sync(html`<p>${out.locationSets.length} location sets over ${out.files.join(', ') || 'no file'}${
    line ? html` · line level ${line.correct ? 'right' : 'wrong'} (${line.rule}${line.distance !== undefined ? `, ${line.distance} lines apart` : ''})` : ''
  }</p>
${line?.gold ? html`<p>gold line: ${line.gold.path}:${line.gold.line} <code>${line.gold.text}</code></p>` : ''}
${line?.model ? html`<p>patch line: ${line.model.path}:${line.model.line} <code>${line.model.text}</code></p>` : ''}
${out.locationSets.map((set, i) => html`<details><summary>location set ${i + 1}</summary>${json(set, 30)}</details>`)}
${out.trace?.length ? html`<details><summary>trace</summary>${conversation(out.trace)}</details>` : ''}`);
}
