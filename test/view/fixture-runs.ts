/**
 * Run folders for the run browser's tests, beside the real demo run: one stage folder per localizer kind whose
 * artifact the instance page renders differently (BLAgent's ReAct calls, LocAgent's tool calls, the explorer's
 * trajectory, the oracle's upper bound, an explorer that failed mid-run), typed as the localizers write them, and
 * one folder of hostile content: markup in the issue, a file path, a model answer and a tool output.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileLocalization, TraceEvent } from '../../src/artifacts/localization.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { ChatMessage, ChatTrace } from '../../src/llm/types.ts';
import { RunLayout, type StageSelection } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';

/** A dataset row of an instance no repository needs to exist for (the browser reads rows, never checkouts). */
export const EXAMPLE_ROW = {
  instance_id: 'acme__widget-1',
  repo: 'acme/widget',
  base_commit: 'a'.repeat(40),
  patch: 'diff --git a/widget/core.py b/widget/core.py\n--- a/widget/core.py\n+++ b/widget/core.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n',
  test_patch: '',
  problem_statement: 'x is wrong',
  FAIL_TO_PASS: [],
  PASS_TO_PASS: [],
  version: '1',
} as unknown as SweInstance;

/** What a hostile artifact tries: each must show as text, none may run. */
export const HOSTILE = {
  issue: '<script>window.__pwned = "issue"</script><img src=x onerror="window.__pwned = \'img\'">',
  path: 'src/"><script>window.__pwned="path"</script>.py',
  answer: '</pre></details><script>window.__pwned = "answer"</script><a href="javascript:window.__pwned=1">click</a>',
  tool: '<iframe src="javascript:parent.__pwned=\'tool\'"></iframe><style>body{display:none}</style>',
};

const usage = { promptTokens: 1200, completionTokens: 80, cost: 0.0042 };

function call(purpose: string, messages: ChatMessage[], answer: string): ChatTrace {
  return {
    modelId: 'openai:scripted',
    purpose,
    startedAt: '2026-12-05T00:00:00.000Z',
    request: { messages, n: 1 },
    response: { model: 'scripted', choices: [{ content: answer, finishReason: 'stop' }] as never, usage, cached: false, latencyMs: 420 },
    latencyMs: 420,
  };
}

function localization(localizer: string, files: string[], trace: TraceEvent[], extra: Partial<FileLocalization> = {}): FileLocalization {
  return {
    localizer,
    files: files.map((p, i) => ({ path: p, score: 10 - i, evidence: { reason: `ranked ${i + 1} by ${localizer}` } })),
    trace,
    usage: { ...usage, calls: trace.filter((e) => e.type === 'llm').length },
    timingsMs: { total: 1500 },
    ...extra,
  };
}

function artifact(id: string, output: FileLocalization | undefined, error?: StageArtifact<unknown>['error']): StageArtifact<FileLocalization> {
  return {
    stage: 'localize-files',
    instanceId: id,
    status: error ? 'error' : 'ok',
    startedAt: '2026-12-05T00:00:00.000Z',
    finishedAt: '2026-12-05T00:00:02.000Z',
    durationMs: 2000,
    attempt: 1,
    ...(output ? { output } : {}),
    ...(error ? { error } : {}),
  };
}

async function writeStageFolder(
  dir: string,
  dataset: string,
  rows: SweInstance[],
  artifacts: StageArtifact<FileLocalization>[],
  localizer: string,
): Promise<string> {
  const layout = new RunLayout(dir);
  await mkdir(layout.stageDir('localize-files'), { recursive: true });
  for (const a of artifacts) await writeFile(layout.artifactPath('localize-files', a.instanceId), JSON.stringify(a));
  const selection: StageSelection = {
    stage: 'localize-files',
    dataset,
    instances: artifacts.map((a) => a.instanceId),
    gold: Object.fromEntries(rows.map((r) => [r.instance_id, [goldFileOf(r)]])),
    createdAt: '2026-12-05T00:00:00.000Z',
    settings: { localizer: { name: localizer, options: {} }, llm: 'openai:scripted', seed: 1 },
  };
  await writeFile(layout.selectionPath('localize-files'), JSON.stringify(selection));
  return dir;
}

const goldFileOf = (row: SweInstance) => /^diff --git a\/(\S+)/m.exec(row.patch)![1]!;

const task = (row: SweInstance): ChatMessage[] => [
  { role: 'system', content: 'You localize bugs.' },
  { role: 'user', content: `Issue:\n${row.problem_statement}` },
];

/** The localizer folders over `rows` (two instances of the demo's dataset, at `dataset`). */
export async function writeLocalizerRuns(root: string, dataset: string, rows: SweInstance[]): Promise<Record<string, string>> {
  const gold = rows.map(goldFileOf);
  const blagent = rows.map((row, i) =>
    artifact(
      row.instance_id,
      localization(
        'blagent',
        [gold[i]!, 'setup.py'],
        [
          { type: 'llm', step: 'react1', trace: call('blagent.react', task(row), `Thought: the issue names ${gold[i]}\nAction: open_file(${gold[i]})`) },
          { type: 'llm', step: 'scores', trace: call('blagent.scores', task(row), `{"${gold[i]}": 9}`) },
        ],
      ),
    ),
  );
  const locagent = rows.map((row, i) =>
    artifact(
      row.instance_id,
      localization(
        'locagent',
        [gold[i]!],
        [
          { type: 'llm', step: 'sample1', trace: call('locagent.step', task(row), 'search_code_snippets(search_terms=["debug"])') },
          {
            type: 'tool',
            step: 'sample1',
            tool: 'search_code_snippets',
            input: { search_terms: ['debug'] },
            output: `Found in ${gold[i]}:\n  def parse(...)`,
            durationMs: 35,
          },
          { type: 'llm', step: 'sample1', trace: call('locagent.step', task(row), `The bug is in ${gold[i]}.`) },
        ],
      ),
    ),
  );
  const trajectory = (row: SweInstance, i: number): ChatMessage[] => [
    ...task(row),
    { role: 'assistant', content: 'THOUGHT: find the names\n```bash\ngrep -rn debug .\n```' },
    { role: 'user', content: `${gold[i]}:12: debug = os.environ.get("APP_DEBUG")` },
    { role: 'assistant', content: `THOUGHT: done\n\`\`\`json\n{"files": ["${gold[i]}"]}\n\`\`\`` },
  ];
  const explorer = rows.map((row, i) => {
    const steps = trajectory(row, i);
    return artifact(
      row.instance_id,
      localization(
        'explorer',
        [gold[i]!],
        [
          { type: 'llm', step: 'step1', trace: call('explorer.step', steps.slice(0, 2), steps[2]!.content) },
          { type: 'tool', step: 'step1', tool: 'bash', input: 'grep -rn debug .', output: steps[3]!.content, durationMs: 12 },
          { type: 'llm', step: 'step2', trace: call('explorer.step', steps.slice(0, 4), steps[4]!.content) },
        ],
        { predicted: [gold[i]!], details: { trajectory: steps }, agent: { stop: 'answer', steps: 2, commands: 1, reads: 1, writes: 0, elapsedMs: 900 } },
      ),
    );
  });
  // an explorer that ran out of steps: no output, its trajectory in the error
  explorer[1] = artifact(rows[1]!.instance_id, undefined, {
    message: 'explorer: the step limit (2) was reached without an answer',
    kind: 'step-limit',
    details: { trajectory: trajectory(rows[1]!, 1).slice(0, 4) },
  });
  const oracle = rows.map((row, i) =>
    artifact(row.instance_id, localization('oracle', [gold[i]!], [{ type: 'note', step: 'oracle', message: 'the gold files' }], { upperBound: true })),
  );
  return {
    blagent: await writeStageFolder(path.join(root, 'blagent-run'), dataset, rows, blagent, 'blagent'),
    locagent: await writeStageFolder(path.join(root, 'locagent-run'), dataset, rows, locagent, 'locagent'),
    explorer: await writeStageFolder(path.join(root, 'explorer-run'), dataset, rows, explorer, 'explorer'),
    oracle: await writeStageFolder(path.join(root, 'oracle-run'), dataset, rows, oracle, 'oracle'),
  };
}

/** A folder whose issue, ranked path, model answer and tool output carry markup that must never run. */
export async function writeHostileRun(root: string, row: SweInstance): Promise<{ dir: string; id: string }> {
  const hostileRow: SweInstance = { ...row, instance_id: 'evil__repo-1', repo: 'evil/repo', problem_statement: HOSTILE.issue };
  const dataset = path.join(root, 'hostile.jsonl');
  await writeFile(dataset, `${JSON.stringify(hostileRow)}\n`);
  const out = localization(
    'locagent',
    [HOSTILE.path, goldFileOf(row)],
    [
      { type: 'llm', step: 'sample1', trace: call('locagent.step', task(hostileRow), HOSTILE.answer) },
      { type: 'tool', step: 'sample1', tool: 'search_code_snippets', input: { q: HOSTILE.path }, output: HOSTILE.tool, durationMs: 5 },
    ],
  );
  const dir = await writeStageFolder(path.join(root, 'hostile-run'), dataset, [hostileRow], [artifact(hostileRow.instance_id, out)], 'locagent');
  return { dir, id: hostileRow.instance_id };
}

/**
 * A minimal stage folder at `root`: a localize-files selection of `ids` and, for each id that can name a file, an
 * ok artifact ranking one file, with `extra` merged into its output.
 */
export async function writeRankingFolder(root: string, ids: string[], extra: (id: string) => Record<string, unknown> = () => ({})): Promise<string> {
  const layout = new RunLayout(root);
  await mkdir(root, { recursive: true });
  await writeFile(
    layout.selectionPath('localize-files'),
    JSON.stringify({ stage: 'localize-files', dataset: 'none.jsonl', instances: ids, gold: {}, settings: {} } satisfies Partial<StageSelection>),
  );
  for (const id of ids.filter((i) => !i.includes('/'))) {
    await mkdir(layout.stageDir('localize-files'), { recursive: true });
    await writeFile(
      layout.artifactPath('localize-files', id),
      JSON.stringify(
        artifact(id, { localizer: 'retrieval', files: [{ path: 'widget/core.py', score: 1 }], trace: [], ...extra(id) } as unknown as FileLocalization),
      ),
    );
  }
  return root;
}
