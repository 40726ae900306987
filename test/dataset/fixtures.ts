/** Rows in SWE-bench's schema and writers for every dataset format, for the dataset tests. */
import { writeFileSync } from 'node:fs';
import { parquetWriteBuffer } from 'hyparquet-writer';

export interface RawInstanceRow {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  patch: string;
  test_patch: string;
  hints_text: string;
  created_at: string;
  version: string;
  environment_setup_commit: string;
  /** as Hugging Face exports store them: JSON-encoded strings */
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
}

export function row(index: number, repo = 'acme/widgets'): RawInstanceRow {
  const name = repo.split('/')[1]!;
  return {
    instance_id: `${repo.replace('/', '__')}-${100 + index}`,
    repo,
    base_commit: (index + 1).toString(16).padStart(40, 'a'),
    problem_statement: `${name}: bug number ${index}\n\nSteps to reproduce...`,
    patch: `diff --git a/${name}/core.py b/${name}/core.py\n--- a/${name}/core.py\n+++ b/${name}/core.py\n@@ -1 +1 @@\n-x = ${index}\n+x = ${index + 1}\n`,
    test_patch: '',
    hints_text: '',
    created_at: '2023-01-02T03:04:05Z',
    version: '1.0',
    environment_setup_commit: 'b'.repeat(40),
    FAIL_TO_PASS: JSON.stringify([`tests/test_core.py::test_${index}`]),
    PASS_TO_PASS: JSON.stringify([]),
  };
}

export function writeJsonl(file: string, lines: readonly string[]): void {
  writeFileSync(file, lines.join('\n') + '\n');
}

const COLUMNS = [
  'instance_id',
  'repo',
  'base_commit',
  'problem_statement',
  'patch',
  'test_patch',
  'hints_text',
  'created_at',
  'version',
  'environment_setup_commit',
  'FAIL_TO_PASS',
  'PASS_TO_PASS',
] as const;

/** A parquet file laid out like the Hugging Face export of SWE-bench: every column a UTF-8 string. */
export function parquetBytes(rows: readonly Partial<RawInstanceRow>[]): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: COLUMNS.map((name) => ({
      name,
      data: rows.map((r) => (r[name] === undefined ? null : r[name]!)),
      type: 'STRING' as const,
    })),
  });
  return new Uint8Array(buffer);
}

export function writeParquet(file: string, rows: readonly Partial<RawInstanceRow>[]): void {
  writeFileSync(file, parquetBytes(rows));
}
