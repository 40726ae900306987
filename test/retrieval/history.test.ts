/** The similar-past-commits channel: reading ancestors from git, scoring files, fusing it, recording it. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitHistoryReader, type CommitRecord } from '../../src/repo/history.ts';
import { CommitLogParser, NulTokenizer } from '../../src/repo/commit-log.ts';
import { CommitHistoryIndex } from '../../src/index/commit-history-index.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import { IndexMemo } from '../../src/index/index-memo.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { retrieveFiles, type ChunkHit, type FileHit, type RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import { rawIssueQuery, structuralQuery } from '../../localizer/retrieval/query.ts';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { resolveRetrievalOptions } from '../../localizer/retrieval/options.ts';
import type { Definition } from '../../src/parsing/types.ts';
import { git, removeDir, tempDir } from '../repo/fixtures.ts';

let root: string;
let workTree: string;
let bare: string;
const ids: Record<string, string> = {};

function commit(name: string, message: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workTree, file)), { recursive: true });
    writeFileSync(path.join(workTree, file), content);
  }
  git(workTree, 'add', '-A');
  git(workTree, 'commit', '--quiet', '-m', message);
  ids[name] = git(workTree, 'rev-parse', 'HEAD');
}

beforeAll(() => {
  root = tempDir('history');
  workTree = path.join(root, 'work');
  mkdirSync(workTree);
  git(workTree, 'init', '--quiet', '--initial-branch=main');
  commit('init', 'Initial layout', { 'shop/cart.py': 'def total(items):\n    return sum(items)\n', 'shop/tax.py': 'RATE = 0.2\n', 'README.md': 'shop\n' });
  commit('discount', 'Fixed discount rounding in cart totals\n\nRound half up, as invoices do.', {
    'shop/cart.py': 'def total(items):\n    return round(sum(items), 2)\n',
    'tests/test_cart.py': 'def test_total():\n    pass\n',
  });
  commit('tax', 'Tax rate lookup by region', { 'shop/tax.py': 'RATES = {"eu": 0.2}\n' });
  git(workTree, 'checkout', '--quiet', '-b', 'side');
  commit('side', 'Side branch: currency formatting', { 'shop/money.py': 'def fmt(x):\n    return f"{x:.2f}"\n' });
  git(workTree, 'checkout', '--quiet', 'main');
  git(workTree, 'merge', '--quiet', '--no-ff', '-m', 'Merge branch side', 'side');
  ids.merge = git(workTree, 'rev-parse', 'HEAD');
  commit('wide', 'Reformat every module', Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`shop/m${i}.py`, `X = ${i}\n`])));
  commit('later', 'Cart totals ignore discounts after checkout', { 'shop/cart.py': 'def total(items):\n    return sum(items)\n' });
  bare = path.join(root, 'bare.git');
  git(root, 'clone', '--quiet', '--bare', workTree, bare);
});

afterAll(() => removeDir(root));

describe('CommitHistoryReader', () => {
  it('reads single-parent ancestors newest first, with messages and changed files; never later commits', async () => {
    const reader = new CommitHistoryReader();
    const commits = await reader.recentCommits(bare, ids.wide!, 100);
    // commits made in the same second have no defined order between them; the newest comes first
    expect(commits[0]!.id).toBe(ids.wide);
    // no merge commit, no root commit (it "changes" every file it adds)
    expect(commits.map((c) => c.id).sort()).toEqual([ids.wide, ids.side, ids.tax, ids.discount].sort());
    const discount = commits.find((c) => c.id === ids.discount)!;
    expect(discount.message).toBe('Fixed discount rounding in cart totals\n\nRound half up, as invoices do.');
    expect(discount.files).toEqual(['shop/cart.py', 'tests/test_cart.py']);
    expect(commits.some((c) => c.message.startsWith('Cart totals ignore'))).toBe(false);
    // the limit counts from the newest; a later call reuses what it read
    expect((await reader.recentCommits(bare, ids.later!, 1)).map((c) => c.id)).toEqual([ids.later]);
    expect(await reader.recentCommits(bare, ids.later!, 2)).toHaveLength(2);
    expect(await reader.recentCommits(bare, ids.later!, 0)).toEqual([]);
    await expect(reader.recentCommits(bare, 'f'.repeat(40), 5)).rejects.toThrow();
  });

  it('parses NUL-separated git log records in any chunking; separators inside a message stay in the message', () => {
    const marker = 'M:';
    const out = Buffer.from(
      `\u0000M:${'a'.repeat(40)}\u0000Fix it\n\nBody \u0002 pkg/c.py\n\u0000\u0000\npkg/a.py\u0000pkg/b.py\u0000\u0000M:${'b'.repeat(40)}\u0000Empty\n\u0000`,
    );
    // every split of the stream into two chunks (a token cut across chunks) parses alike
    for (let cut = 0; cut <= out.length; cut++) {
      const records: Array<{ id: string; message: string; files: string[] }> = [];
      const parser = new CommitLogParser(marker, (c) => records.push({ id: c.header[0]!, message: c.message, files: c.files }));
      const tokens = new NulTokenizer((t, truncated) => parser.token(t, truncated));
      tokens.push(out.subarray(0, cut));
      tokens.push(out.subarray(cut));
      tokens.end();
      parser.flush();
      expect(records, `cut at ${cut}`).toEqual([
        { id: 'a'.repeat(40), message: 'Fix it\n\nBody \u0002 pkg/c.py', files: ['pkg/a.py', 'pkg/b.py'] },
        { id: 'b'.repeat(40), message: 'Empty', files: [] },
      ]);
    }
  });

  it('a repository snapshot exposes its history', async () => {
    const store = new RepoStore({ cacheDir: path.join(root, 'cache'), mirrors: { 'acme/shop': bare }, allowClone: false });
    try {
      const snapshot = await store.snapshot('acme/shop', ids.tax!);
      expect((await snapshot.recentCommits(10)).map((c) => c.id).sort()).toEqual([ids.tax, ids.discount].sort());
      // released with the repository (the run moved on): read again on the next request
      const gitDir = await store.gitDir('acme/shop');
      expect(store.history.memoized(gitDir)).toBe(2);
      store.releaseRepo('acme/shop');
      await new Promise((r) => setImmediate(r));
      expect(store.history.memoized(gitDir)).toBe(0);
      expect(await snapshot.recentCommits(10)).toHaveLength(2);
      // file listings are read again too
      expect((await (await store.snapshot('acme/shop', ids.discount!)).listFiles()).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

describe('CommitHistoryIndex', () => {
  const record = (id: string, message: string, files: string[]): CommitRecord => ({ id, message, files });
  const commits = [
    record('c1', 'Fixed discount rounding in cart totals', ['shop/cart.py', 'shop/tax.py', 'tests/test_cart.py']),
    record('c2', 'Tax rate lookup by region', ['shop/tax.py']),
    record(
      'c3',
      'Reformat discount code everywhere',
      Array.from({ length: 11 }, (_, i) => `shop/m${i}.py`),
    ),
    record('c4', 'Update docs on discount', ['docs/discount.rst']),
    record('c5', 'Discount totals for removed module', ['shop/old.py']),
  ];
  const indexed = new Set(['shop/cart.py', 'shop/tax.py', ...Array.from({ length: 11 }, (_, i) => `shop/m${i}.py`)]);

  it("scores the files of similar commits, split over each commit's indexed files", () => {
    const index = new CommitHistoryIndex(commits, (p) => indexed.has(p), { maxCommits: 100, maxFilesPerCommit: 10, similarCommits: 50, minSharedTerms: 2 });
    // c3 is too wide, c4 changed no Python file, c5 only a file that no longer exists
    expect(index.size).toBe(2);
    const hits = index.search('discount totals are rounded wrong', 10);
    expect(hits.map((h) => h.path)).toEqual(['shop/cart.py', 'shop/tax.py']);
    // c1 alone matches: its score is shared by its two indexed files (the test file is not indexed)
    expect(hits[0]!.score).toBeCloseTo(hits[1]!.score, 10);
    // c1 shares only "tax" (from its paths) with this query: one shared word is no evidence
    const tax = index.search('tax rate for a region', 10);
    expect(tax.map((h) => h.path)).toEqual(['shop/tax.py']);
    const loose = new CommitHistoryIndex(commits, (p) => indexed.has(p), { maxCommits: 100, maxFilesPerCommit: 10, similarCommits: 50, minSharedTerms: 1 });
    expect(loose.search('tax rate for a region', 10).map((h) => h.path)).toEqual(['shop/tax.py', 'shop/cart.py']);
    // c1 shares "discount", c2 "region": each only one of the query's two words
    expect(index.search('region discount', 10)).toEqual([]);
    expect(loose.search('region discount', 10).map((h) => h.path)).toEqual(['shop/tax.py', 'shop/cart.py']);
    // a one-word query needs just that word
    expect(index.search('region', 10).map((h) => h.path)).toEqual(['shop/tax.py']);
    expect(index.search('nothing in common', 10)).toEqual([]);
    expect(index.search('discount', 1)).toHaveLength(1);
  });

  it('reads the history of a repository in any indexed language, counting a commit in the index family', () => {
    // before, only .py files counted: every commit of a Go or Rust repository was dropped
    const go: CommitRecord[] = [
      { id: 'g1', message: 'fix route matching for trailing slash redirects', files: ['tree.go', 'tree_test.go'] },
      { id: 'g2', message: 'bump docs theme', files: ['docs/theme.js', ...Array.from({ length: 12 }, (_, i) => `docs/p${i}.js`), 'gin.go'] },
    ];
    const settings = { maxCommits: 100, maxFilesPerCommit: 10, similarCommits: 50, minSharedTerms: 2 };
    const all = new CommitHistoryIndex(go, (p) => p === 'tree.go' || p === 'gin.go', settings);
    expect(all.search('trailing slash redirects break route matching', 10).map((h) => h.path)).toEqual(['tree.go']);
    expect(all.size).toBe(1); // g2 touches 14 source files: too wide
    // counted in the Go family only, g2 is a one-file change of gin.go
    const goOnly = new CommitHistoryIndex(
      go,
      (p) => p === 'tree.go' || p === 'gin.go',
      settings,
      undefined,
      (p) => p.endsWith('.go'),
    );
    expect(goOnly.size).toBe(2);
  });

  it('similarCommits limits the voting commits', () => {
    const index = new CommitHistoryIndex(commits, (p) => indexed.has(p), { maxCommits: 100, maxFilesPerCommit: 10, similarCommits: 1, minSharedTerms: 2 });
    expect(index.search('tax rate region discount', 10).map((h) => h.path)).toEqual(['shop/tax.py']);
  });
});

describe('history channel in retrieval', () => {
  class HistoryScriptedIndex implements RetrievalIndex {
    calls: string[] = [];
    readonly filePaths = ['shop/cart.py', 'shop/tax.py', 'shop/money.py'];
    async searchDense(): Promise<ChunkHit[]> {
      return [];
    }
    async searchChunksBm25(): Promise<ChunkHit[]> {
      return [];
    }
    async searchFilesBm25(text: string): Promise<FileHit[]> {
      this.calls.push(`fileBm25:${text.slice(0, 8)}`);
      return [{ path: 'shop/money.py', score: 1 }];
    }
    async searchHistory(text: string, k: number): Promise<FileHit[]> {
      this.calls.push(`history:${text.slice(0, 8)}:${k}`);
      return [
        { path: 'shop/cart.py', score: 4 },
        { path: 'shop/tax.py', score: 1 },
      ];
    }
    definitionsOf(): readonly Definition[] {
      return [];
    }
  }
  const issue = 'Cart totals ignore the discount when `total` is called twice';

  it('the raw issue searches the history; the structural query does not (default); weight 0 turns it off', async () => {
    const index = new HistoryScriptedIndex();
    const result = await retrieveFiles(index, [rawIssueQuery(issue), structuralQuery(issue)]);
    expect(index.calls.filter((c) => c.startsWith('history'))).toEqual(['history:Cart tot:200']);
    expect(result.ranking.map((r) => r.path)).toEqual(['shop/money.py', 'shop/cart.py', 'shop/tax.py']);
    expect(result.ranking[1]!.channels).toEqual({ 'raw/history': 1 });
    expect(result.ranking[2]!.channels).toEqual({ 'raw/history': 0.25 });
    const all = new HistoryScriptedIndex();
    await retrieveFiles(all, [rawIssueQuery(issue), structuralQuery(issue)], { historyQueries: 'all' });
    expect(all.calls.filter((c) => c.startsWith('history'))).toHaveLength(2);
    const off = new HistoryScriptedIndex();
    const without = await retrieveFiles(off, [rawIssueQuery(issue)], { weights: { history: 0 } });
    expect(off.calls.some((c) => c.startsWith('history'))).toBe(false);
    expect(without.ranking.map((r) => r.path)).toEqual(['shop/money.py']);
    expect(() => resolveRetrievalOptions({ historyQueries: 'raw' as unknown as string[] })).toThrow(/historyQueries must be "all" or a list of query labels/);
  });

  it('is recorded and replayed; an older recording without it can take history from elsewhere', async () => {
    const recording = new RecordingIndex(new HistoryScriptedIndex(), { chunk: 300, file: 200 });
    const live = await retrieveFiles(recording, [rawIssueQuery(issue)]);
    const rec = JSON.parse(JSON.stringify(recording.recording()));
    expect(Object.keys(rec.history)).toHaveLength(1);
    const replayed = await retrieveFiles(new ReplayIndex(rec), [rawIssueQuery(issue)]);
    expect(replayed.ranking).toEqual(live.ranking);
    delete rec.history;
    await expect(retrieveFiles(new ReplayIndex(rec), [rawIssueQuery(issue)])).rejects.toThrow(/no recorded history search/);
    const filled = await retrieveFiles(
      new ReplayIndex(rec, async () => [
        { path: 'shop/cart.py', score: 4 },
        { path: 'shop/tax.py', score: 1 },
      ]),
      [rawIssueQuery(issue)],
    );
    expect(filled.ranking.map((r) => [r.path, r.score])).toEqual(live.ranking.map((r) => [r.path, r.score]));
  });

  it('a repository index built from a git snapshot searches its history (read on first use)', async () => {
    const store = new RepoStore({ cacheDir: path.join(root, 'cache2'), mirrors: { 'acme/shop': bare }, allowClone: false });
    try {
      const snapshot = await store.snapshot('acme/shop', ids.wide!);
      const deps = {
        embedder: new LexicalEmbedder({ dims: 64 }),
        vectorStore: new MemoryVectorStore(),
        cacheDir: path.join(root, 'cache2'),
        memo: new IndexMemo(),
      };
      const index = await buildRepoIndex(snapshot, deps);
      const hits = await index.searchHistory('discount rounding in totals', 10);
      expect(hits.map((h) => h.path)).toEqual(['shop/cart.py']);
      const off = await buildRepoIndex(snapshot, { ...deps, history: false });
      expect(await off.searchHistory('discount rounding in totals', 10)).toEqual([]);
      // a history that cannot be read leaves the channel empty and says so; the index still works
      const messages: string[] = [];
      const broken = Object.assign(Object.create(Object.getPrototypeOf(snapshot)) as typeof snapshot, snapshot, {
        recentCommits: async () => {
          throw new Error('shallow mirror: parents missing');
        },
      });
      const degraded = await buildRepoIndex(broken, { ...deps, onProgress: (m) => messages.push(m) });
      expect(await degraded.searchHistory('discount rounding in totals', 10)).toEqual([]);
      expect(messages.filter((m) => m.startsWith('history unavailable'))).toEqual([
        `history unavailable for acme/shop@${ids.wide!.slice(0, 12)}: shallow mirror: parents missing`,
      ]);
      expect((await degraded.searchFilesBm25('total of the cart', 5)).map((h) => h.path)).toContain('shop/cart.py');
    } finally {
      await store.close();
    }
  });
});
