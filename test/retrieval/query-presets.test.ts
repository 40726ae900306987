/**
 * The query presets (issue 44): the title query is the issue's first line when it reads like a summary; the prose
 * query is the issue without its code, logs and tracebacks; presets name which queries a run asks, and the
 * localizer's options accept exactly the presets there are.
 */
import { describe, expect, it } from 'vitest';
import { defaultQueries, proseQuery, QUERY_PRESETS, titleQuery } from '../../localizer/retrieval/query.ts';
import { RetrievalOptionsSchema } from '../../localizer/retrieval/localizer.ts';

const issue = [
  'QuerySet.bulk_create ignores batch_size on SQLite',
  '',
  'When I call bulk_create with a batch size the whole list is sent in one statement.',
  '```python',
  'Model.objects.bulk_create(objs, batch_size=10)',
  '```',
  'Traceback (most recent call last):',
  '  File "/app/models.py", line 3, in <module>',
  '    do()',
  'See https://example.com/ticket/1 for the log.',
].join('\n');

describe('query presets', () => {
  it('takes the first line as the title only when a body follows and it reads like a summary', () => {
    expect(titleQuery(issue)).toEqual({ label: 'title', text: 'QuerySet.bulk_create ignores batch_size on SQLite' });
    expect(titleQuery('# Crash in the parser\nbody')).toEqual({ label: 'title', text: 'Crash in the parser' });
    expect(titleQuery('one line only, no body at all')).toBeUndefined();
    // lines of whitespace are no body either, and a CRLF line end is not part of the title
    for (const blank of ['\n\n', '\r\n  \r\n', '\n\t\n \n']) expect(titleQuery(`Crash in the parser${blank}`)).toBeUndefined();
    expect(titleQuery('Crash in the parser\r\nwhen the input is empty')).toEqual({ label: 'title', text: 'Crash in the parser' });
    expect(titleQuery('Bug\nbody')).toBeUndefined(); // too short to summarize anything
  });

  it('keeps the prose: no code block, traceback, indented line or URL', () => {
    const prose = proseQuery(issue)!.text;
    expect(prose).toContain('When I call bulk_create with a batch size');
    for (const gone of ['Model.objects', 'Traceback', 'File "/app/models.py"', 'do()', 'https://']) expect(prose).not.toContain(gone);
    // nothing to leave out: it would only repeat the raw query
    expect(proseQuery('A plain description of what goes wrong, in words only.')).toBeUndefined();
  });

  it('asks the queries each preset names, and the options accept every preset and no other', () => {
    const labels = (preset: (typeof QUERY_PRESETS)[number]) => defaultQueries(issue, preset).map((q) => q.label);
    expect(labels('raw+structural')).toEqual(['raw', 'structural']);
    expect(labels('raw+structural+title')).toEqual(['raw', 'structural', 'title']);
    expect(labels('raw+structural+title+prose')).toEqual(['raw', 'structural', 'title', 'prose']);
    for (const preset of QUERY_PRESETS) expect(RetrievalOptionsSchema.safeParse({ queries: preset }).success).toBe(true);
    expect(RetrievalOptionsSchema.safeParse({ queries: 'title' }).success).toBe(false);
  });
});
