import { describe, expect, it } from 'vitest';
import { instancePattern, selectInstances, SelectionError } from '../../src/dataset/select.ts';

const instances = [
  { instance_id: 'django__django-11099', repo: 'django/django' },
  { instance_id: 'psf__requests-863', repo: 'psf/requests' },
  { instance_id: 'django__django-11133', repo: 'django/django' },
  { instance_id: 'sympy__sympy-20590', repo: 'sympy/sympy' },
  { instance_id: 'django__django-12453', repo: 'django/django' },
];
const ids = (r: { instances: { instance_id: string }[] }): string[] => r.instances.map((i) => i.instance_id);

describe('selectInstances', () => {
  it('returns everything without a selection', () => {
    expect(ids(selectInstances(instances))).toEqual(instances.map((i) => i.instance_id));
  });

  it('keeps dataset order for ids and reports unknown ids', () => {
    const result = selectInstances(instances, { ids: ['sympy__sympy-20590', 'nope-1', 'django__django-11099'] });
    expect(ids(result)).toEqual(['django__django-11099', 'sympy__sympy-20590']);
    expect(result.unknownIds).toEqual(['nope-1']);
  });

  it('matches globs on the whole id and /regex/ anywhere', () => {
    expect(ids(selectInstances(instances, { pattern: 'django__django-111*' }))).toEqual(['django__django-11133']);
    expect(ids(selectInstances(instances, { pattern: 'django__django-11?99' }))).toEqual(['django__django-11099']);
    expect(ids(selectInstances(instances, { pattern: '*-1[12]*' }))).toEqual(['django__django-11099', 'django__django-11133', 'django__django-12453']);
    expect(ids(selectInstances(instances, { pattern: 'django' }))).toEqual([]); // globs match whole ids
    expect(ids(selectInstances(instances, { pattern: '/requests|sympy/' }))).toEqual(['psf__requests-863', 'sympy__sympy-20590']);
    expect(ids(selectInstances(instances, { pattern: '/^DJANGO.*53$/i' }))).toEqual(['django__django-12453']);
    expect(instancePattern('a.b+c').test('a.b+c')).toBe(true);
    expect(instancePattern('a.b+c').test('axb+c')).toBe(false);
    expect(() => instancePattern('/(/')).toThrow(SelectionError);
  });

  it('filters by repo (owner/name or name) and reports unknown repos', () => {
    const result = selectInstances(instances, { repos: ['requests', 'sympy/sympy', 'pallets/flask'] });
    expect(ids(result)).toEqual(['psf__requests-863', 'sympy__sympy-20590']);
    expect(result.unknownRepos).toEqual(['pallets/flask']);
  });

  it('applies the limit last', () => {
    expect(ids(selectInstances(instances, { repos: ['django/django'], limit: 2 }))).toEqual(['django__django-11099', 'django__django-11133']);
    expect(ids(selectInstances(instances, { limit: 0 }))).toEqual([]);
    expect(() => selectInstances(instances, { limit: -1 })).toThrow(/invalid limit -1/);
  });

  it('combines ids, pattern and repos', () => {
    const result = selectInstances(instances, { ids: ['django__django-11099', 'django__django-12453', 'psf__requests-863'], pattern: 'django*', limit: 5 });
    expect(ids(result)).toEqual(['django__django-11099', 'django__django-12453']);
  });
});
