import { describe, expect, it } from 'vitest';
import { buildRepairContext, contextIntervals, renderShownFile, splitLines } from '../../repair/context.ts';
import { renderPrompt } from '../../src/prompts.ts';
import { repairPrompt } from '../../repair/repair-instance.ts';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line${i + 1}`).join('\n') + '\n';

describe('contextIntervals', () => {
  it('widens by the window, clamps to the file and merges overlapping or touching ranges', () => {
    expect(contextIntervals([{ start: 5, end: 5 }], 100, 10)).toEqual([{ start: 1, end: 15 }]);
    expect(
      contextIntervals(
        [
          { start: 50, end: 52 },
          { start: 20, end: 20 },
        ],
        100,
        10,
      ),
    ).toEqual([
      { start: 10, end: 30 },
      { start: 40, end: 62 },
    ]);
    // 30 + 1 = 31 = next start: touching, merged
    expect(
      contextIntervals(
        [
          { start: 20, end: 20 },
          { start: 41, end: 41 },
        ],
        100,
        10,
      ),
    ).toEqual([{ start: 10, end: 51 }]);
    expect(contextIntervals([{ start: 95, end: 120 }], 100, 10)).toEqual([{ start: 85, end: 100 }]);
  });

  it('drops ranges outside the file and swaps reversed ones', () => {
    expect(
      contextIntervals(
        [
          { start: 200, end: 210 },
          { start: 0, end: 0 },
        ],
        100,
        10,
      ),
    ).toEqual([]);
    expect(contextIntervals([{ start: 30, end: 20 }], 100, 0)).toEqual([{ start: 20, end: 30 }]);
  });
});

describe('renderShownFile / buildRepairContext', () => {
  it('shows intervals without line numbers, `...` for every omitted part', () => {
    const content = numbered(10);
    expect(
      renderShownFile(content, [
        { start: 3, end: 4 },
        { start: 7, end: 8 },
      ]),
    ).toBe('...\nline3\nline4\n...\nline7\nline8\n...');
    expect(renderShownFile(content, [{ start: 1, end: 10 }])).toBe(splitLines(content).join('\n'));
    expect(
      renderShownFile(content, [
        { start: 1, end: 2 },
        { start: 9, end: 10 },
      ]),
    ).toBe('line1\nline2\n...\nline9\nline10');
  });

  it('builds `### path` sections in location order, pools ranges of a repeated file, skips files not in the snapshot', () => {
    const contents = new Map([
      ['pkg/a.py', numbered(40)],
      ['pkg/b.py', numbered(5)],
    ]);
    const ctx = buildRepairContext(
      {
        files: [
          { path: 'pkg/b.py', ranges: [{ start: 2, end: 2 }] },
          { path: 'pkg/a.py', ranges: [{ start: 20, end: 20 }] },
          { path: 'gone.py', ranges: [{ start: 1, end: 1 }] },
          { path: 'pkg/a.py', ranges: [{ start: 3, end: 3 }] },
        ],
      },
      contents,
      2,
    );
    expect(ctx.missing).toEqual(['gone.py']);
    expect(ctx.files.map((f) => [f.path, f.intervals])).toEqual([
      ['pkg/b.py', [{ start: 1, end: 4 }]],
      [
        'pkg/a.py',
        [
          { start: 1, end: 5 },
          { start: 18, end: 22 },
        ],
      ],
    ]);
    expect(ctx.text).toBe(
      '### pkg/b.py\nline1\nline2\nline3\nline4\n...\n\n\n### pkg/a.py\nline1\nline2\nline3\nline4\nline5\n...\nline18\nline19\nline20\nline21\nline22\n...',
    );
  });

  it('leaves out a file whose ranges are all outside it', () => {
    const ctx = buildRepairContext({ files: [{ path: 'a.py', ranges: [{ start: 99, end: 99 }] }] }, new Map([['a.py', 'x = 1\n']]));
    expect(ctx.files).toEqual([]);
    expect(ctx.text).toBe('');
  });
});

describe('prompts', () => {
  it('renders the repair prompt with the issue and the context, and never re-substitutes values', () => {
    const ctx = buildRepairContext({ files: [{ path: 'a.py', ranges: [{ start: 1, end: 1 }] }] }, new Map([['a.py', 'x = 1\n']]));
    const prompt = repairPrompt('  The {{code_context}} breaks.  ', ctx);
    expect(prompt).toContain('The {{code_context}} breaks.');
    expect(prompt).toContain('### a.py\nx = 1');
    expect(prompt).toContain('<<<<<<< SEARCH');
    expect(prompt).not.toMatch(/\{\{problem_statement\}\}/);
  });

  it('names missing variables and unknown templates', () => {
    expect(() => renderPrompt('repair', { problem_statement: 'x' })).toThrow(/\{\{code_context\}\}/);
    expect(() => renderPrompt('no-such-prompt', {})).toThrow(/not found/);
    expect(() => renderPrompt('../package', {})).toThrow(/invalid prompt name/);
  });
});
