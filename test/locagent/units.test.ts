/**
 * The LocAgent pieces on their own: the text function-call format (parse, coerce, describe), the answer
 * parser and reciprocal-rank merge, and the graph tools' outputs (SearchEntity by id, name, `Class.method`
 * and BM25 content; line context; TraverseGraph by name; RetrieveEntity; test files left out).
 */
import { describe, expect, it } from 'vitest';
import { buildRepoGraph } from '../../src/index/graph/repo-graph.ts';
import { GraphTools, globToRegExp } from '../../src/index/graph/tools.ts';
import { coerceArgs, describeTools, parseReply } from '../../localizer/locagent/fn-call.ts';
import { mergeByReciprocalRank, parseAnswer } from '../../localizer/locagent/answer.ts';
import { TOOL_SPECS } from '../../localizer/locagent/tools.ts';
import { SHOP_FILES, shopSnapshot, toolCall } from './fixture.ts';

const spec = (name: string) => TOOL_SPECS.find((t) => t.name === name)!;

describe('text function calls', () => {
  it('parses a call with the thought before it, with or without the closing tag', () => {
    const text = toolCall('search_code_snippets', { search_terms: ['Cart', 'total'] }, 'Let me look.');
    expect(parseReply(text)).toEqual({ thought: 'Let me look.', call: { name: 'search_code_snippets', params: { search_terms: '["Cart","total"]' } } });
    // the stop word `</function` cut the reply
    expect(parseReply('<function=get_entity_contents>\n<parameter=entity_names>\nshop/cart.py\n</parameter>\n').call).toEqual({
      name: 'get_entity_contents',
      params: { entity_names: 'shop/cart.py' },
    });
    expect(parseReply('no call here').call).toBeUndefined();
    expect(parseReply('<function=>oops').malformed).toMatch(/function name/);
  });

  it('coerces arrays (JSON, single quotes, lines), integers and enums; names what is wrong', () => {
    expect(coerceArgs(spec('search_code_snippets'), { search_terms: "['a', 'b']", line_nums: '[3, 4]' })).toEqual({
      ok: true,
      args: { search_terms: ['a', 'b'], line_nums: [3, 4] },
    });
    expect(coerceArgs(spec('get_entity_contents'), { entity_names: 'x.py\ny.py' })).toEqual({ ok: true, args: { entity_names: ['x.py', 'y.py'] } });
    expect(coerceArgs(spec('explore_tree_structure'), { start_entities: '["a"]', direction: 'sideways' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('downstream'),
    });
    expect(coerceArgs(spec('explore_tree_structure'), { direction: 'upstream' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('start_entities'),
    });
    expect(coerceArgs(spec('explore_tree_structure'), { start_entities: 'a', traversal_depth: 'two' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('integer'),
    });
    expect(coerceArgs(spec('get_entity_contents'), { entity_names: 'a', colour: 'red' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('colour'),
    });
  });

  it("describes tools in LocAgent's layout", () => {
    const text = describeTools([spec('explore_tree_structure')]);
    expect(text).toContain('---- BEGIN FUNCTION #1: explore_tree_structure ----');
    expect(text).toContain('(1) start_entities (array of string, required)');
    expect(text).toContain('Allowed values: [`downstream`, `upstream`, `both`]');
  });
});

describe('final answers', () => {
  const files = Object.keys(SHOP_FILES);
  it('keeps the named repository files in order of mention with their entities; drops tests and unknown files', () => {
    const answer = parseAnswer(
      'I am done.\n```\nshop/pricing.py\nfunction: apply_discount\n\nshop/cart.py\nfunction: Cart.total()\nline: 11\n\ntests/test_cart.py\nfunction: test_total\n\nshop/missing.py\nclass: Nope\n```',
      files,
    );
    expect(answer.files).toEqual(['shop/pricing.py', 'shop/cart.py']);
    expect(answer.entities).toEqual([
      { path: 'shop/pricing.py', name: 'apply_discount' },
      { path: 'shop/cart.py', name: 'Cart.total' },
    ]);
    expect(answer.ignored).toEqual(expect.arrayContaining(['tests/test_cart.py', 'shop/missing.py']));
  });

  it('merges samples by the sum of reciprocal ranks, ties by first appearance', () => {
    const merged = mergeByReciprocalRank(
      [
        ['a', 'b', 'c'],
        ['b', 'd'],
      ],
      (x) => x,
    );
    expect(merged.map((m) => m.item)).toEqual(['b', 'a', 'd', 'c']);
    expect(merged[0]!.score).toBeCloseTo(1.5);
  });
});

describe('graph tools', async () => {
  const snapshot = shopSnapshot();
  const { graph } = await buildRepoGraph(snapshot);
  const tools = new GraphTools(graph, snapshot);

  it('shows an entity id whole, names as previews, `Class.method` by its method; counts what it showed', async () => {
    const byId = await tools.searchCodeSnippets({ searchTerms: ['shop/pricing.py:apply_discount'] });
    expect(byId).toContain('##Searching for term "shop/pricing.py:apply_discount"...\n### Search Result:\nFound function `shop/pricing.py:apply_discount`.');
    expect(byId).toContain('Source: Exact match found for entity name `shop/pricing.py:apply_discount`.');
    expect(byId).toContain('5 |     rate = DISCOUNTS.get(code, 0)');
    const byName = await tools.searchCodeSnippets({ searchTerms: ['Cart.total', 'summary'] });
    expect(byName).toContain('Found function `shop/cart.py:Cart.total`.\nSource: Match found for entity name `total`.');
    expect(byName).toContain('Found function `shop/report.py:summary`.');
    expect(tools.shown.get('shop/cart.py:Cart.total')).toBe(1);
  });

  it('falls back to BM25 over entity contents, limits by pattern, and refuses test files', async () => {
    const content = await tools.searchCodeSnippets({ searchTerms: ['DISCOUNTS rate'] });
    expect(content).toContain('Found function `shop/pricing.py:apply_discount`.\nSource: Retrieved entity using keyword search (bm25).');
    // inside the pattern no entity is named `total`: the keyword search finds the code that uses it
    const limited = await tools.searchCodeSnippets({ searchTerms: ['total'], filePattern: 'shop/report.py' });
    expect(limited).toContain('Found function `shop/report.py:summary`.\nSource: Retrieved entity using keyword search (bm25).');
    expect(limited).not.toContain('shop/cart.py');
    expect(await tools.searchCodeSnippets({ searchTerms: ['zebra'] })).toContain('No locations found.');
    expect(await tools.searchCodeSnippets({ searchTerms: ['tests/test_cart.py'] })).toContain('No results for test files');
    expect(await tools.searchCodeSnippets({ searchTerms: ['apply_discount'], filePattern: 'nowhere/**' })).toContain(
      "No files found for file pattern 'nowhere/**'",
    );
  });

  it('builds the keyword index once per graph: a second sample on the same graph reads no files for it', async () => {
    const counting = shopSnapshot();
    const { graph: shared } = await buildRepoGraph(counting);
    let reads = 0;
    const readFiles = counting.readFiles.bind(counting);
    counting.readFiles = (paths) => {
      reads++;
      return readFiles(paths);
    };
    const first = await new GraphTools(shared, counting).searchCodeSnippets({ searchTerms: ['DISCOUNTS rate'] });
    const second = await new GraphTools(shared, counting).searchCodeSnippets({ searchTerms: ['DISCOUNTS rate'] });
    expect(second).toBe(first);
    expect(reads).toBe(1);
  });

  it('shows lines around a line number with their entity', async () => {
    const out = await tools.searchCodeSnippets({ lineNums: [11], filePattern: 'shop/cart.py' });
    expect(out).toContain('Found code snippet in `shop/cart.py:Cart.total` (lines 1-12)');
    expect(out).toContain('11 |         return apply_discount(amount, self.code)');
    expect(await tools.searchCodeSnippets({ lineNums: [99], filePattern: 'shop/cart.py' })).toContain('outside');
  });

  it('traverses from a name and retrieves entity contents by id', async () => {
    const tree = await tools.exploreTreeStructure({ startEntities: ['total'], edgeTypes: ['invokes'], depth: 1 });
    expect(tree).toBe('shop/cart.py:Cart.total\n└── invokes ── shop/pricing.py:apply_discount');
    expect(await tools.exploreTreeStructure({ startEntities: ['nothing_like_it'] })).toContain('is not in the graph');
    const contents = await tools.getEntityContents(['shop/report.py:summary', 'total']);
    expect(contents).toContain('Found function `shop/report.py:summary`.');
    expect(contents).toContain('Invalid name `total`. Entities with that name:\n- shop/cart.py:Cart.total');
  });

  it('globs like LocAgent patterns', () => {
    expect(globToRegExp('**/*.py').test('a/b/c.py')).toBe(true);
    expect(globToRegExp('**/*.py').test('c.py')).toBe(true);
    expect(globToRegExp('shop/*.py').test('shop/x/y.py')).toBe(false);
    expect(globToRegExp('shop').test('shop/cart.py')).toBe(true);
  });
});
