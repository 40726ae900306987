/**
 * The literals channel (issue 44): a message an issue pastes finds the file whose string literal it comes from,
 * through format placeholders; a phrase every file holds weighs less than one file's own message; the retriever
 * fuses it only when its weight is on; a recording made before the channel says so when replayed with it.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';
import { retrieveFiles } from '../../localizer/retrieval/retriever.ts';
import { literalFragments, MAX_LITERAL_QUERY } from '../../src/index/channels/literals.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

const common = 'def check(x):\n    if x is None:\n        raise TypeError("expected a value but got nothing at all")\n';
const files: Record<string, string> = {
  'fmt/codes.py': `${common}\ndef render(code, value):\n    raise ValueError("Unknown format code '%s' for object of type %s" % (code, type(value).__name__))\n`,
  'fmt/width.py': `${common}\ndef pad(text, width):\n    return f"{text:>{width}}"  # no message here\n`,
  'fmt/parse.py': `${common}\ndef parse(spec):\n    tokens = spec.split(':')\n    return tokens\n`,
  'fmt/util.py': `${common}\ndef join(parts):\n    return ', '.join(parts)\n`,
};
const issue = [
  'Formatting an int fails:',
  '```',
  'Traceback (most recent call last):',
  '  File "<stdin>", line 1, in <module>',
  "ValueError: Unknown format code 'd' for object of type float",
  '```',
  'It also says expected a value but got nothing at all sometimes.',
].join('\n');

async function index() {
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-literals-'));
  const snapshot = new MemorySnapshot('acme/fmt', 'c'.repeat(40), files);
  return buildRepoIndex(snapshot, { embedder: new LexicalEmbedder({ dims: 64 }), vectorStore: new MemoryVectorStore(), cacheDir });
}

describe('the literals channel', () => {
  it("cuts a file's literals at their placeholders into phrase-like fragments", () => {
    expect(literalFragments(`raise ValueError("Unknown format code '%s' for object of type %s" % (c, t))\nx = 'short'\ny = "an_identifier_only"`)).toEqual([
      'unknown format code',
      'for object of type',
    ]);
  });

  it('finds the file a pasted message comes from; a phrase every file holds counts less', async () => {
    const idx = await index();
    const hits = await idx.searchLiterals(issue, 10);
    expect(hits[0]!.path).toBe('fmt/codes.py');
    // every file holds the TypeError message: all match it, far below the file with the specific one
    expect(hits.map((h) => h.path).sort()).toEqual(Object.keys(files).sort());
    expect(hits[1]!.score).toBeLessThan(hits[0]!.score / 3);
    expect(await idx.searchLiterals('nothing quoted here', 10)).toEqual([]);
  });

  it('reads a bounded part of a huge issue: a message in its first part is found, past the bound it is not', async () => {
    const idx = await index();
    const message = "Unknown format code 'd' for object of type float";
    const filler = 'log line of no interest at all\n'.repeat(Math.ceil(MAX_LITERAL_QUERY / 30));
    // before: the whole text was searched once per fragment, so a pasted multi-megabyte log made each search slow
    expect((await idx.searchLiterals(`${message}\n${filler}`, 5))[0]?.path).toBe('fmt/codes.py');
    expect(await idx.searchLiterals(`${filler}${filler}${message}`, 5)).toEqual([]);
  });

  it('is fused only when its weight is on, and a recording without it says so when replayed with it', async () => {
    const idx = await index();
    const queries = defaultQueries(issue, 'raw+structural');
    const off = await retrieveFiles(idx, queries, { weights: { literals: 0 } });
    expect(Object.keys(off.ranking[0]!.channels).some((c) => c.endsWith('/literals'))).toBe(false);
    const on = await retrieveFiles(idx, queries, { weights: { literals: 2 } });
    expect(on.ranking[0]!.path).toBe('fmt/codes.py');
    expect(on.ranking[0]!.channels['raw/literals']).toBe(1);
    // on by default, at the weight the development sets chose
    expect((await retrieveFiles(idx, queries, {})).ranking[0]!.channels['raw/literals']).toBe(1);

    const recording = new RecordingIndex(idx, { chunk: 300, file: 200 });
    await retrieveFiles(recording, queries, { weights: { literals: 2 } });
    const replayed = await retrieveFiles(new ReplayIndex(recording.recording()), queries, { weights: { literals: 2 } });
    expect(replayed.ranking.map((r) => r.path)).toEqual(on.ranking.map((r) => r.path));
    const { literals: _, ...before } = recording.recording();
    await expect(retrieveFiles(new ReplayIndex(before), queries, { weights: { literals: 2 } })).rejects.toThrow(
      /no literal searches .*replay with weights\.literals 0/,
    );
    expect((await retrieveFiles(new ReplayIndex(before), queries, { weights: { literals: 0 } })).ranking.length).toBeGreaterThan(0);
  });
});
