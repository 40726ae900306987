/**
 * A full disk (or a quota) is not an instance's failure: the same work succeeds once space is freed. Recorded
 * as an error it stayed one after the space came back, and the run went on failing every instance. Code
 * that writes recognises it here and stops the run instead, recording nothing, so a rerun resumes.
 */

/** How a full disk shows: Node's codes, and the text of tools that report it in words (SQLite, Chroma). */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
const DISK_FULL_TEXT = /no space left on device|database or disk is full|disk quota exceeded|\bENOSPC\b/i;

/** True when `err`, or an error it was caused by, says the disk is full. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
    if (DISK_FULL_TEXT.test(message)) return true;
  }
  return false;
}

/** What the user is told: what could not be written, and that nothing done is lost. */
export function diskFullMessage(err: unknown): string {
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return `the disk is full (${detail}): free space and rerun the same command; finished work is kept`;
}
