/**
 * Every older form locfix still reads, in one place (like pytest's deprecated.py): the run manifest's earlier
 * formats, config keys renamed since, error kinds respelled, artifact shapes replaced, disk-full errors an older
 * version recorded as failures. A reader elsewhere asks here instead of knowing what an older version wrote, so
 * dropping support for a form is one edit in this file and its test.
 *
 * It sits among the foundations because readers on every floor need it (the config, the stage runner, the
 * artifacts, the analysis); it therefore speaks of plain JSON values, and each caller keeps its own types.
 */
import { ERROR_KINDS, type ErrorKind } from './error-kinds.ts';

/**
 * The run manifest's format, written as `format` in every manifest.json:
 *   1  (no `format` field) runs before issue 54; configs may name the sandbox section `docker` (before issue 43)
 *   2  `format` written; its `config` uses today's keys
 * A reader branches on the number, never on which fields happen to be present.
 */
export const MANIFEST_FORMAT = 2;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A stored manifest in today's format: a format-1 manifest gets its config's keys renamed and `format: 2`.
 * A manifest from a newer locfix (a format this one does not know) is refused with the reason, since reading it
 * as today's could misreport what produced the run.
 */
export function currentManifest(stored: unknown, source = 'manifest.json'): Json {
  if (!isObject(stored)) throw new Error(`${source}: not a run manifest (a JSON object was expected)`);
  const format = stored.format ?? 1;
  if (typeof format !== 'number' || !Number.isInteger(format) || format < 1)
    throw new Error(`${source}: format ${JSON.stringify(format)} is not a manifest format`);
  if (format > MANIFEST_FORMAT) {
    throw new Error(`${source}: manifest format ${format} was written by a newer locfix (this one reads formats 1–${MANIFEST_FORMAT}); update locfix`);
  }
  if (format === MANIFEST_FORMAT) return stored;
  const config = isObject(stored.config) ? withCurrentKeys(stored.config, `${source}: config`) : stored.config;
  return { ...stored, config, format: MANIFEST_FORMAT };
}

/**
 * A config written before issue 43 names the sandbox section `docker` and its count `concurrency.docker`; both
 * read as today's `sandbox` and `concurrency.sandboxes`, so old config files and the configs old run manifests
 * recorded still parse. Both spellings at once is an error, not a silent choice.
 */
export function withCurrentKeys(input: unknown, source = 'config'): unknown {
  if (!isObject(input)) return input;
  const out: Json = { ...input };
  if ('docker' in out) {
    if ('sandbox' in out) throw new Error(`${source}: both "docker" (its name before) and "sandbox" are given; keep "sandbox"`);
    out.sandbox = out.docker;
    delete out.docker;
  }
  const concurrency = out.concurrency;
  if (isObject(concurrency) && 'docker' in concurrency) {
    const { docker, ...rest } = concurrency;
    if ('sandboxes' in rest) throw new Error(`${source}: both "concurrency.docker" (its name before) and "concurrency.sandboxes" are given; keep "sandboxes"`);
    out.concurrency = { ...rest, sandboxes: docker };
  }
  return out;
}

/** Error kinds as artifacts written before the kinds had one style spell them, and what they are called now. */
const RESPELLED_KINDS: Readonly<Record<string, ErrorKind>> = { budget_exhausted: ERROR_KINDS.budgetExhausted };

/** A recorded kind in today's spelling (an older artifact's `budget_exhausted` is `budget-exhausted`). */
export function currentKind<K extends string | undefined>(kind: K): K | ErrorKind {
  return kind !== undefined && Object.hasOwn(RESPELLED_KINDS, kind) ? RESPELLED_KINDS[kind]! : kind;
}

/** The words older versions recorded in an artifact's error for a full disk (SQLite's, Chroma's, the system's). */
const DISK_FULL_TEXT = /no space left on device|database or disk is full|disk quota exceeded|\bENOSPC\b/i;

/**
 * An artifact's recorded error that an older version booked for a full disk: run again, never kept as a failure.
 * Today's versions stop the run on a full disk and record nothing (util/disk-full.ts).
 */
export function recordedAsDiskFull(message: string | undefined): boolean {
  return message !== undefined && DISK_FULL_TEXT.test(message);
}

/**
 * The ranked files of a file-localization artifact's output: `files` today, `ranking` as `locfix retrieve` wrote
 * before retrieval and the other localizers shared one shape.
 */
export function rankedFilesOfOutput(output: { files?: unknown; ranking?: unknown } | undefined): unknown {
  return output?.files ?? output?.ranking;
}

/**
 * Why a replay cannot answer a channel's search: the recording was made before the channel existed. The user
 * records again, or replays with the channel's weight at 0.
 */
export function olderRecordingError(searches: string, channel: string, weight: string): Error {
  return new Error(
    `replay index: this recording has no ${searches} searches (made before the ${channel} channel): record it again, or replay with weights.${weight} 0`,
  );
}
