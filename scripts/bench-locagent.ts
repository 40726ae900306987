/**
 * LocAgent localizer on real SWE-bench Lite instances with a scripted agent (no real LLM):
 *
 *   npm run bench:locagent -- [--dataset FILE] [--mirrors DIR] [--every 6] [--limit N] [--pattern P]
 *                             [--cache-dir DIR] [--out FILE]
 *
 * The agent (test/locagent/scripted-agent.ts) searches the issue's identifiers, follows the first entity
 * one step along the graph, reads two entities and answers with the files it saw. Its prompts and tool
 * results are what a model would get on these repositories, so the numbers are: the graph per commit (cold
 * and incremental through Services.graph), each tool's latency, the size of its results, and prompt tokens
 * per step and per instance (completion tokens are the script's short replies; a model adds its reasoning).
 * The script's Hit@k is a sanity line only: it is a fixed policy, not a model.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LocagentLocalizer } from '../localizer/locagent/index.ts';
import { LocagentOptionsSchema } from '../localizer/locagent/options.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { loadDataset } from '../src/dataset/load.ts';
import { selectInstances } from '../src/dataset/select.ts';
import { createChatModel } from '../src/llm/factory.ts';
import { countTokens } from '../src/llm/tokens.ts';
import { groupByRepo } from '../src/run/repo-release.ts';
import { Services } from '../app/services.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { computeLocMetrics, formatLocMetricsTable, metricsSummary } from '../results/loc-metrics.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { searchingAgent } from '../test/locagent/scripted-agent.ts';
import { benchInput } from './bench-inputs.ts';

interface Row {
  id: string;
  ok: boolean;
  error?: string;
  graphMs: number;
  graphParsed: number;
  steps: number;
  promptTokens: number;
  completionTokens: number;
  maxPromptTokens: number;
  tools: Array<{ tool: string; ms: number; tokens: number }>;
  ranking: string[];
  gold: string[];
  totalMs: number;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string' },
      mirrors: { type: 'string' },
      every: { type: 'string', default: '6' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      'cache-dir': { type: 'string' },
      out: { type: 'string', default: 'bench-results/locagent.json' },
    },
  });
  const dataset = await loadDataset(benchInput(values, 'dataset'));
  const { instances: all } = selectInstances(dataset.instances, { pattern: values.pattern, limit: values.limit ? Number(values.limit) : undefined });
  const every = Number(values.every);
  const selected = groupByRepo(all.filter((_, i) => i % every === 0));
  const cacheDir = values['cache-dir'] ?? (await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-locagent-')));
  const server = new ScriptedModelServer({ policy: searchingAgent });
  await server.start();
  const services = new Services({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), allowClone: false });
  // no response cache: every step is a real round trip
  const llm = createChatModel(`openai:scripted@${server.openaiURL}`);
  const localizer = new LocagentLocalizer(LocagentOptionsSchema.parse({ samples: 1, temperature: 0 }));
  const rows: Row[] = [];
  const t0 = performance.now();
  let lastRepo: string | undefined;
  try {
    for (const [n, inst] of selected.entries()) {
      if (lastRepo && lastRepo !== inst.repo) services.releaseRepo(lastRepo);
      lastRepo = inst.repo;
      const gold = goldPaths(inst.patch);
      const ti = performance.now();
      try {
        const snapshot = await services.snapshot(inst.repo, inst.base_commit);
        const loc = await localizer.localize({
          instance: inst,
          snapshot,
          index: () => Promise.reject(new Error('not used')),
          graph: () => services.graph(snapshot),
          llm,
        });
        const llmEvents = loc.trace.flatMap((e) => (e.type === 'llm' && e.trace.response ? [e.trace.response.usage] : []));
        const graphTimings = (loc.details!.graph as { timings: { totalMs: number; filesParsed: number } }).timings;
        rows.push({
          id: inst.instance_id,
          ok: true,
          graphMs: graphTimings.totalMs,
          graphParsed: graphTimings.filesParsed,
          steps: llmEvents.length,
          promptTokens: loc.usage.promptTokens,
          completionTokens: loc.usage.completionTokens,
          maxPromptTokens: max(llmEvents.map((u) => u.promptTokens)),
          tools: loc.trace.flatMap((e) => (e.type === 'tool' ? [{ tool: e.tool, ms: e.durationMs, tokens: countTokens(e.output) }] : [])),
          ranking: loc.files.map((f) => f.path),
          gold,
          totalMs: performance.now() - ti,
        });
        const r = rows[rows.length - 1]!;
        process.stderr.write(
          `[${n + 1}/${selected.length}] ${inst.instance_id} graph ${(r.graphMs / 1000).toFixed(1)}s (${r.graphParsed} parsed) steps ${r.steps} prompt ${r.promptTokens} tok, tools ${r.tools.map((t) => `${t.tool.split('_')[0]} ${t.ms.toFixed(0)}ms/${t.tokens}tok`).join(', ')} gold@${r.ranking.findIndex((p) => gold.includes(p)) + 1 || '-'}\n`,
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        rows.push({
          id: inst.instance_id,
          ok: false,
          error: message,
          graphMs: 0,
          graphParsed: 0,
          steps: 0,
          promptTokens: 0,
          completionTokens: 0,
          maxPromptTokens: 0,
          tools: [],
          ranking: [],
          gold,
          totalMs: performance.now() - ti,
        });
        process.stderr.write(`[${n + 1}/${selected.length}] ${inst.instance_id} FAILED: ${message}\n`);
      }
    }
  } finally {
    await services.close();
    await server.stop();
    if (!values['cache-dir']) await rm(cacheDir, { recursive: true, force: true });
  }
  const ok = rows.filter((r) => r.ok);
  const byTool = new Map<string, Array<{ ms: number; tokens: number }>>();
  for (const r of ok) for (const t of r.tools) byTool.set(t.tool, [...(byTool.get(t.tool) ?? []), t]);
  const metrics = metricsSummary(computeLocMetrics(rows.map((r) => ({ instanceId: r.id, gold: r.gold, ...(r.ok ? { ranking: r.ranking } : {}) }))));
  const summary = {
    instances: rows.length,
    failed: rows.filter((r) => !r.ok).map((r) => ({ id: r.id, error: r.error })),
    graphSeconds: { median: +(median(ok.map((r) => r.graphMs)) / 1000).toFixed(2), max: +(max(ok.map((r) => r.graphMs)) / 1000).toFixed(2) },
    steps: { median: median(ok.map((r) => r.steps)), max: max(ok.map((r) => r.steps)) },
    promptTokensPerInstance: { median: median(ok.map((r) => r.promptTokens)), max: max(ok.map((r) => r.promptTokens)) },
    largestPromptTokens: { median: median(ok.map((r) => r.maxPromptTokens)), max: max(ok.map((r) => r.maxPromptTokens)) },
    tools: Object.fromEntries(
      [...byTool].map(([tool, list]) => [
        tool,
        {
          calls: list.length,
          msMedian: +median(list.map((t) => t.ms)).toFixed(1),
          msMax: +max(list.map((t) => t.ms)).toFixed(1),
          tokensMedian: median(list.map((t) => t.tokens)),
          tokensMax: max(list.map((t) => t.tokens)),
        },
      ]),
    ),
    secondsPerInstance: { median: +(median(ok.map((r) => r.totalMs)) / 1000).toFixed(2), max: +(max(ok.map((r) => r.totalMs)) / 1000).toFixed(2) },
    wallSeconds: +((performance.now() - t0) / 1000).toFixed(1),
    scriptedPolicyMetrics: metrics,
  };
  console.log(JSON.stringify({ ...summary, scriptedPolicyMetrics: undefined }, null, 2));
  console.log('\nthe scripted policy (sanity only, not a model):');
  console.log(formatLocMetricsTable([{ label: 'scripted LocAgent policy', metrics }]));
  await writeJsonAtomic(path.resolve(values.out!), { command: `npm run bench:locagent -- ${process.argv.slice(2).join(' ')}`.trim(), ...summary, rows });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
