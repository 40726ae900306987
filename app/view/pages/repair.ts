/**
 * Repair, validation, selection and evaluation as a person reads them: the samples grouped by normal form with
 * their votes and the winner, what regression and reproduction tests said of each candidate, and the harness'
 * verdict test by test with the log around the first failure.
 */
import { html } from 'hono/html';
import type { RepairInstanceRecord, RepairSample, Selection, VoteEntry } from '../../../repair/types.ts';
import type { ValidateStageOutput } from '../../../validation/stages.ts';
import { diff, dollars, json, longText, sync, type Html } from '../html.ts';

function sampleLine(s: RepairSample): Html {
  const why = s.error ?? s.emptyReason;
  return sync(html`<details><summary>${s.id} (temperature ${s.temperature})${why ? html` · <span class="warn">${why}</span>` : ''}</summary>
<div class="role">answer</div>${longText(s.raw, 40)}
${s.applyFailures.length ? html`<div class="role">edits that did not apply</div>${json(s.applyFailures, 20)}` : ''}
${s.diff ? html`<div class="role">diff</div>${diff(s.diff)}` : ''}</details>`);
}

function voteGroup(entry: VoteEntry, rank: number, winner: string | undefined, samples: Map<string, RepairSample>): Html {
  const won = entry.normalized === winner;
  const representative = samples.get(entry.representative);
  const checks = [
    entry.regressionFailures !== undefined ? `${entry.regressionFailures} regression failures` : undefined,
    entry.reproductionPassed !== undefined ? `reproduction ${entry.reproductionPassed ? 'passed' : 'failed'}` : undefined,
  ].filter(Boolean);
  return sync(html`<div class="vote${won ? ' winner' : ''}">
<div class="step-head">#${rank} · ${entry.votes} vote${entry.votes === 1 ? '' : 's'} (${entry.sampleIds.join(', ')})${won ? html` · <b>selected</b>` : ''}${
    entry.eligible ? '' : html` · <span class="muted">not eligible under the filter</span>`
  }${checks.length ? ` · ${checks.join(', ')}` : ''}</div>
${diff(representative?.diff)}
<details><summary>normal form (the voting key)</summary><pre>${entry.normalized}</pre></details>
</div>`);
}

export function repairSection(record: RepairInstanceRecord, final: Selection | undefined): Html {
  const samples = new Map(record.samples.map((s) => [s.id, s]));
  const selection = final ?? record.selection;
  const candidates = record.samples.filter((s) => !s.emptyReason && !s.error).length;
  const reasons = new Map<string, number>();
  for (const s of record.samples) if (s.emptyReason) reasons.set(s.emptyReason, (reasons.get(s.emptyReason) ?? 0) + 1);
  return sync(html`<p>${record.samples.length} samples, ${candidates} candidates in ${selection.voteTable.length} normal forms · filter: ${selection.filter} · cost ${dollars(
    record.usage.cost,
  )}${reasons.size ? ` · no candidate: ${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ')}` : ''}</p>
${selection.emptyReason ? html`<p class="warn">empty patch: ${selection.emptyReason}</p>` : ''}
${selection.voteTable.map((e, i) => voteGroup(e, i + 1, selection.normalized, samples))}
<details><summary>every sample</summary>${record.samples.map(sampleLine)}</details>
${record.prompts.filter(Boolean).length ? html`<details><summary>the repair prompts (${record.prompts.filter(Boolean).length})</summary>${record.prompts.filter(Boolean).map((p) => longText(p, 30))}</details>` : ''}`);
}

export function validationSection(out: ValidateStageOutput): Html {
  const regression = out.regression;
  const reproduction = out.reproduction;
  return sync(html`<p>${out.candidates} candidates validated</p>
${
  regression
    ? html`<p>regression: <code>${regression.command}</code> · ${regression.passing} tests passing before the patch${regression.excluded?.length ? `, ${regression.excluded.length} excluded` : ''}</p>
<details><summary>the regression tests</summary>${longText(regression.tests.join('\n'), 30)}</details>`
    : ''
}
${reproduction ? html`<details><summary>reproduction</summary>${json({ ...reproduction }, 40)}</details>` : ''}
${out.skipped.map((s) => html`<p class="warn">${s.step} not run: ${s.reason}</p>`)}
<table><thead><tr><th>candidate (normal form)</th><th>regression failures</th><th>reproduction</th></tr></thead><tbody>${Object.entries(out.validation).map(
    ([key, v]) =>
      html`<tr><td><details><summary>${key.split('\n')[0]}</summary><pre>${key}</pre></details></td><td class="num">${v.regressionFailures ?? '–'}</td><td>${
        v.reproductionPassed === undefined ? '–' : v.reproductionPassed ? 'passed' : 'failed'
      }</td></tr>`,
  )}</tbody></table>`);
}

interface HarnessReport {
  resolved?: boolean;
  patch_successfully_applied?: boolean;
  tests_status?: Record<string, { success: string[]; failure: string[] }>;
}

/** The lines around the first place a failing test is named in the log (or the log's end). */
export function failureExcerpt(log: string, failing: readonly string[], around = 30): { from: number; text: string } {
  const lines = log.split('\n');
  let at = -1;
  for (const test of failing) {
    at = lines.findIndex((l) => l.includes(test) && /fail|error|✗|✖|not ok/i.test(l));
    if (at < 0) at = lines.findIndex((l) => l.includes(test));
    if (at >= 0) break;
  }
  if (at < 0) at = Math.max(0, lines.length - around);
  const from = Math.max(0, at - around);
  return { from: from + 1, text: lines.slice(from, at + around).join('\n') };
}

export function evaluationSection(id: string, files: { report?: string; testOutput?: string; error?: string }): Html {
  let report: HarnessReport | undefined;
  try {
    report = files.report ? (JSON.parse(files.report) as Record<string, HarnessReport>)[id] : undefined;
  } catch {
    return sync(html`<p class="warn">report.json is not JSON</p>${longText(files.report ?? '', 20)}`);
  }
  const status = report?.tests_status ?? {};
  const failing = Object.values(status).flatMap((s) => s.failure);
  const excerpt = files.testOutput ? failureExcerpt(files.testOutput, failing) : undefined;
  const table = (name: string) => {
    const s = status[name];
    if (!s || s.success.length + s.failure.length === 0) return '';
    return html`<details${s.failure.length ? ' open' : ''}><summary>${name}: ${s.success.length} passing, ${s.failure.length} failing</summary><ul>${s.failure.map(
      (t) => html`<li class="fail">${t}</li>`,
    )}${s.success.map((t) => html`<li class="pass">${t}</li>`)}</ul></details>`;
  };
  return sync(html`${files.error ? html`<p class="warn">evaluation error</p>${json(safeJson(files.error))}` : ''}
${report ? html`<p>${report.resolved ? 'resolved' : 'not resolved'} · patch ${report.patch_successfully_applied ? 'applied' : 'did not apply'}</p>` : ''}
${['FAIL_TO_PASS', 'PASS_TO_PASS', 'FAIL_TO_FAIL', 'PASS_TO_FAIL'].map(table)}
${
  excerpt
    ? html`<div class="role">test log from line ${excerpt.from}${failing.length ? ' (around the first failing test)' : ''}</div><pre class="log">${excerpt.text}</pre>
<details><summary>the whole test log</summary><pre class="log">${files.testOutput}</pre></details>`
    : ''
}`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
