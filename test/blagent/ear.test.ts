/** Phase 2 context: the exact pruned view EAR shows for fixture code, and the token budget guard. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEarPrompt, earView, fileBlock, type EarFile } from '../../localizer/blagent/ear.ts';
import { countTokens } from '../../src/llm/tokens.ts';

const SOURCE = `"""Event dispatch."""
import asyncio
from functools import wraps

RETRIES = 3


def retry(fn):
    """Retry a coroutine."""
    @wraps(fn)
    async def wrapper(*args, **kwargs):
        for attempt in range(RETRIES):
            try:
                return await fn(*args, **kwargs)
            except ConnectionError:
                await asyncio.sleep(attempt)
    return wrapper


class Dispatcher:
    """Routes events to handlers."""

    default_timeout = 5.0

    class Handler:
        def __init__(self, name, fn):
            self.name = name
            self.fn = fn

        def matches(self, event):
            return event.startswith(self.name)

    def __init__(self):
        self.handlers = []

    @retry
    async def dispatch(self, event, payload=None):
        for handler in self.handlers:
            if handler.matches(event):
                await handler.fn(payload)

    @property
    def count(self):
        return len(self.handlers)
`;

// anchors best first: the body of the async, decorated method; then the nested class's method
const FILE: EarFile = {
  path: 'events/dispatch.py',
  source: SOURCE,
  anchors: [
    { startLine: 38, endLine: 40 },
    { startLine: 31, endLine: 31 },
  ],
};

describe('EAR pruned view', () => {
  it('keeps imports, assignments, class headers and signatures; expands only the anchored functions, decorators included', () => {
    expect(fileBlock(FILE.path, earView(FILE, 5))).toBe(
      [
        '### events/dispatch.py',
        '```python',
        '...',
        'import asyncio',
        'from functools import wraps',
        'RETRIES = 3',
        'def retry(fn):',
        '    ...',
        'class Dispatcher:',
        '    ...',
        '    default_timeout = 5.0',
        '    class Handler:',
        '        def __init__(self, name, fn):',
        '            ...',
        '        def matches(self, event):',
        '            return event.startswith(self.name)',
        '    def __init__(self):',
        '        ...',
        '    @retry',
        '    async def dispatch(self, event, payload=None):',
        '        for handler in self.handlers:',
        '            if handler.matches(event):',
        '                await handler.fn(payload)',
        '    @property',
        '    def count(self):',
        '        ...',
        '```',
      ].join('\n'),
    );
  });

  it('expands only the first n anchors; signatures only with none; unreadable and non-Python files are marked', () => {
    const one = earView(FILE, 1);
    expect(one).toContain('await handler.fn(payload)');
    expect(one).not.toContain('return event.startswith');
    const none = earView(FILE, 0);
    expect(none).not.toContain('await handler.fn(payload)');
    expect(none).toContain('    async def dispatch(self, event, payload=None):\n        ...\n');
    expect(earView({ path: 'x.py', source: undefined, anchors: [] }, 5)).toBe('(file could not be read)\n');
    expect(earView({ path: 'setup.cfg', source: '[metadata]\nname = x', anchors: [] }, 5)).toBe('[metadata]\nname = x\n');
    expect(fileBlock('setup.cfg', 'a\n')).toBe('### setup.cfg\n```\na\n```');
  });
});

describe('EAR token budget', () => {
  const files: EarFile[] = [FILE, { ...FILE, path: 'events/other.py' }];
  let full: ReturnType<typeof buildEarPrompt>;
  beforeAll(() => {
    full = buildEarPrompt('Dispatch drops events.', files, { level: 'file', budgetTokens: 100_000, anchors: 5 });
  });

  it('fits without shrinking when under budget', () => {
    expect(full).toMatchObject({ anchorsUsed: 2, truncated: [], shrink: [] });
    expect(full.tokens).toBe(countTokens(full.prompt));
    expect(full.prompt).toContain('Answer with a JSON list of all 2 file paths');
  });

  it('expands fewer anchors first, taking them from the largest view', () => {
    const tight = buildEarPrompt('Dispatch drops events.', files, { level: 'file', budgetTokens: full.tokens - 1, anchors: 5 });
    expect(tight.tokens).toBeLessThanOrEqual(full.tokens - 1);
    expect(tight.tokens).toBe(countTokens(tight.prompt));
    // one anchor less in one file is enough here; the other file keeps both
    expect(tight.anchorsPerFile).toEqual([1, 2]);
    expect(tight.anchorsUsed).toBe(2);
    expect(tight.shrink).toEqual([`fewer anchors expanded to fit ${full.tokens - 1} tokens: events/dispatch.py 1 of 2`]);
    expect(tight.prompt.match(/return event\.startswith/g)).toHaveLength(1);
    // a larger file (longer path block, same code) loses its anchors before a smaller one
    const big: EarFile = {
      ...FILE,
      path: 'events/big.py',
      source: `${FILE.source}\nLOOKUP = {\n${Array.from({ length: 40 }, (_, i) => `    'k${i}': ${i},`).join('\n')}\n}\n`,
    };
    const pair = [FILE, big];
    const roomy = buildEarPrompt('Dispatch drops events.', pair, { level: 'file', budgetTokens: 100_000, anchors: 5 });
    const squeezed = buildEarPrompt('Dispatch drops events.', pair, { level: 'file', budgetTokens: roomy.tokens - 1, anchors: 5 });
    expect(squeezed.anchorsPerFile).toEqual([2, 1]);
    const none = buildEarPrompt('Dispatch drops events.', files, { level: 'file', budgetTokens: full.tokens - 60, anchors: 5 });
    expect(none.tokens).toBeLessThanOrEqual(full.tokens - 60);
    expect(none.prompt).not.toContain('return event.startswith');
  });

  it('shows a long assignment by its first line when asked', () => {
    const table: EarFile = {
      path: 'events/table.py',
      source: `import os\n\nLOOKUP = {\n${Array.from({ length: 8 }, (_, i) => `    'k${i}': ${i},`).join('\n')}\n}\nSHORT = (1,\n         2)\n`,
      anchors: [],
    };
    expect(earView(table, 0)).toContain("    'k7': 7,");
    expect(earView(table, 0, { maxAssignmentLines: 5 })).toBe('import os\nLOOKUP = {\n    ...\nSHORT = (1,\n         2)\n');
    // an anchored assignment is shown in full
    expect(earView({ ...table, anchors: [{ startLine: 5, endLine: 6 }] }, 1, { maxAssignmentLines: 5 })).toContain("    'k7': 7,");
  });

  it('then cuts every view to an equal share, at a line boundary', () => {
    const frame = buildEarPrompt('Dispatch drops events.', [], { level: 'file', budgetTokens: 100_000, anchors: 5 }).tokens;
    const tiny = buildEarPrompt('Dispatch drops events.', files, { level: 'function', budgetTokens: frame + 80, anchors: 5 });
    expect(tiny.truncated).toEqual(['events/dispatch.py', 'events/other.py']);
    expect(tiny.shrink[0]).toMatch(/^signatures only, 2 views cut to \d+ tokens each/);
    expect(tiny.prompt.match(/\.\.\. \(rest of the file left out\)\n```/g)).toHaveLength(2);
    expect(tiny.prompt).toContain('"<file path>::<Class>::<method>"');
    expect(tiny.tokens).toBeLessThanOrEqual(frame + 120);
  });
});
