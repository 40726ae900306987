/**
 * Where retrieval misses, by what the issue names of the gold file (issue 44): the categories BENCHMARKS.md
 * reports for Lite-274 and the development sets.
 */
import { describe, expect, it } from 'vitest';
import { missCategory, missTable } from '../../scripts/retrieval-miss-categories.ts';

describe('miss categories', () => {
  it('tells a named path or module from a stem named as a word and from nothing named', () => {
    expect(missCategory('Crash in django/db/models/query.py', ['django/db/models/query.py'])).toBe('path or module named');
    expect(missCategory('see query.py', ['django/db/models/query.py'])).toBe('path or module named');
    expect(missCategory('import django.db.models.query fails', ['django/db/models/query.py'])).toBe('path or module named');
    expect(missCategory('the query is slow', ['django/db/models/query.py'])).toBe('stem named as a word');
    expect(missCategory('a queryset is slow', ['django/db/models/query.py'])).toBe('never named');
    expect(missCategory('anything', ['a.py', 'b.py'])).toBe('multi-file fix');
  });

  it('counts each category’s rows found at rank 1 and within 5; a row without a gold file is in none', () => {
    const table = missTable([
      { issue: 'the query is slow', gold: ['pkg/query.py'], ranking: ['pkg/query.py'] },
      { issue: 'the query is slow', gold: ['pkg/query.py'], ranking: ['x', 'y', 'pkg/query.py'] },
      { issue: 'nothing here', gold: ['pkg/query.py'], ranking: undefined },
      // before: counted as "path or module named", since every text contains the empty name
      { issue: 'no patch files', gold: [], ranking: ['x'] },
    ]);
    expect(table).toEqual([
      { category: 'stem named as a word', rows: 2, top1: 1, top5: 2 },
      { category: 'never named', rows: 1, top1: 0, top5: 0 },
    ]);
  });
});
