/**
 * Caches shared by concurrent locfix processes. First the race itself, made deterministic: a process opens a
 * cache while another is in the middle of an append (modelled by holding the lock file as that process would
 * and writing half a record). Then three real processes write the same embedding cache and parsed-file
 * cache at once, re-opening them between batches as new processes would; afterwards every record any of
 * them wrote must read back intact.
 */
import { acquireFileLock } from '../../src/util/file-lock.ts';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddingCache } from '../../src/embedding/cache.ts';
import { FileRecordStore } from '../../src/index/record-store.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-shared-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROCESSES = 3;
const ROUNDS = 6;
const PER_ROUND = 40;
const DIMS = 256;

/** the vector of a text: anyone can check it */
function vectorOf(text: string): Float32Array {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return Float32Array.from({ length: DIMS }, (_, i) => ((h >>> (i % 24)) & 0xff) / 255);
}

const writer = (worker: number) => `
import { EmbeddingCache } from ${JSON.stringify(path.join(ROOT, 'src/embedding/cache.ts'))};
import { FileRecordStore } from ${JSON.stringify(path.join(ROOT, 'src/index/record-store.ts'))};
const vectorOf = ${vectorOf.toString()};
const DIMS = ${DIMS};
for (let round = 0; round < ${ROUNDS}; round++) {
  const cache = await EmbeddingCache.open(${JSON.stringify(path.join(dir, 'embeddings'))}, 'test-embedder');
  const records = await FileRecordStore.open(${JSON.stringify(path.join(dir, 'index', 'files.jsonl'))});
  for (let i = 0; i < ${PER_ROUND}; i++) {
    const text = 'w${worker}-r' + round + '-' + i;
    cache.set(text, vectorOf(text));
    const content = 'def f' + i + '():\\n    return ' + JSON.stringify(text) + '\\n';
    records.add(text, 'pkg/' + text + '.py', content, { chunks: [{ path: 'pkg/' + text + '.py', startLine: 1, endLine: 2, text: 'pkg/' + text + '.py\\n' + content.trimEnd(), kind: 'function', symbol: 'f' + i }], definitions: [] });
  }
  await Promise.all([cache.flush(), records.flush()]);
}
`;

function runWriter(worker: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', writer(worker)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${worker} exited with ${code}`))));
  });
}

/** one embedding-cache record as EmbeddingCache writes it: [sha256(embedder \0 text)][dims][float32…] */
async function encodedRecord(embedder: string, text: string, vector: Float32Array): Promise<Buffer> {
  const { createHash } = await import('node:crypto');
  const out = Buffer.alloc(32 + 4 + vector.length * 4);
  createHash('sha256').update(embedder).update('\0').update(text).digest().copy(out, 0);
  out.writeUInt32LE(vector.length, 32);
  vector.forEach((x, i) => out.writeFloatLE(x, 36 + i * 4));
  return out;
}

describe('caches shared by concurrent processes', () => {
  it('opening the embedding cache while another process is mid-append waits for it instead of cutting its record', async () => {
    const folder = path.join(dir, 'race');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'e.f32');
    const first = await EmbeddingCache.open(folder, 'e');
    first.set('kept', vectorOf('kept'));
    await first.flush();
    // the other process: holds the lock and has written half of its record
    const record = await encodedRecord('e', 'in flight', vectorOf('in flight'));
    const release = await acquireFileLock(`${file}.lock`);
    appendFileSync(file, record.subarray(0, 600));
    const opening = EmbeddingCache.open(folder, 'e');
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(file, record.subarray(600));
    await release();
    const opened = await opening;
    expect(opened.get('in flight')).toEqual(vectorOf('in flight'));
    // and the file is still well-formed for the next reader
    const again = await EmbeddingCache.open(folder, 'e');
    expect([again.get('kept'), again.get('in flight')]).toEqual([vectorOf('kept'), vectorOf('in flight')]);
  });

  it('opening the parsed-file cache while another process is mid-append waits for its line', async () => {
    const file = path.join(dir, 'race', 'files.jsonl');
    const content = 'def g():\n    return 1\n';
    const chunk = { path: 'pkg/g.py', startLine: 1, endLine: 2, text: `pkg/g.py\n${content.trimEnd()}`, kind: 'function', symbol: 'g' };
    const writer = await FileRecordStore.open(path.join(dir, 'race', 'writer.jsonl'));
    writer.add('blob-g', 'pkg/g.py', content, { chunks: [chunk], definitions: [] });
    await writer.flush();
    const { readFileSync } = await import('node:fs');
    const line = readFileSync(path.join(dir, 'race', 'writer.jsonl'), 'utf8');
    const release = await acquireFileLock(`${file}.lock`);
    appendFileSync(file, line.slice(0, 20));
    const opening = FileRecordStore.open(file);
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(file, line.slice(20));
    await release();
    expect((await opening).restore('blob-g', 'pkg/g.py', content)?.chunks[0]?.text).toBe(chunk.text);
  });

  it('a holder killed with -9 leaves a lock that goes stale and is taken over; a live one is waited for', { timeout: 60_000 }, async () => {
    const lock = path.join(dir, 'killed.lock');
    const holder = spawn(process.execPath, [
      '--import',
      'tsx',
      '-e',
      `import('${path.resolve('src/util/file-lock.ts')}').then(async (m) => { await m.acquireFileLock(${JSON.stringify(lock)}); process.stdout.write('held\\n'); setInterval(() => {}, 1000); })`,
    ]);
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    // held and kept fresh: another taker waits, and gives up at its timeout saying why
    await expect(acquireFileLock(lock, { timeoutMs: 300, what: 'the test lock' })).rejects.toThrow(/the test lock: locked by another process/);
    holder.kill('SIGKILL');
    const started = Date.now();
    const release = await acquireFileLock(lock, { timeoutMs: 30_000, pollMs: 200 });
    expect(Date.now() - started).toBeLessThan(20_000);
    await release();
  });

  it('three processes writing the embedding and parsed-file caches at once lose and tear nothing', { timeout: 120_000 }, async () => {
    await Promise.all(Array.from({ length: PROCESSES }, (_, w) => runWriter(w)));
    const cache = await EmbeddingCache.open(path.join(dir, 'embeddings'), 'test-embedder');
    const records = await FileRecordStore.open(path.join(dir, 'index', 'files.jsonl'));
    const missing: string[] = [];
    const wrong: string[] = [];
    for (let w = 0; w < PROCESSES; w++) {
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < PER_ROUND; i++) {
          const text = `w${w}-r${round}-${i}`;
          const v = cache.get(text);
          if (!v) missing.push(`embedding ${text}`);
          else if (v.length !== DIMS || v.some((x, j) => x !== vectorOf(text)[j])) wrong.push(`embedding ${text}`);
          const content = `def f${i}():\n    return ${JSON.stringify(text)}\n`;
          const restored = records.restore(text, `pkg/${text}.py`, content);
          if (!restored) missing.push(`parsed ${text}`);
          else if (restored.chunks[0]?.text !== `pkg/${text}.py\n${content.trimEnd()}`) wrong.push(`parsed ${text}`);
        }
      }
    }
    expect(missing.slice(0, 5), `${missing.length} records missing`).toEqual([]);
    expect(wrong.slice(0, 5), `${wrong.length} records wrong`).toEqual([]);
    expect(cache.size).toBe(PROCESSES * ROUNDS * PER_ROUND);
  });
});
