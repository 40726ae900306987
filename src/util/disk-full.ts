/**
 * A full disk (or a quota) is not an instance's failure: the same work succeeds once space is freed. Recorded
 * as an error it stayed one after the space came back, and the run went on failing every instance. Code
 * that writes recognises it here, from the host's own errno, and stops the run instead, recording nothing, so a
 * rerun resumes.
 */

/** How a full disk shows on this host: the errno of a system call (Node's SystemError carries `syscall` and `errno`). */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/**
 * True when `err`, or an error it was caused by, is this host's own full disk: a failed system call's errno.
 * Never from text or from a `code` alone: a model server's error body can say "No space left on device" and an
 * HTTP client copies the body's `code` onto its error, and the run stopped for a disk that had room (issue 52).
 */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, syscall, errno } = e as NodeJS.ErrnoException;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code) && typeof syscall === 'string' && typeof errno === 'number') return true;
  }
  return false;
}

/** What the user is told: what could not be written, and that nothing done is lost. */
export function diskFullMessage(err: unknown): string {
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return `the disk is full (${detail}): free space and rerun the same command; finished work is kept`;
}
