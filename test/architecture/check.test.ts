/**
 * The architecture check over locfix itself (no upward import, no import cycle, no oversized file) and over
 * small trees written here, so a check that never finds anything would fail too.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkArchitecture,
  cyclesOf,
  flagsOutsideTable,
  freeErrorKinds,
  gluedErrors,
  importsOf,
  roomOf,
  versionsOutsideTable,
} from '../../scripts/check-architecture.ts';
import { existsSync } from 'node:fs';
import { restatedNames } from '../../scripts/declared-names.ts';
import { FUNCTION_DEBTS, functionLengthProblems, longFunctions, MAX_FUNCTION_LINES } from '../../scripts/function-length.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-arch-'));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

describe('locfix itself', () => {
  it('has no upward import, no crossed seam, no import cycle and no file over the size limit', () => {
    expect(checkArchitecture(ROOT).map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
  });

  it('lists only long functions of files that exist (a debt of a deleted file leaves the list too)', () => {
    for (const key of Object.keys(FUNCTION_DEBTS)) expect(existsSync(path.join(ROOT, key.slice(0, key.lastIndexOf(':'))))).toBe(true);
  });
});

describe('names declared once', () => {
  it('refuses a list or union of backend or localizer names written out again, not a list of another vocabulary', async () => {
    const text = [
      "const kinds = ['local', 'bwrap'] as const;",
      "type B = 'docker-pool' | 'local';",
      "const one = ['local'];",
      "const tools = ['blagent', 'locagent', 'agentless', 'predictions'];",
      "const three = ['retrieval', 'blagent', 'cascade'];",
      "// ['local', 'bwrap'] in a comment",
    ].join('\n');
    expect(restatedNames('app/x.ts', text).map((r) => r.line)).toEqual([1, 2, 5]);
    expect(restatedNames('src/sandbox/types.ts', text).map((r) => r.line)).toEqual([5]);
    const dir = await tree({ 'app/commands/sweep.ts': "export const BACKENDS = ['local', 'docker-pool', 'bwrap'];\n" });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['restated-names']);
  });
});

describe('function length', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const fn = (name: string, n: number) => `export function ${name}() {\n${body(n - 2)}\n}\n`;

  it('counts a function from its first to its last line, and names an anonymous one by what holds it', () => {
    const text = `${fn('short', MAX_FUNCTION_LINES)}${fn('long', MAX_FUNCTION_LINES + 1)}export const arrow = () => {\n${body(90)}\n};\nfunction outer() {\n  cmd.action(async () => {\n${body(85)}\n  });\n}\n`;
    expect(longFunctions('src/x.ts', text).map((f) => [f.key, f.lines])).toEqual([
      ['src/x.ts:long', MAX_FUNCTION_LINES + 1],
      ['src/x.ts:arrow', 92],
      ['src/x.ts:outer', 89],
    ]);
  });

  it("refuses a new long function and a grown debt, asks to remove a paid one, and spares benchmarks' main", () => {
    const found = [
      { key: 'src/a.ts:fresh', line: 1, lines: 90 },
      { key: 'src/b.ts:old', line: 5, lines: 120 },
      { key: 'scripts/bench-x.ts:main', line: 1, lines: 300 },
    ];
    const debts = { 'src/b.ts:old': 100, 'src/c.ts:paid': 90, 'src/gone.ts:f': 95 };
    const problems = functionLengthProblems(found, new Set(['src/a.ts', 'src/b.ts', 'src/c.ts', 'scripts/bench-x.ts']), debts);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^src\/a\.ts:1 fresh has 90 lines/);
    expect(problems[1]).toMatch(/^src\/b\.ts:5 old grew to 120 lines \(it was 100/);
    expect(problems[2]).toMatch(/^src\/c\.ts:paid is no longer over/);
  });

  it('is part of the architecture check', async () => {
    const dir = await tree({ 'src/util/long.ts': fn('long', 95) });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['long-function']);
  });
});

describe('architecture check', () => {
  it('reads static, re-export, side-effect and dynamic imports, relative ones only', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from './c.ts';",
      "import './side.ts';",
      "const d = await import('./d.ts');",
      "import { readFile } from 'node:fs/promises';",
    ].join('\n');
    expect(importsOf(text).map((i) => [i.specifier, i.line])).toEqual([
      ['./a.ts', 1],
      ['../b.ts', 2],
      ['./c.ts', 3],
      ['./side.ts', 4],
      ['./d.ts', 5],
    ]);
  });

  it('places files in the most specific room', () => {
    expect(roomOf('src/run/stage-runner.ts')).toBe('src/run');
    expect(roomOf('app/cli.ts')).toBe('app/cli.ts');
    expect(roomOf('app/engine/experiment.ts')).toBe('app/engine');
    expect(roomOf('localizer/blagent/index.ts')).toBe('localizer');
    expect(roomOf('src/nowhere/x.ts')).toBeUndefined();
  });

  it('finds cycles of any length', () => {
    const g = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c']]);
  });

  it('reports an upward import, a seam crossed, a cycle, an unplaced file and an oversized file', async () => {
    const dir = await tree({
      'src/util/low.ts': "import { x } from '../../localizer/high.ts';\nexport const y = x;\n",
      'localizer/high.ts': "import { y } from '../src/util/low.ts';\nexport const x = 1;\n",
      'src/parsing/a.ts': "import './b.ts';\n",
      'src/parsing/b.ts': "import './a.ts';\n",
      'src/mystery/z.ts': 'export {};\n',
      'repair/big.ts': 'const a = 1;\n'.repeat(401),
      'validation/run.ts': "import { DockerRuntime } from '../sandbox/docker/sandbox.ts';\n",
      'sandbox/docker/sandbox.ts': 'export class DockerRuntime {}\n',
      // one layer (services), but sandbox/ stands above src/: the whole picture forbids the arrow
      'src/index/uses-docker.ts': "import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';\n",
    });
    const kinds = checkArchitecture(dir).map((v) => [v.kind, v.message.split(' ')[0]]);
    expect(kinds).toContainEqual(['upward', 'src/util/low.ts:1']);
    expect(kinds).toContainEqual(['upward', 'src/index/uses-docker.ts:1']);
    expect(kinds).toContainEqual(['room-cycle', 'rooms']);
    expect(kinds).toContainEqual(['unplaced', 'src/mystery/z.ts']);
    expect(kinds).toContainEqual(['size', 'repair/big.ts']);
    expect(kinds).toContainEqual(['seam', 'validation/run.ts:1']);
    expect(
      checkArchitecture(dir)
        .filter((v) => v.kind === 'file-cycle')
        .map((v) => v.message),
    ).toContainEqual(expect.stringContaining('src/parsing/a.ts ↔ src/parsing/b.ts'));
  });

  it('refuses an error made by gluing a kind onto a plain Error (issue 43: typed errors)', async () => {
    expect(gluedErrors("const a = 1;\nthrow Object.assign(new Error('x'), { kind: 'k' });\nthrow new KindedError('k', 'x');")).toEqual([2]);
    const dir = await tree({ 'src/util/x.ts': "export const f = () => { throw Object.assign(new Error('no'), { kind: 'free-string' }); };\n" });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['glued-error']);
    // over line breaks too (three such throws had slipped past a line-by-line check)
    expect(gluedErrors("throw Object.assign(\n  new Error('x'),\n  { kind: 'k' },\n);")).toEqual([1]);
  });

  it('refuses an error kind given as a bare string instead of a name from ERROR_KINDS', async () => {
    expect(
      freeErrorKinds("throw new KindedError(ERROR_KINDS.noTests, 'x');\nthrow new KindedError(\n  'made-up', 'x');\n// new KindedError('in a comment')"),
    ).toEqual([2]);
    const dir = await tree({ 'src/util/x.ts': "export const f = () => { throw new KindedError('free-string', 'no'); };\n" });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['free-error-kind']);
  });

  it("refuses a comparison with a harness release's version outside the release table (grading asks switches)", async () => {
    expect(versionsOutsideTable("if (rules.harness === '4.1') x;\nconst y = '5.0.2' !== z;\n// if (h === '4.1')\nconst label = '4.1';\n")).toEqual([1, 2]);
    const dir = await tree({
      'validation/grade.ts': "export const old = (h: string) => h !== '4.1';\n",
      'src/languages/harness-releases.ts': "export const isDefault = (h: string) => h === '5.0.2';\n",
    });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['version-outside-table']);
  });

  it('refuses a command-line flag declared outside the flag table (one vocabulary for every command)', async () => {
    expect(flagsOutsideTable("cmd\n  .option('--out <dir>', 'x')\n  .requiredOption(\n    '--to <f>', 'y');\nuseFlags(cmd, ['out']);")).toEqual([2, 3]);
    const dir = await tree({
      'app/commands/mine.ts': "export const f = (c: { option(a: string, b: string): void }) => c.option('--mine <x>', 'mine');\n",
      'app/commands/flag-table.ts': "export const g = (c: { option(a: string, b: string): void }) => c.option('--out <dir>', 'the table');\n",
    });
    expect(checkArchitecture(dir).map((v) => v.kind)).toEqual(['flag-outside-table']);
  });
});
