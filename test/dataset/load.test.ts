import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetError, loadDataset } from '../../src/dataset/load.ts';
import { FIELD_CHAR_LIMITS, MAX_PARQUET_CHUNK_BYTES } from '../../src/dataset/limits.ts';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { removeDir, tempDir } from '../repo/fixtures.ts';
import { row, writeJsonl, writeParquet } from './fixtures.ts';

let dir: string;

beforeAll(() => {
  dir = tempDir('dataset');
});
afterAll(() => removeDir(dir));

function file(name: string): string {
  return path.join(dir, name);
}

describe('loadDataset: formats', () => {
  it('loads a JSON list and normalizes FAIL_TO_PASS given as a JSON string or an array', async () => {
    const asString = row(1);
    const asArray = { ...row(2), FAIL_TO_PASS: ['tests/test_core.py::test_2'], PASS_TO_PASS: ['tests/test_core.py::test_ok'] };
    writeFileSync(file('list.json'), JSON.stringify([asString, asArray]));
    const { instances, errors, files } = await loadDataset(file('list.json'));
    expect(errors).toEqual([]);
    expect(files).toEqual([file('list.json')]);
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101', 'acme__widgets-102']);
    expect(instances[0]!.FAIL_TO_PASS).toEqual(['tests/test_core.py::test_1']);
    expect(instances[0]!.PASS_TO_PASS).toEqual([]);
    expect(instances[1]!.FAIL_TO_PASS).toEqual(['tests/test_core.py::test_2']);
    expect(instances[1]!.PASS_TO_PASS).toEqual(['tests/test_core.py::test_ok']);
    expect(instances[0]!.base_commit).toBe(asString.base_commit);
  });

  it('loads JSONL with blank lines, and fills fields only the full dataset has', async () => {
    const minimal = { instance_id: 'x__y-1', repo: 'x/y', base_commit: 'abcdef0', problem_statement: 'broken' };
    writeJsonl(file('rows.jsonl'), [JSON.stringify(row(1)), '', '   ', JSON.stringify(minimal), '']);
    const { instances, errors } = await loadDataset(file('rows.jsonl'));
    expect(errors).toEqual([]);
    expect(instances).toHaveLength(2);
    expect(instances[1]).toMatchObject({ instance_id: 'x__y-1', patch: '', test_patch: '', FAIL_TO_PASS: [], PASS_TO_PASS: [] });
  });

  it('loads a parquet file written like the Hugging Face export', async () => {
    const rows = [row(1), row(2, 'psf/requests'), { ...row(3), hints_text: undefined, environment_setup_commit: undefined }];
    writeParquet(file('export.parquet'), rows);
    const { instances, errors } = await loadDataset(file('export.parquet'));
    expect(errors).toEqual([]);
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101', 'psf__requests-102', 'acme__widgets-103']);
    expect(instances[1]!.repo).toBe('psf/requests');
    expect(instances[1]!.FAIL_TO_PASS).toEqual(['tests/test_core.py::test_2']);
    expect(instances[1]!.patch).toBe(rows[1]!.patch);
    expect(instances[2]!.hints_text).toBe(''); // null in parquet -> default
    expect(instances[2]!.environment_setup_commit).toBeUndefined();
  });

  it('loads every parquet file of a folder in name order', async () => {
    const folder = file('shards');
    mkdirSync(folder);
    writeParquet(path.join(folder, '0001.parquet'), [row(5)]);
    writeParquet(path.join(folder, '0000.parquet'), [row(4)]);
    const { instances } = await loadDataset(folder);
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-104', 'acme__widgets-105']);
  });
});

describe('loadDataset: bad rows', () => {
  it('reports a row whose instance id cannot name a file, instead of writing outside the run or failing every rerun', async () => {
    // before: ".." wrote evaluation logs into the run folder itself; 10,000 characters aborted with ENAMETOOLONG
    const lines = [
      JSON.stringify(row(1)),
      JSON.stringify({ ...row(2), instance_id: '..' }),
      JSON.stringify({ ...row(3), instance_id: 'x'.repeat(10_000) }),
      JSON.stringify({ ...row(4), instance_id: 'a/../../b' }),
      JSON.stringify({ ...row(5), instance_id: 'tab\there' }),
      // issue 42: short ids whose escaped file names are over 255 bytes (ENAMETOOLONG on every rerun, before)
      JSON.stringify({ ...row(6), instance_id: '中'.repeat(75) }),
      JSON.stringify({ ...row(7), instance_id: `a${'+'.repeat(105)}` }),
      // the longest that fits: 200 bytes once escaped
      JSON.stringify({ ...row(8), instance_id: 'x'.repeat(200) }),
    ];
    writeJsonl(file('ids.jsonl'), lines);
    const { instances, errors } = await loadDataset(file('ids.jsonl'));
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101', 'x'.repeat(200)]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^ids\.jsonl line 2: instance_id: an instance id that is a file name/),
      expect.stringMatching(/^ids\.jsonl line 3: instance_id: an instance id whose file name fits in 200 bytes \(this one's, escaped, takes 10000/),
      expect.stringMatching(/^ids\.jsonl line 4: instance_id: an instance id that is a file name/),
      expect.stringMatching(/^ids\.jsonl line 5: instance_id: an instance id that is a file name/),
      expect.stringMatching(
        /^ids\.jsonl line 6: instance_id: an instance id whose file name fits in 200 bytes \(this one's, escaped, takes 375: 75 characters\)/,
      ),
      expect.stringMatching(
        /^ids\.jsonl line 7: instance_id: an instance id whose file name fits in 200 bytes \(this one's, escaped, takes 316: 106 characters\)/,
      ),
    ]);
  });

  it('names file, line and field for each bad JSONL row and keeps the good ones', async () => {
    const lines = [
      JSON.stringify(row(1)), // line 1 ok
      JSON.stringify({ ...row(2), base_commit: 'not-a-hash' }), // line 2
      '{"instance_id": "broken', // line 3
      JSON.stringify({ ...row(4), repo: 'no-slash' }), // line 4
      JSON.stringify({ ...row(5), FAIL_TO_PASS: '[not json' }), // line 5
      JSON.stringify({ ...row(6), problem_statement: undefined }), // line 6: field missing
      JSON.stringify([1, 2]), // line 7
      JSON.stringify(row(1)), // line 8: duplicate of line 1
      JSON.stringify({ ...row(9), PASS_TO_PASS: '[1, 2]' }), // line 9
      JSON.stringify(row(10)), // line 10 ok
      JSON.stringify({ ...row(11), patch: 'diff --git nonsense\n' }), // line 11: unreadable gold patch
    ];
    writeJsonl(file('bad.jsonl'), lines);
    const { instances, errors } = await loadDataset(file('bad.jsonl'));
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101', 'acme__widgets-110']);
    expect(errors.map((e) => e.message)).toEqual([
      'bad.jsonl line 2: base_commit: expected a git commit hash',
      expect.stringMatching(/^bad\.jsonl line 3: not valid JSON \(.+\)$/),
      'bad.jsonl line 4: repo: expected "owner/name"',
      'bad.jsonl line 5: FAIL_TO_PASS: expected a list of test names (a JSON array, or a string holding one), got a string that is not a JSON list: "[not json"',
      'bad.jsonl line 6: problem_statement: missing',
      "bad.jsonl line 7: expected an object with the instance's fields, got a list",
      'bad.jsonl line 8: instance_id: duplicate acme__widgets-101 (first at bad.jsonl line 1)',
      'bad.jsonl line 9: PASS_TO_PASS.0: expected string, received number; PASS_TO_PASS.1: expected string, received number',
      'bad.jsonl line 11: patch: not a readable unified diff: unreadable patch header: diff --git nonsense',
    ]);
    expect(errors[0]).toMatchObject({ file: 'bad.jsonl', row: 2, rowKind: 'line', field: 'base_commit', instanceId: 'acme__widgets-102' });
    expect(errors[1]!.field).toBeUndefined();
  });

  it('numbers JSON list and parquet rows', async () => {
    writeFileSync(file('bad.json'), JSON.stringify([row(1), { ...row(2), instance_id: '' }, 'text']));
    const json = await loadDataset(file('bad.json'));
    expect(json.errors.map((e) => e.message)).toEqual([
      'bad.json row 2: instance_id: must not be empty',
      "bad.json row 3: expected an object with the instance's fields, got a string",
    ]);
    writeParquet(file('bad.parquet'), [row(1), { ...row(2), base_commit: 'XYZ' }]);
    const parquet = await loadDataset(file('bad.parquet'));
    expect(parquet.errors.map((e) => e.message)).toEqual(['bad.parquet row 2: base_commit: expected a git commit hash']);
    expect(parquet.instances).toHaveLength(1);
  });

  it('strict mode throws on the first bad row', async () => {
    writeJsonl(file('strict.jsonl'), [JSON.stringify(row(1)), JSON.stringify({ ...row(2), base_commit: 'nope' }), 'garbage']);
    const error = await loadDataset(file('strict.jsonl'), { strict: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetError);
    expect((error as DatasetError).message).toBe('strict.jsonl line 2: base_commit: expected a git commit hash');
    expect((error as DatasetError).rowError?.row).toBe(2);
  });

  it('rejects unreadable sources with a clear error', async () => {
    await expect(loadDataset(file('missing.jsonl'))).rejects.toThrow(/missing\.jsonl: no such file/);
    writeFileSync(file('object.json'), '{"instance_id": "a"}');
    await expect(loadDataset(file('object.json'))).rejects.toThrow(/object\.json: expected a JSON list of instances, got an object/);
    writeFileSync(file('torn.json'), '[{"instance_id": ');
    await expect(loadDataset(file('torn.json'))).rejects.toThrow(/torn\.json: not valid JSON/);
    writeFileSync(file('fake.parquet'), 'not parquet at all');
    await expect(loadDataset(file('fake.parquet'))).rejects.toThrow(/fake\.parquet: cannot read parquet/);
    writeFileSync(file('rows.csv'), 'a,b\n');
    await expect(loadDataset(file('rows.csv'))).rejects.toThrow(/unknown format/);
  });
});

describe('loadDataset: SWE-bench Lite (shared data)', () => {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const lite = path.resolve(repoRoot, '..', 'shared', 'data', 'swe-bench-lite.jsonl');
  const present = existsSync(lite);
  if (!present) console.warn(`skipping the SWE-bench Lite test: ${lite} is absent`);

  it.skipIf(!present)('loads all 300 Lite instances without errors', async () => {
    const { instances, errors } = await loadDataset(lite, { strict: true });
    expect(errors).toEqual([]);
    expect(instances).toHaveLength(300);
    expect(new Set(instances.map((i) => i.repo)).size).toBe(12);
    for (const instance of instances) {
      expect(instance.base_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(instance.patch).toMatch(/^diff --git /);
    }
  });
});

describe('loadDataset: a row holds bounded text (issue 50, finding 5)', () => {
  it('a field over its limit is that row’s error, naming the field and the sizes; the others load', async () => {
    const huge = { ...row(2), problem_statement: 'x'.repeat(FIELD_CHAR_LIMITS.problem_statement! + 1) };
    writeJsonl(file('huge.jsonl'), [JSON.stringify(row(1)), JSON.stringify(huge)]);
    const { instances, errors } = await loadDataset(file('huge.jsonl'));
    expect(instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ field: 'problem_statement', instanceId: 'acme__widgets-102' });
    expect(errors[0]!.message).toMatch(/line 2: problem_statement: 1,000,001 characters, over the 1,000,000/);
  });

  it('a small parquet file whose column holds more than it may is refused from its metadata, before decoding', async () => {
    // compresses to a few hundred kilobytes; decoded, it would be 300 MB of one field
    const big = 'y'.repeat(MAX_PARQUET_CHUNK_BYTES + 1024);
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'instance_id', data: ['acme__widgets-1'], type: 'STRING' },
        { name: 'problem_statement', data: [big], type: 'STRING' },
      ],
      codec: 'SNAPPY',
    });
    writeFileSync(file('bomb.parquet'), new Uint8Array(bytes));
    await expect(loadDataset(file('bomb.parquet'))).rejects.toThrow(
      /column problem_statement of row group 0 is [\d,]+ bytes uncompressed, over the 268,435,456/,
    );
  });
});
