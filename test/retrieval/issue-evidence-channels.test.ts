/**
 * Two kinds of evidence issues carry (issue 44): the configuration keys and flags an issue names, matched to the
 * string literals that read them (the keys channel), and the files changed together with the files an issue
 * names (the co-change channel). Each is fused only when its weight is on, records and replays, and a recording
 * made before it says so when replayed with it on.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';
import { retrieveFiles } from '../../localizer/retrieval/retriever.ts';
import { DEFAULT_RETRIEVAL_OPTIONS } from '../../localizer/retrieval/options.ts';
import { pathSignalScores, RepoPathMatcher, testedModuleName } from '../../localizer/retrieval/path-match.ts';
import { extractStructuralSignals } from '../../localizer/retrieval/structural-query.ts';
import { isKey, keyLiterals, queryKeyTokens } from '../../src/index/channels/keys.ts';
import { CoChangeTable, lazyCoChangeSearch } from '../../src/index/co-change.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import type { CommitRecord } from '../../src/repo/history.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

const files: Record<string, string> = {
  'tool/options.py':
    'def add_options(parser):\n    parser.addoption("--collect-only", action="store_true")\n    parser.addoption("--verbose-level", type=int)\n',
  'tool/config.py': 'def read(settings):\n    return getattr(settings, "FILE_UPLOAD_PERMISSIONS", None)\n',
  'tool/report.py': 'def report(items):\n    for item in items:\n        print(item)\n',
  'tool/report_html.py': 'def html(items):\n    return "<ul>" + "".join(items) + "</ul>"\n',
  'tool/main.py': 'import tool.report\n\ndef main():\n    tool.report.report([])\n',
};

class HistorySnapshot extends MemorySnapshot {
  constructor(private readonly commits: CommitRecord[]) {
    super('acme/tool', 'd'.repeat(40), files);
  }
  async recentCommits(limit: number): Promise<CommitRecord[]> {
    return this.commits.slice(0, limit);
  }
}

const commit = (id: string, changed: string[]): CommitRecord => ({ id: id.repeat(40).slice(0, 40), message: `change ${id}`, files: changed });
// report.py and report_html.py change together; main.py once with report.py; one wide commit touches everything
const HISTORY = [
  commit('a', ['tool/report.py', 'tool/report_html.py']),
  commit('b', ['tool/report.py', 'tool/report_html.py']),
  commit('c', ['tool/report.py', 'tool/main.py']),
  commit('d', ['tool/report.py']),
  commit('e', Object.keys(files)),
];

async function index() {
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-evidence-'));
  return buildRepoIndex(new HistorySnapshot(HISTORY), { embedder: new LexicalEmbedder({ dims: 64 }), vectorStore: new MemoryVectorStore(), cacheDir });
}

describe('the keys channel', () => {
  it('takes quoted flags and separated keys, not words, file names or short tokens', () => {
    expect(keyLiterals('x = "--collect-only"; y = \'FILE_UPLOAD_PERMISSIONS\'; z = "setup.py"; w = "hello"; v = "a_b"; u = "a long phrase"')).toEqual([
      '--collect-only',
      'FILE_UPLOAD_PERMISSIONS',
    ]);
    expect(isKey('autodoc_typehints')).toBe(true);
    expect(isKey('max-line-length')).toBe(true);
    expect(isKey('utf-8')).toBe(false);
    expect(isKey('conf.py')).toBe(false);
    // a token in prose ends at a sentence's full stop; case is kept (DEBUG is a setting, debug a word)
    expect([...queryKeyTokens('Running with --collect-only fails. Set FILE_UPLOAD_PERMISSIONS.')]).toEqual(['--collect-only', 'FILE_UPLOAD_PERMISSIONS']);
  });

  it('finds the file that reads a key the issue names; its table is built on the first search, not with the index', async () => {
    const idx = await index();
    // off by default: an index build does not pay for it (before: built with every index)
    expect(idx.timings.keysMs).toBe(0);
    expect((await idx.searchKeys('pytest --collect-only crashes', 10)).map((h) => h.path)).toEqual(['tool/options.py']);
    expect((await idx.searchKeys('FILE_UPLOAD_PERMISSIONS is ignored', 10)).map((h) => h.path)).toEqual(['tool/config.py']);
    expect(await idx.searchKeys('collect only crashes', 10)).toEqual([]);
    expect(idx.timings.keysMs).toBeGreaterThan(0);
  });

  it('is off by default, fused when on, and a recording without it says so', async () => {
    const idx = await index();
    const queries = defaultQueries('Running pytest with --collect-only crashes', 'raw+structural');
    expect(DEFAULT_RETRIEVAL_OPTIONS.weights.keys).toBe(0);
    const off = await retrieveFiles(idx, queries, {});
    expect(off.ranking.some((r) => Object.keys(r.channels).some((c) => c.endsWith('/keys')))).toBe(false);
    const on = await retrieveFiles(idx, queries, { weights: { keys: 2 } });
    expect(on.ranking[0]!.path).toBe('tool/options.py');
    expect(on.ranking[0]!.channels['raw/keys']).toBe(1);
    const recording = new RecordingIndex(idx, { chunk: 300, file: 200 });
    await retrieveFiles(recording, queries, { weights: { keys: 2 } });
    expect((await retrieveFiles(new ReplayIndex(recording.recording()), queries, { weights: { keys: 2 } })).ranking).toEqual(on.ranking);
    const { keys: _, ...before } = recording.recording();
    await expect(retrieveFiles(new ReplayIndex(before), queries, { weights: { keys: 2 } })).rejects.toThrow(/no key searches .*weights\.keys 0/);
  });
});

describe('the co-change channel', () => {
  it('scores files by the share of a seed’s commits that changed them too, leaving out wide commits and the seeds', () => {
    const table = new CoChangeTable(HISTORY, (p) => p in files, 3);
    // report.py: 4 narrow commits (the wide one is left out); with report_html 2, with main 1; smoothed by one
    expect(table.search(['tool/report.py'], 10)).toEqual([
      { path: 'tool/report_html.py', score: 2 / 5 },
      { path: 'tool/main.py', score: 1 / 5 },
    ]);
    expect(table.search(['tool/report.py', 'tool/report_html.py'], 10).map((h) => h.path)).toEqual(['tool/main.py']);
    expect(table.search(['tool/config.py'], 10)).toEqual([]);
  });

  it('seeds from the files the issue names, records, and a recording without it says so', async () => {
    const idx = await index();
    const queries = defaultQueries('The output of `tool/report.py` is wrong when items are empty', 'raw+structural');
    const on = await retrieveFiles(idx, queries, { weights: { coChange: 1 } });
    expect(on.ranking.find((r) => r.path === 'tool/report_html.py')!.channels['structural/coChange']).toBe(1);
    const off = await retrieveFiles(idx, queries, { weights: { coChange: 0 } });
    expect(off.ranking.some((r) => Object.keys(r.channels).some((c) => c.endsWith('/coChange')))).toBe(false);
    const recording = new RecordingIndex(idx, { chunk: 300, file: 200 });
    await retrieveFiles(recording, queries, { weights: { coChange: 1 } });
    expect(recording.recording().coChange).toHaveProperty(['tool/report.py']);
    expect((await retrieveFiles(new ReplayIndex(recording.recording()), queries, { weights: { coChange: 1 } })).ranking).toEqual(on.ranking);
    const { coChange: _, ...before } = recording.recording();
    await expect(retrieveFiles(new ReplayIndex(before), queries, { weights: { coChange: 1 } })).rejects.toThrow(/no co-change searches .*weights\.coChange 0/);
    // seeds a recording never searched (another path weight names other files) come from the history, as live
    const unsearched = { ...recording.recording(), coChange: {} };
    await expect(retrieveFiles(new ReplayIndex(unsearched), queries, { weights: { coChange: 1 } })).rejects.toThrow(/no recorded coChange search/);
    const fromHistory = lazyCoChangeSearch(async () => new HistorySnapshot(HISTORY), idx.filePaths, { maxCommits: 3000, maxFilesPerCommit: 10 });
    expect((await retrieveFiles(new ReplayIndex(unsearched, undefined, fromHistory), queries, { weights: { coChange: 1 } })).ranking).toEqual(on.ranking);
  });
});

describe('test files mapped to the modules they test', () => {
  it('reads the naming conventions of each ecosystem', () => {
    expect(
      ['tests/test_widgets.py', 'pkg/widgets_test.go', 'src/test/WidgetsTest.java', 'src/widgets.test.ts', 'spec/widgets_spec.rb', 'TestWidgets.php'].map(
        testedModuleName,
      ),
    ).toEqual(['widgets', 'widgets', 'Widgets', 'widgets', 'widgets', 'Widgets']);
    expect(testedModuleName('tests/conftest.py')).toBeUndefined();
    expect(testedModuleName('tests/test_a.py')).toBeUndefined();
  });

  it('scores the tested module only when its weight is on, never another test file', () => {
    const matcher = new RepoPathMatcher(['tool/report.py', 'tests/test_report.py', 'tool/main.py']);
    const signals = extractStructuralSignals('Running `tests/test_report.py` fails since the last release.');
    const weights = { ...DEFAULT_RETRIEVAL_OPTIONS.pathWeights, testedModule: 0.5 };
    const { scores, evidence } = pathSignalScores(signals, matcher, weights, 0.5);
    expect(scores.get('tool/report.py')).toBe(0.5);
    expect(evidence.find((e) => e.path === 'tool/report.py')!.signal).toBe('tested-module');
    expect(scores.get('tests/test_report.py')).toBe(1); // the named path itself, as before
    expect(pathSignalScores(signals, matcher, DEFAULT_RETRIEVAL_OPTIONS.pathWeights, 0.5).scores.has('tool/report.py')).toBe(false);
  });
});

describe('recordings of any name an issue gives', () => {
  it('record and replay a search for `__proto__` (a plain assignment set the table’s prototype instead)', async () => {
    const idx = await index();
    const queries = defaultQueries('Setting `__proto__` through `tool.report.report` pollutes every object', 'raw+structural');
    const recording = new RecordingIndex(idx, { chunk: 300, file: 200 });
    const live = await retrieveFiles(recording, queries, {});
    const saved = JSON.parse(JSON.stringify(recording.recording()));
    expect(Object.keys(saved.definitions)).toContain('__proto__');
    expect((await retrieveFiles(new ReplayIndex(saved), queries, {})).ranking).toEqual(live.ranking);
  });
});
