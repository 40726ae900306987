import { describe, expect, it } from 'vitest';
import { codeTokens, forEachCodeToken, modulePathOf, type TokenKind } from '../../src/text/code-tokens.ts';

function kinds(text: string): [string, TokenKind][] {
  const out: [string, TokenKind][] = [];
  forEachCodeToken(text, (t, k) => out.push([t, k]));
  return out;
}

describe('code tokens', () => {
  it('keeps identifiers whole and adds their snake_case parts', () => {
    expect(kinds('bulk_create')).toEqual([
      ['bulk_create', 'identifier'],
      ['bulk', 'part'],
      ['create', 'part'],
    ]);
  });

  it('splits camelCase, capital runs and digits', () => {
    expect(codeTokens('HTTPResponseError')).toEqual(['httpresponseerror', 'http', 'response', 'error']);
    expect(codeTokens('getHTTPResponse')).toEqual(['gethttpresponse', 'get', 'http', 'response']);
    expect(codeTokens('base64encode')).toEqual(['base64encode', 'base', 'encode']);
    expect(codeTokens('utf8')).toEqual(['utf8', 'utf']);
  });

  it('drops stopwords, one-letter tokens and pure numbers, also as parts', () => {
    expect(codeTokens('the value is x and 42 or None')).toEqual(['value']);
    expect(codeTokens('is_valid')).toEqual(['is_valid', 'valid']);
    expect(codeTokens('def self return import')).toEqual([]);
  });

  it('keeps dotted names whole and by part, without a self/cls receiver', () => {
    expect(kinds('QuerySet.bulk_create')).toEqual([
      ['queryset.bulk_create', 'dotted'],
      ['queryset', 'identifier'],
      ['query', 'part'],
      ['set', 'part'],
      ['bulk_create', 'identifier'],
      ['bulk', 'part'],
      ['create', 'part'],
    ]);
    expect(codeTokens('self.assertEqual')).toEqual(['assertequal', 'equal']);
    expect(codeTokens('version 1.11.2')).toEqual(['version']);
    // a sentence-final period is punctuation, not a dotted name
    expect(codeTokens('Models.')).toEqual(['models']);
  });

  it('turns paths into whole path, suffixes, module name, segments and stem', () => {
    expect(kinds('django/db/models/query.py')).toEqual([
      ['django/db/models/query.py', 'path'],
      ['db/models/query.py', 'path'],
      ['models/query.py', 'path'],
      ['django.db.models.query', 'dotted'],
      ['django', 'identifier'],
      ['db', 'identifier'],
      ['models', 'identifier'],
      ['query', 'identifier'],
    ]);
  });

  it('lets a traceback path meet the repository-relative path', () => {
    const tokens = codeTokens('File "/usr/lib/python3.9/site-packages/requests/models.py", line 12, in prepare');
    expect(tokens).toContain('requests/models.py');
    expect(tokens).toContain('site');
    expect(tokens).toContain('packages');
    expect(tokens).toContain('prepare');
    expect(tokens).not.toContain('12');
  });

  it('names modules of Python paths', () => {
    expect(modulePathOf('django/db/models/query.py')).toBe('django.db.models.query');
    expect(modulePathOf('pkg/sub/__init__.py')).toBe('pkg.sub');
    expect(modulePathOf('README.md')).toBeUndefined();
  });

  it('treats non-ASCII letters as separators and never throws on odd input', () => {
    // "ve" is a stopword ("I've")
    expect(codeTokens('naïve_value')).toEqual(['na', 've_value', 'value']);
    expect(codeTokens('')).toEqual([]);
    expect(codeTokens('./.../// -- __ .')).toEqual([]);
  });
});
