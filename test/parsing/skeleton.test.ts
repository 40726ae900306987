import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentlessFileText, compressedSkeleton } from '../../src/parsing/compressed-skeleton.ts';
import { blagentSkeleton } from '../../src/parsing/blagent-skeleton.ts';
import { docSummary } from '../../src/parsing/skeleton-parts.ts';
import { prunedView } from '../../src/parsing/pruned-view.ts';

// Hand-written fixture: decorators (multi-line, with comments), nested classes, async functions,
// multi-line signatures, docstrings, module/class-level assignments, an if-block holding a method.
const WIDGETS = readFileSync(new URL('./fixtures/widgets.py', import.meta.url), 'utf8');

describe('blagentSkeleton', () => {
  it('lists classes with bases, decorators, joined signatures and first docstring sentences', () => {
    expect(blagentSkeleton(WIDGETS)).toBe(`"""Utilities for widgets."""
def helper(x): ...
@register(kind="widget")
@cached
class Widget(Base, metaclass=Meta):
    """A widget."""
    class Config:
        """Nested config."""
        def clean(self): ...
    def __init__(self, name: str = DEFAULT_NAME, *, parent: Optional["Widget"] = None, **extra: Any) -> None:
        """Create a widget."""
    @property
    def label(self) -> str: ...
    async def fetch(self, url): ...
    def windows_only(self): ...
def main():
    """Entry point."""
`);
  });

  it('can leave docstrings out and handles empty and broken files', () => {
    expect(blagentSkeleton('class A:\n    """Doc."""\n    def f(self, *a,\n          **k):\n        pass\n', undefined, { docstrings: false })).toBe(
      'class A:\n    def f(self, *a, **k): ...\n',
    );
    expect(blagentSkeleton('')).toBe('');
    expect(blagentSkeleton('def ok(a):\n    return a\n\ndef broken(:\n')).toContain('def ok(a): ...');
  });

  it('shortens docstrings to the first sentence of the first paragraph, at most 100 characters', () => {
    expect(docSummary('\n    Return the thing. Then more.\n\n    Details.\n')).toBe('Return the thing.');
    expect(docSummary('Spans\n    two lines without a stop\n\nsecond paragraph')).toBe('Spans two lines without a stop');
    expect(docSummary('x'.repeat(150))).toBe(`${'x'.repeat(97)}...`);
    expect(docSummary('version 1.2 is fine. Next')).toBe('version 1.2 is fine.');
  });
});

// compressedSkeleton was also compared byte for byte with Agentless' own get_skeleton (libcst 1.0.1) on
// every non-test file of django, requests, pylint and sphinx: identical wherever libcst parses the file.
describe('compressedSkeleton (Agentless get_skeleton with compress_assign)', () => {
  it('keeps classes, functions and plain assignments; bodies become an unindented "..."', () => {
    expect(compressedSkeleton(WIDGETS)).toBe(`#!/usr/bin/env python
# Copyright header.

DEFAULT_NAME = "widget"
counter = 0


def helper(x):
...


# Section: widgets
@register(
    kind="widget",  # the kind
)
@cached
class Widget(Base, metaclass=Meta):

    size = 3

    class Config:
        ordering = ["id"]

        def clean(self):
...

    def __init__(self, name: str = DEFAULT_NAME,
                 *, parent: Optional["Widget"] = None,  # parent widget
                 **extra: Any) -> None:
...

    @property
    def label(self) -> str:
...

    async def fetch(self, url):
...

    if os.name == "nt":
        def windows_only(self):
...


def main():
...
`);
  });

  it('shortens assignments longer than 30 lines to their first and last 10 lines', () => {
    const entries = Array.from({ length: 40 }, (_, i) => `    "k${i}": ${i},`);
    const rows = Array.from({ length: 35 }, (_, i) => `        ${i},`);
    const source = [
      '"""Doc."""',
      'import re',
      '',
      '',
      'TABLE = {',
      ...entries,
      '}',
      '',
      '',
      'class K:',
      '    ROWS = [',
      ...rows,
      '    ]',
      '    SMALL = [',
      '        1,',
      '    ]',
      '',
    ].join('\n');
    const lines = compressedSkeleton(source).split('\n');
    // TABLE spans compressed lines 3..44 → lines 13..34 become "..."
    expect(lines.slice(0, 14)).toEqual(['', '', 'TABLE = {', ...entries.slice(0, 9), '...', '    "k31": 31,']);
    expect(lines.slice(14, 23)).toEqual([...entries.slice(32), '}']);
    const rowsStart = lines.indexOf('    ROWS = [');
    expect(lines.slice(rowsStart, rowsStart + 24)).toEqual([
      '    ROWS = [',
      ...rows.slice(0, 9),
      '...',
      ...rows.slice(26),
      '    ]',
      '    SMALL = [',
      '        1,',
      '    ]',
    ]);
    expect(compressedSkeleton(source, undefined, { compressAssign: false }).split('\n')).toHaveLength(2 + 42 + 2 + 1 + 37 + 3);
  });

  it('reproduces libcst on emptied classes, one-line class bodies and the missing final newline', () => {
    // expected strings are Agentless get_skeleton(..., compress_assign=True) outputs under libcst
    const source = 'class Empty:\n    """Only docs."""\n\nclass Short: x = 1\n\nclass F:\n    f"{x}"\n    def g(self): return 1\n';
    expect(compressedSkeleton(source)).toBe('class Empty:\n    pass\n\nclass Short:\nx = 1\nclass F:\n    f"{x}"\n    def g(self):\n...');
    expect(compressedSkeleton('class Banana: x = 1\nclass C: y = foo(2)\n')).toBe('class Banana:\nx = 1class C:\ny = foo(2');
    expect(compressedSkeleton('X = 1\n\n')).toBe('X = 1\n');
    expect(compressedSkeleton('X = 1\n\n\n')).toBe('X = 1\n\n');
  });

  it('returns unparseable and Python 2 source as Agentless reads it, and keeps a comment-only file', () => {
    expect(compressedSkeleton('def f(:\r\n    return 1\r\n')).toBe('def f(:\n    return 1');
    expect(compressedSkeleton('def f():\n    print "hi"\n')).toBe('def f():\n    print "hi"');
    expect(compressedSkeleton('# only\n# comments\n')).toBe('# only\n# comments\n');
    expect(agentlessFileText('a\r\nb\fc\u2028d\n')).toBe('a\nb\nc\nd');
    expect(compressedSkeleton('')).toBe('');
    expect(compressedSkeleton('def f():\r\n    return 1\r\n')).toBe('def f():\n...\n');
  });
});

describe('prunedView (BLAgent EAR)', () => {
  it('expands only the functions overlapping anchors and keeps the structure around them', () => {
    const view = prunedView(WIDGETS, [
      { startLine: 44, endLine: 44 }, // inside Config.clean
      { startLine: 73, endLine: 74 }, // inside main
    ]);
    expect(view.text).toBe(`...
from __future__ import annotations
import os
from typing import (
    Any,
    Optional,
)
DEFAULT_NAME = "widget"
LIMIT: int = 10
counter = 0
counter += 1
try:
    import json
except ImportError:  # pragma: no cover
    json = None
def helper(x):
    ...
@register(
    kind="widget",  # the kind
)
@cached
class Widget(Base, metaclass=Meta):
    ...
    size = 3
    class Config:
        ...
        ordering = ["id"]
        def clean(self):
            pass
    def __init__(self, name: str = DEFAULT_NAME,
                 *, parent: Optional["Widget"] = None,  # parent widget
                 **extra: Any) -> None:
        ...
    @property
    def label(self) -> str:
        ...
    async def fetch(self, url):
        ...
    if os.name == "nt":
        def windows_only(self):
            ...
def main():
    """Entry point."""
    widget = Widget("a")
    print(widget.label)
...
`);
    expect(view.keptRanges).toEqual([
      { startLine: 7, endLine: 7 },
      { startLine: 9, endLine: 13 },
      { startLine: 15, endLine: 18 },
      { startLine: 20, endLine: 23 },
      { startLine: 26, endLine: 26 },
      { startLine: 31, endLine: 35 },
      { startLine: 38, endLine: 38 },
      { startLine: 40, endLine: 40 },
      { startLine: 42, endLine: 42 },
      { startLine: 44, endLine: 45 },
      { startLine: 47, endLine: 49 },
      { startLine: 57, endLine: 58 },
      { startLine: 61, endLine: 61 },
      { startLine: 67, endLine: 68 },
      { startLine: 72, endLine: 75 },
    ]);
    const source = WIDGETS.split('\n');
    view.text
      .split('\n')
      .slice(0, -1)
      .forEach((line, i) => {
        const original = view.lineNumbers[i];
        if (original === null) expect(line.trim()).toBe('...');
        else expect(line).toBe(source[original - 1]);
      });
  });

  it('expands an async method and a decorated method when an anchor touches their decorator or body', () => {
    const view = prunedView(WIDGETS, [
      { startLine: 57, endLine: 57 }, // @property of label
      { startLine: 63, endLine: 63 }, // inside fetch's async with
    ]);
    expect(view.text).toContain(`    @property
    def label(self) -> str:
        return self.name.title()
    async def fetch(self, url):
        # fetch it
        async with session(url) as response:
            return await response.read()
    if os.name == "nt":`);
    expect(view.text).toContain(
      '    def __init__(self, name: str = DEFAULT_NAME,\n                 *, parent: Optional["Widget"] = None,  # parent widget\n                 **extra: Any) -> None:\n        ...\n',
    );
  });

  it('shows only structure with no anchors, and module statements that an anchor overlaps', () => {
    const view = prunedView('import os\n\nsetup()\nrun()\n\ndef f():\n    return 1\n', [{ startLine: 4, endLine: 4 }]);
    expect(view.text).toBe('import os\n...\nrun()\ndef f():\n    ...\n');
    expect(view.lineNumbers).toEqual([1, null, 4, 6, null]);
    expect(prunedView('', []).text).toBe('');
  });
});
