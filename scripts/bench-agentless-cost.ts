/**
 * Prompt sizes of locfix's Agentless pipeline against Agentless 1.5's own prompts, on real SWE-bench Lite
 * instances, counted by one counter (src/llm/tokens.ts, o200k — the GPT-4o vocabulary Agentless counts with).
 *
 *   npm run bench:agentless-cost -- [--dataset FILE] [--mirrors DIR] [--instances N] [--out FILE]
 *
 * locfix side: the real code paths with a scripted model (test/support/scripted-model-server.ts) — the
 * file-level prompt from AgentlessLocalizer (model list only, retrieval off), the irrelevant-folder prompt
 * from the same builder it uses, then localizeRelatedElements and localizeEditLocations over the answers.
 * The scripted model answers with the gold files, the gold patch's functions/classes and its first changed
 * line, so both sides see the same files and related elements.
 *
 * Agentless side: its prompt construction reproduced here from its templates
 * (scripts/agentless-templates/fl-prompts.json, verbatim from agentless/fl/FL.py): the repository structure
 * as create_structure builds it (root files under the repository's top folder), filter_none_python,
 * filter_out_test_files, show_project_structure; the compressed skeletons (get_skeleton with
 * compress_assign — locfix's compressedSkeleton is a port of it); transfer_arb_locs_to_locs with ast line
 * numbers (definition keyword line, decorators excluded), merge_intervals and line_wrap_content for the
 * edit-location context. Only the message text is counted, as Agentless' num_tokens_from_messages does.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SweInstanceSchema, type SweInstance } from '../src/dataset/schema.ts';
import { Services } from '../app/services.ts';
import { countTokens } from '../src/llm/tokens.ts';
import { compressedSkeleton } from '../src/parsing/compressed-skeleton.ts';
import { extractFileSymbols } from '../src/parsing/definitions.ts';
import type { Definition } from '../src/parsing/types.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { goldElements } from '../results/failure-analysis.ts';
import { AgentlessLocalizer, irrelevantPrompt } from '../localizer/agentless/index.ts';
import { agentlessTree } from '../localizer/agentless/tree.ts';
import { localizeRelatedElements } from '../localizer/hierarchy/related-elements.ts';
import { localizeEditLocations } from '../localizer/hierarchy/edit-locations.ts';
import type { TraceEvent } from '../src/artifacts/localization.ts';
import { ScriptedModelServer, type ScriptedChatRequest } from '../test/support/scripted-model-server.ts';
import { scriptedChatModel } from '../test/support/scenario-helpers.ts';
import { benchInput } from './bench-inputs.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    mirrors: { type: 'string' },
    instances: { type: 'string', default: '60' },
    out: { type: 'string' },
  },
});

type Templates = Record<
  | 'obtain_relevant_files_prompt'
  | 'obtain_irrelevant_files_prompt'
  | 'file_content_in_block_template'
  | 'obtain_relevant_functions_and_vars_from_compressed_files_prompt_more'
  | 'obtain_relevant_code_combine_top_n_prompt',
  string
>;
const templates = JSON.parse(await readFile(new URL('./agentless-templates/fl-prompts.json', import.meta.url), 'utf8')) as Templates;

/** Python's str.format for plain `{name}` fields (the only ones these templates use) */
const format = (template: string, vars: Record<string, string>): string => template.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? vars[k] : m));

// get_repo_structure.py: repo_to_top_folder
const TOP_FOLDER: Record<string, string> = {
  'django/django': 'django',
  'sphinx-doc/sphinx': 'sphinx',
  'scikit-learn/scikit-learn': 'scikit-learn',
  'sympy/sympy': 'sympy',
  'pytest-dev/pytest': 'pytest',
  'matplotlib/matplotlib': 'matplotlib',
  'astropy/astropy': 'astropy',
  'pydata/xarray': 'xarray',
  'mwaskom/seaborn': 'seaborn',
  'psf/requests': 'requests',
  'pylint-dev/pylint': 'pylint',
  'pallets/flask': 'flask',
};

// ---------------------------------------------------------------------------------------------------
// Agentless' prompt construction

/** "\n".join(splitlines()): what get_repo_files hands to the prompts */
const agentlessText = (content: string): string =>
  content
    .split(/\r?\n/)
    .slice(0, content.endsWith('\n') ? -1 : undefined)
    .join('\n');

/** ast lineno: the `def`/`class` line, decorators excluded */
function astStart(lines: string[], d: Definition): number {
  for (let l = d.startLine; l <= d.endLine; l++) if (/^\s*(async\s+def|def|class)\s/.test(lines[l - 1] ?? '')) return l;
  return d.startLine;
}

/** transfer_arb_locs_to_locs (loc_interval=True), on locfix's definitions with Agentless' line numbers */
function agentlessLineLocs(content: string, path: string, locText: string): Array<[number, number]> {
  const lines = content.split('\n');
  const { definitions, assignments } = extractFileSymbols(path, content);
  const range = (d: Definition): [number, number] => [astStart(lines, d), d.endLine];
  const classes = definitions.filter((d) => d.kind === 'class');
  const methodsOf = (c: Definition) => definitions.filter((d) => d.kind === 'method' && d.qualifiedName === `${c.qualifiedName}.${d.name}`);
  const functions = definitions.filter((d) => d.kind === 'function');
  const out: Array<[number, number]> = [];
  let currentClass = '';
  for (const loc of locText.split('\n')) {
    if (loc.startsWith('class: ') && !loc.includes('.')) {
      const name = loc.slice(7).trim();
      const c = classes.find((x) => x.name === name);
      if (c) {
        out.push(range(c));
        currentClass = name;
      }
    } else if (loc.startsWith('function: ') || loc.includes('.')) {
      const name = loc.split(':').slice(1).join(':').trim();
      if (name.includes('.')) {
        const [cls, method] = name.split('.');
        const c = classes.find((x) => x.name === cls);
        const m = c && methodsOf(c).find((x) => x.name === method);
        if (m) out.push(range(m));
      } else {
        const f = functions.find((x) => x.name === name);
        if (f) out.push(range(f));
        else if (currentClass) {
          const c = classes.find((x) => x.name === currentClass);
          const m = c && methodsOf(c).find((x) => x.name === name);
          if (m) out.push(range(m));
        } else {
          const ms = classes.flatMap((c) => methodsOf(c).filter((x) => x.name === name));
          if (ms.length === 1) out.push(range(ms[0]));
        }
      }
    } else if (loc.startsWith('line: ')) {
      const n = Number.parseInt(loc.slice(6).trim().split(/\s+/)[0], 10);
      if (Number.isFinite(n)) out.push([n, n]);
    } else if (loc.startsWith('variable:')) {
      for (const v of loc.slice(9).trim().split(/\s+/)) {
        const a = assignments.find((x) => x.name === v);
        if (a) out.push([a.startLine, a.endLine]);
      }
    }
  }
  return out;
}

function mergeIntervals(intervals: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const cur of sorted) {
    const last = merged[merged.length - 1];
    if (last && cur[0] <= last[1]) last[1] = Math.max(last[1], cur[1]);
    else merged.push([cur[0], cur[1]]);
  }
  return merged;
}

/** line_wrap_content(content, intervals) without add_space / sticky_scroll */
function lineWrapContent(content: string, intervals: Array<[number, number]>): string {
  const lines = content.split('\n');
  const out: string[] = [];
  let maxLine = lines.length;
  for (const [min, max] of intervals) {
    maxLine = max;
    if (min !== 0) out.push('...');
    for (let i = Math.max(min - 1, 0); i < lines.length; i++) {
      out.push(`${i + 1}|${lines[i]}`);
      if (max !== -1 && i >= max - 1) break;
    }
  }
  if (maxLine !== lines.length) out.push('...');
  return out.join('\n');
}

function agentlessPrompts(instance: SweInstance, paths: string[], files: Map<string, string>, related: Record<string, string[]>): Record<Stage, number> {
  const problem = instance.problem_statement;
  const tree = agentlessTree(paths, { rootFolder: TOP_FOLDER[instance.repo] });
  const filesMsg = format(templates.obtain_relevant_files_prompt, { problem_statement: problem, structure: tree.text }).trim();
  const irrelevantMsg = format(templates.obtain_irrelevant_files_prompt, { problem_statement: problem, structure: tree.text }).trim();
  const contents = [...files].map(([fn, code]) =>
    format(templates.file_content_in_block_template, {
      file_name: fn,
      file_content: compressedSkeleton(agentlessText(code), undefined, { compressAssign: true }),
    }),
  );
  const relatedMsg = format(templates.obtain_relevant_functions_and_vars_from_compressed_files_prompt_more, {
    problem_statement: problem,
    file_contents: contents.join(''),
  });
  let topn = '';
  for (const [fn, locs] of Object.entries(related)) {
    const content = agentlessText(files.get(fn)!);
    const lineLocs = agentlessLineLocs(content, fn, locs.join('\n'));
    if (lineLocs.length === 0) continue;
    const n = content.split('\n').length;
    const intervals = mergeIntervals(lineLocs.map(([s, e]) => [Math.min(Math.max(s - 10, 0), n), Math.max(Math.min(e + 10, n), 0)]));
    topn += `### ${fn}\n${lineWrapContent(content, intervals)}\n\n\n`;
  }
  const linesMsg = topn ? format(templates.obtain_relevant_code_combine_top_n_prompt, { problem_statement: problem, file_contents: topn }) : '';
  return {
    files: countTokens(filesMsg),
    irrelevant: countTokens(irrelevantMsg),
    related: countTokens(relatedMsg),
    lines: linesMsg ? countTokens(linesMsg) : 0,
  };
}

// ---------------------------------------------------------------------------------------------------
// locfix side

type Stage = 'files' | 'irrelevant' | 'related' | 'lines';
const STAGES: Stage[] = ['files', 'irrelevant', 'related', 'lines'];

const userPrompts = (trace: readonly TraceEvent[], prefix: string): string[] =>
  trace.flatMap((e) => (e.type === 'llm' && e.step.startsWith(prefix) ? [e.trace.request.messages.find((m) => m.role === 'user')!.content] : []));

function stageOf(r: ScriptedChatRequest): Stage | undefined {
  const u = r.lastUser;
  if (u.includes('name the folders')) return 'irrelevant';
  if (u.includes('name the files')) return 'files';
  if (u.includes('skeletons of the relevant files')) return 'related';
  if (u.includes('places that have to be edited')) return 'lines';
  return undefined;
}

function locLinesOf(elements: ReturnType<typeof goldElements>, defs: Map<string, Definition[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of elements) {
    if (e.name === '<module>') continue;
    const d = defs.get(e.path)?.find((x) => x.qualifiedName === e.name);
    if (!d) continue;
    (out[e.path] ??= []).push(d.kind === 'class' ? `class: ${e.name}` : `function: ${e.name}`);
  }
  return out;
}

async function main(): Promise<void> {
  const rows = (await readFile(benchInput(values, 'dataset'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => SweInstanceSchema.parse(JSON.parse(l)));
  // a spread over the whole dataset (every k-th instance), so every repository takes part
  const want = Number(values.instances);
  const step = Math.max(1, Math.floor(rows.length / want));
  const chosen = rows.filter((_, i) => i % step === 0).slice(0, want);
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'bench-agentless-'));
  const server = new ScriptedModelServer({});
  await server.start();
  const services = new Services({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), embedder: 'lexical' });
  const llm = scriptedChatModel(server);
  const perInstance: Array<{ id: string; repo: string; locfix: Record<Stage, number>; agentless: Record<Stage, number>; lineStage: boolean }> = [];
  try {
    for (const instance of chosen) {
      const snapshot = await services.snapshot(instance.repo, instance.base_commit);
      const paths = (await snapshot.listFiles()).map((e) => e.path);
      const tree = agentlessTree(paths);
      const gold = goldPaths(instance.patch)
        .filter((p) => tree.files.includes(p))
        .slice(0, 3);
      if (gold.length === 0) continue;
      const contents = await snapshot.readFiles(gold);
      const defs = new Map(gold.map((p) => [p, extractFileSymbols(p, contents.get(p)!).definitions]));
      const related = locLinesOf(
        goldElements(instance.patch, (p) => defs.get(p) ?? []),
        defs,
      );
      const firstChanged = /@@ -(\d+)/.exec(instance.patch)?.[1] ?? '1';
      server.setScenario({
        policy: (r) => {
          const stage = stageOf(r);
          if (stage === 'files') return '```\n' + gold.join('\n') + '\n```';
          if (stage === 'related')
            return (
              '```\n' +
              Object.entries(related)
                .map(([p, l]) => `${p}\n${l.join('\n')}`)
                .join('\n\n') +
              '\n```'
            );
          if (stage === 'lines') return '```\n' + `${gold[0]}\nline: ${firstChanged}` + '\n```';
          return undefined;
        },
      });
      const ctx = { instance, snapshot, index: () => Promise.reject(new Error('no index in this benchmark')), llm };
      const fileLoc = await new AgentlessLocalizer({ retrieval: false }).localize(ctx);
      const files = fileLoc.files.map((f) => f.path);
      const rel = await localizeRelatedElements({ instance, snapshot, files }, { llm });
      const lines = await localizeEditLocations({ instance, snapshot, files, related: rel.locations }, { llm });
      const ours: Record<Stage, number> = {
        files: countTokens(userPrompts(fileLoc.trace, 'files')[0]),
        irrelevant: countTokens(irrelevantPrompt(instance.problem_statement, tree.text)),
        related: countTokens(userPrompts(rel.trace, 'related.attempt1')[0] ?? ''),
        lines: countTokens(userPrompts(lines.trace, 'lines.attempt1')[0] ?? ''),
      };
      // Agentless gets exactly the files and related locations locfix used
      const relatedShown = Object.fromEntries(Object.entries(rel.locations).filter(([, l]) => l.length > 0));
      const theirs = agentlessPrompts(instance, paths, new Map(rel.files.map((p) => [p, contents.get(p)!])), relatedShown);
      perInstance.push({ id: instance.instance_id, repo: instance.repo, locfix: ours, agentless: theirs, lineStage: ours.lines > 0 && theirs.lines > 0 });
      process.stderr.write(`${instance.instance_id}: ${STAGES.map((s) => `${s} ${ours[s]}/${theirs[s]}`).join('  ')}\n`);
    }
  } finally {
    await services.close();
    await server.stop();
    await rm(cacheDir, { recursive: true, force: true });
  }

  const summary: Record<string, unknown> = { instances: perInstance.length, repos: new Set(perInstance.map((p) => p.repo)).size };
  const table: string[] = ['| stage | n | locfix mean | Agentless mean | total ratio | per-instance ratio min / median / max |', '|---|---|---|---|---|---|'];
  for (const s of STAGES) {
    const rows = perInstance.filter((p) => (s === 'lines' ? p.lineStage : p.locfix[s] > 0 && p.agentless[s] > 0));
    const ours = rows.reduce((a, p) => a + p.locfix[s], 0);
    const theirs = rows.reduce((a, p) => a + p.agentless[s], 0);
    const ratios = rows.map((p) => p.locfix[s] / p.agentless[s]).sort((a, b) => a - b);
    const med = ratios[Math.floor(ratios.length / 2)] ?? NaN;
    summary[s] = {
      n: rows.length,
      locfixMean: ours / rows.length,
      agentlessMean: theirs / rows.length,
      ratio: ours / theirs,
      min: ratios[0],
      median: med,
      max: ratios[ratios.length - 1],
    };
    table.push(
      `| ${s} | ${rows.length} | ${(ours / rows.length).toFixed(0)} | ${(theirs / rows.length).toFixed(0)} | ${(ours / theirs).toFixed(3)} | ${ratios[0]?.toFixed(3)} / ${med.toFixed(3)} / ${ratios[ratios.length - 1]?.toFixed(3)} |`,
    );
  }
  process.stdout.write(table.join('\n') + '\n');
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  if (values.out) await writeFile(values.out, JSON.stringify({ summary, perInstance }, null, 2));
}

await main();
