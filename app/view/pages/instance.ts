/**
 * One instance of one run: the issue and the gold patch, the same instance in the other runs side by side,
 * then every stage's artifact rendered for a person, or why the stage has none (left out, failed, not reached),
 * and the failure category with why it was assigned.
 */
import { html } from 'hono/html';
import type { FileLocalization } from '../../../src/artifacts/localization.ts';
import type { StageArtifact } from '../../../src/run/stage-runner.ts';
import { STAGE } from '../../../src/run/stage.ts';
import { stageState } from '../../../results/run-folder.ts';
import { whyOf, type InstanceDetail } from '../catalogue.ts';
import { category, diff, dollars, json, longText, page, seconds, sync, type Html, type Links } from '../html.ts';
import { conversation, fileLocalization, functionLocalization, lineLocalization, trajectoryOf } from './localization.ts';
import { evaluationSection, repairSection, validationSection } from './repair.ts';

/**
 * One stage's section. An artifact of a shape the page does not expect (an older locfix's, a hand edit, a cut
 * trace) is shown as its JSON with the reason, so one odd file never takes the instance's page down.
 */
function stageSection(d: InstanceDetail, stage: string, title: string, artifact: StageArtifact<unknown> | undefined, body: () => Html): Html {
  const head = html`<h2 id="${stage}">${title} <span class="muted">${artifact ? `${seconds(artifact.durationMs)}, attempt ${artifact.attempt}` : ''}</span></h2>`;
  try {
    return stageContent(d, stage, artifact, head, body);
  } catch (err) {
    return sync(
      html`<section class="stage">${head}<p class="warn">this artifact could not be shown as usual (${(err as Error).message}); as recorded:</p>${json(
        artifact?.output ?? artifact,
        40,
      )}</section>`,
    );
  }
}

function stageContent(d: InstanceDetail, stage: string, artifact: StageArtifact<unknown> | undefined, head: Html | Promise<Html>, body: () => Html): Html {
  const state = stageState(d.run.folder, stage, artifact);
  if (state.state === 'not-reached') return sync(html`<section class="stage">${head}<p class="muted">not reached: ${state.reason}</p></section>`);
  if (state.state === 'failed') {
    const details = artifact?.error?.details;
    const trajectory = trajectoryOf(details);
    const trace = Array.isArray(details?.trace) ? (details.trace as FileLocalization['trace']) : [];
    return sync(html`<section class="stage failed">${head}<p class="warn">failed${state.kind ? ` (${state.kind})` : ''}: ${state.message}</p>
${trajectory || trace.length ? html`<details open><summary>what the agent did before it stopped</summary>${conversation(trace, trajectory)}</details>` : ''}
${details ? html`<details><summary>error details</summary>${json({ ...details, trajectory: undefined, trace: undefined }, 30)}</details>` : ''}</section>`);
  }
  return sync(html`<section class="stage">${head}${body()}</section>`);
}

function sideBySide(d: InstanceDetail, links: Links, gold: readonly string[]): Html {
  if (d.side.length < 2) return sync(html``);
  const goldSet = new Set(gold);
  return sync(
    html`<section><h2>This instance in every run</h2><table><thead><tr><th>run</th><th>arm</th><th>ranked first</th><th>category</th><th>why</th></tr></thead><tbody>${d.side.map(
      (r) =>
        html`<tr${r.run === d.run.key ? html` class="current"` : ''}><td><a href="${links.instance(r.run, d.instance.id)}">${r.run}</a></td><td>${r.arm}</td><td>${
          r.ranked ? r.ranked.map((f) => html`${goldSet.has(f) ? html`<b>${f}</b>` : f}<br>`) : html`<span class="muted">no ranking</span>`
        }</td><td>${category(r.category)}</td><td class="why">${r.why ?? ''}</td></tr>`,
    )}</tbody></table><p class="muted">gold files in bold</p></section>`,
  );
}

const STAGE_TITLES: ReadonlyArray<readonly [string, string]> = [
  [STAGE.files, 'File localization'],
  [STAGE.functions, 'Function level'],
  [STAGE.lines, 'Line level'],
  [STAGE.repair, 'Repair'],
  [STAGE.validate, 'Validation'],
  [STAGE.select, 'Selected patch'],
  [STAGE.evaluate, 'Evaluation'],
];

export function instancePage(d: InstanceDetail, links: Links): string {
  const a = d.artifacts;
  const analysis = d.analysis;
  const row = d.instance.row;
  const gold = d.run.analysis.outcome.goldFiles[d.instance.id] ?? d.instance.goldFiles;
  const files = a.files?.status === 'ok' ? (a.files.output as FileLocalization) : undefined;
  const why = analysis && whyOf(analysis);
  const levels = analysis
    ? `file level ${analysis.fileCorrect ? 'right' : 'wrong'}, function level ${analysis.functionCorrect ? 'right' : 'wrong'}${
        analysis.line ? `, line level ${analysis.line.correct ? 'right' : 'wrong'}` : ''
      }`
    : '';
  const body = html`<h1>${d.instance.id}</h1>
<p>${d.instance.repo} · run <a href="${links.instances({ run: d.run.key })}">${d.run.key}</a> (${d.run.arm})${analysis?.cascadeTier ? ` · answered by tier ${analysis.cascadeTier}` : ''}${
    analysis?.spent ? ` · model cost ${dollars(analysis.spent.cost)}` : ''
  }</p>
<p class="verdict">${analysis ? category(analysis.category) : 'no analysis'} ${why ? html`<span>${why}</span>` : ''} <span class="muted">${levels}</span></p>
<p class="toc">${STAGE_TITLES.map(([stage, title]) => html`<a href="#${stage === STAGE.files ? (d.run.folder.fileStage ?? stage) : stage}">${title}</a> `)}</p>
${sideBySide(d, links, gold)}
<section><h2>Issue</h2>${row ? longText(row.problem_statement, 40) : html`<p class="muted">the folder has no dataset row for this instance</p>`}</section>
<section><h2>Gold patch</h2>${row ? diff(row.patch) : html`<p>gold files: ${gold.join(', ')}</p>`}</section>
${stageSection(d, d.run.folder.fileStage ?? STAGE.files, 'File localization', a.files, () => fileLocalization(files!, gold, d.run.folder.topFiles))}
${stageSection(d, STAGE.functions, 'Function level', a.functions, () => functionLocalization(a.functions!.output!, analysis, analysis?.goldElements ?? []))}
${stageSection(d, STAGE.lines, 'Line level', a.lines, () => lineLocalization(a.lines!.output!, analysis))}
${stageSection(d, STAGE.repair, 'Repair', a.repair, () => repairSection(a.repair!.output!, a.select?.status === 'ok' ? a.select.output : undefined))}
${stageSection(d, STAGE.validate, 'Validation', a.validate, () => validationSection(a.validate!.output!))}
${stageSection(d, STAGE.select, 'Selected patch', a.select, () => sync(html`<p>filter: ${a.select!.output!.filter}${a.select!.output!.sampleId ? ` · sample ${a.select!.output!.sampleId}` : ''}</p>${diff(a.select!.output!.patch)}`))}
${stageSection(d, STAGE.evaluate, 'Evaluation', a.evaluate, () => evaluationSection(d.instance.id, d.evaluation))}`;
  return page(links, d.instance.id, sync(body));
}
