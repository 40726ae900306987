/**
 * The SWE-bench instance schema as locfix uses it.
 *
 * Hugging Face exports store FAIL_TO_PASS / PASS_TO_PASS as JSON-encoded strings; locfix normalizes them
 * to arrays once, at load time, so no later stage has to care. Fields that only the full dataset carries
 * (test_patch, the test lists, version) default to empty so the 300-row Lite export in shared/ loads too.
 */
import { z } from 'zod';
import { parsePatch } from '../patch.ts';
import { safeFileName } from '../util/fsx.ts';
import { imageReferenceProblem } from '../util/image-reference.ts';

const testList = z.preprocess((value) => {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') {
    try {
      return JSON.parse(value);
    } catch {
      return value; // left as a string so zod reports a precise type error for this field
    }
  }
  return value;
}, z.array(z.string()));

/** A unified diff that locfix can read (gold files, gold elements and test files come from it), or empty. */
const unifiedDiff = z
  .string()
  .default('')
  .superRefine((patch, ctx) => {
    try {
      parsePatch(patch);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a readable unified diff: ${(err as Error).message}` });
    }
  });

/**
 * The longest file name an id may take once escaped (`safeFileName`, in bytes): `<name>.json` and the
 * `.corrupt-<time>` name a damaged artifact is moved to must stay under the 255 bytes of a file name on every
 * filesystem. Counted in bytes of the escaped name, not characters of the id: 75 CJK characters or 105 `+` are
 * short ids and names of over 255 bytes.
 */
export const MAX_ID_FILE_NAME_BYTES = 200;

/**
 * Why `id` cannot be an instance id, or undefined. An id names a file in every stage folder and a log folder, so
 * a path separator, `.` or `..`, a control character or a name too long for a file would write outside the run
 * folder or fail on every rerun; every reader checks ids from files against this before they name a path.
 */
export function instanceIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'an instance id must be a string';
  if (id.length === 0) return 'must not be empty';
  if (id === '.' || id === '..' || /[/\\\u0000-\u001f]/.test(id))
    return 'an instance id that is a file name (no "/", "\\", "." or "..", no control characters)';
  const bytes = Buffer.byteLength(safeFileName(id));
  if (bytes > MAX_ID_FILE_NAME_BYTES)
    return `an instance id whose file name fits in ${MAX_ID_FILE_NAME_BYTES} bytes (this one's, escaped, takes ${bytes}: ${id.length} characters)`;
  return undefined;
}

export const SweInstanceSchema = z.object({
  /**
   * names a file in every stage folder (`<stage>/<instance_id>.json`) and a log folder: a path separator, `.` or
   * `..`, a control character or a name longer than a file name may be would write outside the run folder or
   * fail on every rerun, so such a row is reported and skipped
   */
  instance_id: z.string().superRefine((id, ctx) => {
    const problem = instanceIdProblem(id);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected "owner/name"'),
  base_commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'expected a git commit hash'),
  problem_statement: z.string(),
  patch: unifiedDiff,
  test_patch: unifiedDiff,
  hints_text: z.string().default(''),
  created_at: z.string().optional(),
  version: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().optional()),
  environment_setup_commit: z.string().optional(),
  FAIL_TO_PASS: testList.default([]),
  PASS_TO_PASS: testList.default([]),
  /**
   * SWE-bench 5.0 rows carry what the harness needs to evaluate them: the eval script, the log parser by its
   * registry name (`parse_log_astropy`), the grading type and the image; locfix uses them as given
   */
  eval_script: z.string().optional(),
  log_parser: z.string().optional(),
  eval_type: z.enum(['pass_and_fail', 'fail_only']).optional(),
  /** reaches the engine's API: a name outside the reference grammar is this row's error, never a request */
  image: z
    .string()
    .superRefine((image, ctx) => {
      const problem = imageReferenceProblem(image);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

export type SweInstance = z.infer<typeof SweInstanceSchema>;
