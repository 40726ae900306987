import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatFileBatch, CatFileParser, type CatFileObject } from '../../src/repo/catfile.ts';
import { BINARY_BYTES, buildFixtureRepo, removeDir, tempDir, type FixtureRepo } from './fixtures.ts';

const OID_A = 'a'.repeat(40);
const OID_B = 'b'.repeat(40);

/** A realistic cat-file output stream: a binary blob, a missing object, an empty blob, an ambiguous name, a text blob. */
function sampleStream(): Buffer {
  return Buffer.concat([
    Buffer.from(`${OID_A} blob ${BINARY_BYTES.length}\n`),
    BINARY_BYTES,
    Buffer.from('\n'),
    Buffer.from('deadbeef missing\n'),
    Buffer.from(`${OID_B} blob 0\n\n`),
    Buffer.from('abc ambiguous\n'),
    Buffer.from(`${OID_B} blob 5\nline\n\n`),
  ]);
}

function parseAll(chunks: Buffer[]): { answers: (CatFileObject | undefined)[]; problems: string[] } {
  const answers: (CatFileObject | undefined)[] = [];
  const problems: string[] = [];
  const parser = new CatFileParser(
    (o) => answers.push(o),
    (p) => problems.push(p),
  );
  for (const chunk of chunks) parser.push(chunk);
  return { answers, problems };
}

describe('CatFileParser', () => {
  it('frames answers by length whatever the chunking', () => {
    const stream = sampleStream();
    const splits: Buffer[][] = [
      [stream],
      [...stream].map((byte) => Buffer.from([byte])), // one byte at a time
      [stream.subarray(0, 20), stream.subarray(20, 61), stream.subarray(61)], // splits inside header and body
    ];
    for (const chunks of splits) {
      const { answers, problems } = parseAll(chunks);
      expect(problems).toEqual([]);
      expect(answers).toHaveLength(5);
      expect(answers[0]).toMatchObject({ oid: OID_A, type: 'blob', size: BINARY_BYTES.length });
      expect(Buffer.compare(answers[0]!.content, BINARY_BYTES)).toBe(0);
      expect(answers[1]).toBeUndefined();
      expect(answers[2]).toMatchObject({ oid: OID_B, size: 0 });
      expect(answers[2]!.content.length).toBe(0);
      expect(answers[3]).toBeUndefined();
      expect(answers[4]!.content.toString()).toBe('line\n');
    }
  });

  it('reports a desynchronized stream once and stops', () => {
    const { answers, problems } = parseAll([Buffer.from(`${OID_A} blob 3\nabcX${OID_B} blob 1\nz\n`)]);
    expect(answers).toEqual([]);
    expect(problems).toEqual([`expected a newline after the content of ${OID_A}`]);
    const header = parseAll([Buffer.from('fatal: something odd\n')]);
    expect(header.problems).toEqual(['unexpected cat-file header "fatal: something odd"']);
  });
});

describe('CatFileBatch', () => {
  let root: string;
  let fixture: FixtureRepo;
  beforeAll(() => {
    root = tempDir('catfile');
    fixture = buildFixtureRepo(root);
  });
  afterAll(() => removeDir(root));

  it('reads blobs, commits and trees, and answers missing names with undefined', async () => {
    const batch = new CatFileBatch(fixture.bare);
    try {
      const [commit, tree, blob, missing, peeled] = await Promise.all([
        batch.read(fixture.first),
        batch.read(`${fixture.first}^{tree}`),
        batch.read(`${fixture.first}:pkg/core.py`),
        batch.read('0123456789012345678901234567890123456789'),
        batch.read(`${fixture.second.slice(0, 8)}^{commit}`),
      ]);
      expect(commit).toMatchObject({ oid: fixture.first, type: 'commit' });
      expect(commit!.content.toString()).toContain('first');
      expect(tree!.type).toBe('tree');
      expect(blob!.content.toString()).toBe('def add(a, b):\n    return a + b\n');
      expect(missing).toBeUndefined();
      expect(peeled!.oid).toBe(fixture.second);
      expect(batch.pending).toBe(0);
      await expect(batch.read('HEAD\nHEAD')).rejects.toThrow(/invalid object name/);
    } finally {
      await batch.close();
    }
    expect(batch.running).toBe(false);
  });

  it('fails pending reads when git dies and starts a new process for the next read', async () => {
    const batch = new CatFileBatch(fixture.bare);
    try {
      await batch.read('HEAD');
      const pid = (batch as unknown as { child: { pid: number } }).child.pid;
      // many requests in flight, then the process is killed from outside
      const reads = Array.from({ length: 200 }, () =>
        batch.read(`${fixture.first}:pkg/core.py`).then(
          () => 'ok',
          (e: Error) => e.message,
        ),
      );
      process.kill(pid, 'SIGKILL');
      const outcomes = await Promise.all(reads);
      const failures = outcomes.filter((o) => o !== 'ok');
      for (const failure of failures) expect(failure).toMatch(/git cat-file exited \(SIGKILL\) with \d+ request\(s\) unanswered/);
      const again = await batch.read(`${fixture.second}:pkg/core.py`);
      expect(again!.content.toString()).toBe('def add(a, b):\n    return b + a\n');
      expect((batch as unknown as { child: { pid: number } }).child.pid).not.toBe(pid);
    } finally {
      await batch.close();
    }
  });

  it('reports a directory that is not a repository as a failed read', async () => {
    const batch = new CatFileBatch(root); // no HEAD/objects here
    await expect(batch.read('HEAD')).rejects.toThrow(/git cat-file exited \(code 128\) with 1 request\(s\) unanswered: fatal: /);
    await batch.close();
  });
});
