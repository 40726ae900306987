/** A dataset row with nothing in it but its id: for tests of run folders, locks and stages that never read the issue. */
import type { SweInstance } from '../../src/dataset/schema.ts';

export function stubRow(id: string): SweInstance {
  return {
    instance_id: id,
    repo: 'o/r',
    base_commit: 'a'.repeat(40),
    problem_statement: '',
    patch: '',
    test_patch: '',
    hints_text: '',
    FAIL_TO_PASS: [],
    PASS_TO_PASS: [],
  };
}
