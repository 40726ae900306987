/**
 * The runs page (each run: its kind, arm, configuration, outcomes by category with "not judged" apart, and
 * cost) and the instance table over all runs (filtered, sorted and paged on the server).
 */
import { headline } from '../../../results/instance-account.ts';
import { html } from 'hono/html';
import { NOT_JUDGED } from '../../../results/failure-analysis.ts';
import type { Catalogue, InstancePage, InstanceQuery, SortKey } from '../catalogue.ts';
import { category, dollars, json, page, sync, type Html, type Links } from '../html.ts';

/** The runs page lists so many of a run's analysis warnings; a full-size run can have one per instance. */
const SHOWN_WARNINGS = 20;

/** A configuration without its list of instance ids (thousands in a full run): their number stands for them. */
function withoutInstanceList(config: unknown): unknown {
  if (!config || typeof config !== 'object' || !Array.isArray((config as { instances?: unknown }).instances)) return config;
  const { instances, ...rest } = config as { instances: unknown[] };
  return { ...rest, instances: `${instances.length} instance ids` };
}

export function runsPage(catalogue: Catalogue, links: Links): string {
  const runs = catalogue.runs.map((run) => {
    const { judged, notJudged } = catalogue.counts(run);
    const report = run.analysis.report;
    const cost = report.costs.reduce((sum, c) => sum + c.cost, 0);
    const settings = withoutInstanceList(run.folder.manifest?.config ?? run.folder.arm.settings ?? {});
    const warnings = run.analysis.warnings;
    return html`<section class="run">
<h2><a href="${links.instances({ run: run.key })}">${run.key}</a> <span class="muted">${run.folder.kind} run</span></h2>
<p>${run.arm}${report.upperBound ? ' (upper bound: the localizer reads the answer)' : ''} · ${report.instances} instances ·
${headline(report.failures)}${(report.failures.unfinished ?? []).length ? ' · incomplete' : ''} · model cost ${dollars(cost)}</p>
<p>${judged.map(([c, n]) => html`<a href="${links.instances({ run: run.key, category: c })}">${category(c)} ${n}</a> `)}</p>
${
  notJudged.length
    ? html`<p>not judged (work not done: not resolved in the headline until rerun): ${notJudged.map(
        ([c, n]) => html`<a href="${links.instances({ run: run.key, category: c })}">${category(c)} ${n}</a> `,
      )}</p>`
    : ''
}
${
  Object.keys(run.folder.leftOut).length
    ? html`<p class="muted">left out: ${Object.entries(run.folder.leftOut)
        .map(([s, why]) => `${s} (${why})`)
        .join('; ')}</p>`
    : ''
}
<details><summary>configuration</summary>${json(settings, 60)}</details>
${
  warnings.length
    ? html`<details><summary>${warnings.length} warnings</summary>${json(warnings.slice(0, SHOWN_WARNINGS))}${
        warnings.length > SHOWN_WARNINGS ? html`<p class="muted">and ${warnings.length - SHOWN_WARNINGS} more (analysis.json has them all)</p>` : ''
      }</details>`
    : ''
}
</section>`;
  });
  return page(links, 'runs', sync(html`<h1>Runs</h1>${runs}`));
}

function select(name: string, label: string, values: readonly string[], current: string | undefined): Html {
  return sync(
    html`<label>${label} <select name="${name}"><option value="">any</option>${values.map(
      (v) => html`<option value="${v}"${v === current ? ' selected' : ''}>${v}</option>`,
    )}</select></label> `,
  );
}

function filterForm(catalogue: Catalogue, links: Links, q: InstanceQuery): Html {
  const c = catalogue.choices();
  if (!links.live) {
    // a static export cannot query: it links the lists it wrote, one per value of each filter
    const list = (label: string, key: keyof InstanceQuery, values: readonly string[]) =>
      values.length ? html`<p>${label}: ${values.map((v) => html`<a href="${links.instances({ [key]: v })}">${v}</a> `)}</p>` : '';
    return sync(
      html`<div class="filters">${list('run', 'run', c.runs)}${list('category', 'category', c.categories)}${list('repository', 'repo', c.repos)}${list(
        'arm',
        'arm',
        c.arms,
      )}${list('tier', 'tier', c.tiers)}</div>`,
    );
  }
  return sync(html`<form class="filters" method="get" action="${links.instances()}">
${select('run', 'run', c.runs, q.run)}${select('repo', 'repository', c.repos, q.repo)}${select('category', 'category', c.categories, q.category)}${select(
  'arm',
  'arm',
  c.arms,
  q.arm,
)}${c.tiers.length ? select('tier', 'tier', c.tiers, q.tier) : ''}
<label>id <input name="text" value="${q.text ?? ''}" size="18"></label>
<input type="hidden" name="sort" value="${q.sort ?? 'id'}">${q.descending ? html`<input type="hidden" name="desc" value="1">` : ''}
<button type="submit">filter</button>
</form>`);
}

function header(links: Links, q: InstanceQuery, key: SortKey, label: string): Html {
  if (!links.live) return sync(html`<th>${label}</th>`);
  const descending = q.sort === key ? !q.descending : key === 'cost';
  const mark = q.sort === key || (key === 'id' && !q.sort) ? (q.descending ? ' ▼' : ' ▲') : '';
  return sync(html`<th><a href="${links.instances({ ...q, sort: key, descending, page: 1 })}">${label}${mark}</a></th>`);
}

function pager(links: Links, q: InstanceQuery, p: InstancePage): Html {
  if (p.pages <= 1) return sync(html``);
  const to = (n: number, label: string) => html`<a href="${links.instances({ ...q, page: n })}">${label}</a>`;
  return sync(
    html`<p class="pager">${p.page > 1 ? to(p.page - 1, '« previous') : ''} page ${p.page} of ${p.pages} ${
      p.page < p.pages ? to(p.page + 1, 'next »') : ''
    }</p>`,
  );
}

/** the table's sortable columns, in the order its cells are written */
const COLUMNS: readonly SortKey[] = ['id', 'run', 'arm', 'repo', 'category', 'tier', 'cost'];

export function instancesPage(catalogue: Catalogue, links: Links, q: InstanceQuery): string {
  const p = catalogue.query(q);
  const labels: Record<SortKey, string> = { id: 'instance', run: 'run', arm: 'arm', repo: 'repository', category: 'category', tier: 'tier', cost: 'cost' };
  const rows = p.rows.map(
    (r) => html`<tr>
<td><a href="${links.instance(r.run, r.id)}">${r.id}</a></td><td>${r.run}</td><td>${r.arm}</td><td>${r.repo}</td>
<td>${category(r.category)}${NOT_JUDGED.has(r.category) ? html` <span class="muted">not judged</span>` : ''}</td><td>${r.tier ?? ''}</td>
<td class="num">${dollars(r.cost)}</td><td class="why">${r.why ?? ''}</td></tr>`,
  );
  const filtered = Object.entries(q).filter(([k, v]) => v && ['run', 'repo', 'category', 'arm', 'tier', 'text'].includes(k));
  return page(
    links,
    'instances',
    sync(html`<h1>Instances</h1>
${filterForm(catalogue, links, q)}
<p>${p.total} of ${catalogue.rows.length} instance runs${filtered.length ? ` (${filtered.map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}</p>
${pager(links, q, p)}
<table class="instances"><thead><tr>${COLUMNS.map((k) => header(links, q, k, labels[k]))}<th>why</th></tr></thead>
<tbody>${rows}</tbody></table>
${pager(links, q, p)}`),
  );
}
