/**
 * Instance selection: by id list, by a pattern on instance_id, by repository, and a limit, applied in that
 * order. The dataset's order is always kept (so runs are reproducible whatever order ids are given in).
 */
export interface InstanceSelection {
  /** exact instance ids */
  ids?: readonly string[];
  /** a glob (`django__django-11*`, `*requests*`) or a `/regex/flags` matched against the whole instance_id */
  pattern?: string;
  /** "owner/name", or just "name" */
  repos?: readonly string[];
  /** keep at most this many (after the other filters) */
  limit?: number;
  /** then keep shard `index` (1-based) of `count` contiguous, near-equal parts: what one node of a split run does */
  shard?: Shard;
}

export interface Shard {
  index: number;
  count: number;
}

/** "i/n" → {index: i, count: n}, 1 ≤ i ≤ n. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) throw new SelectionError(`invalid shard "${text}": expected i/n with 1 ≤ i ≤ n, e.g. 2/8`);
  return { index, count };
}

/** The instances grouped by repository (repositories in name order), keeping their order within each. */
function byRepository<T extends { repo: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : 0));
}

/**
 * Shard `index` of `count` of a list: contiguous parts whose sizes differ by at most one, so the shards of a
 * run cover every instance exactly once, and a shard keeps neighbouring instances (one repository's, once
 * grouped) together for the caches.
 */
export function shardOf<T>(items: readonly T[], shard: Shard): T[] {
  const from = Math.floor(((shard.index - 1) * items.length) / shard.count);
  const to = Math.floor((shard.index * items.length) / shard.count);
  return items.slice(from, to);
}

export interface SelectionResult<T> {
  instances: T[];
  /** requested ids that are not in the dataset */
  unknownIds: string[];
  /** requested repos that no instance of the dataset belongs to */
  unknownRepos: string[];
}

export class SelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectionError';
  }
}

/** Turns a glob or `/regex/flags` into a RegExp that must match the whole id (globs) or anywhere (regexes). */
export function instancePattern(pattern: string): RegExp {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1]!, regex[2]);
    } catch (err) {
      throw new SelectionError(`invalid instance pattern ${pattern}: ${(err as Error).message}`);
    }
  }
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) {
        source += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
      if (body.startsWith('!')) body = '^' + body.slice(1);
      source += `[${body}]`;
      i = close;
    } else source += c.replace(/[.+^${}()|\\/\]]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function selectInstances<T extends { instance_id: string; repo: string }>(
  instances: readonly T[],
  selection: InstanceSelection = {},
): SelectionResult<T> {
  if (selection.limit !== undefined && (!Number.isInteger(selection.limit) || selection.limit < 0)) {
    throw new SelectionError(`invalid limit ${selection.limit}: expected a whole number ≥ 0`);
  }
  let selected = [...instances];
  let unknownIds: string[] = [];
  let unknownRepos: string[] = [];

  if (selection.ids && selection.ids.length > 0) {
    const wanted = new Set(selection.ids);
    const present = new Set(instances.map((i) => i.instance_id));
    unknownIds = [...wanted].filter((id) => !present.has(id));
    selected = selected.filter((i) => wanted.has(i.instance_id));
  }
  if (selection.pattern !== undefined && selection.pattern !== '') {
    const regex = instancePattern(selection.pattern);
    selected = selected.filter((i) => regex.test(i.instance_id));
  }
  if (selection.repos && selection.repos.length > 0) {
    const matches = (repo: string, wanted: string): boolean => repo === wanted || (!wanted.includes('/') && repo.split('/')[1] === wanted);
    unknownRepos = selection.repos.filter((wanted) => !instances.some((i) => matches(i.repo, wanted)));
    selected = selected.filter((i) => selection.repos!.some((wanted) => matches(i.repo, wanted)));
  }
  if (selection.limit !== undefined) selected = selected.slice(0, selection.limit);
  // shards are cut from the selection grouped by repository (dataset order within one), so each node gets few
  // repositories and builds few indexes and environment images; Lite's file order interleaves them
  if (selection.shard) selected = shardOf(byRepository(selected), selection.shard);
  return { instances: selected, unknownIds, unknownRepos };
}
