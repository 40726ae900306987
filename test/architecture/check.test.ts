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
