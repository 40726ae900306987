/**
 * The architecture check: every code file belongs to a declared room, imports only rooms of its own layer
 * or below, takes part in no import cycle (between rooms or between files), and stays under the file-size
 * limit. `docs/architecture.md` explains the layers; this file is their source of truth, so a new folder
 * must be placed here before it can be imported from.
 *
 *   npm run check:architecture          prints the violations, exits 1 when there are any
 *
 * Imports are read as text (static `import`/`export … from` and dynamic `import('…')`, type-only included:
 * a type import is a dependency of the design too). Only relative specifiers are project imports.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HARNESS_VERSIONS } from '../src/languages/harness-releases.ts';
import { restatedNames } from './declared-names.ts';
import { functionLengthProblems, longFunctions, type LongFunction } from './function-length.ts';

/** Layers, top first. A room may import rooms of its own layer (without forming a cycle) or of lower ones. */
export const LAYERS: ReadonlyArray<{ name: string; rooms: readonly string[] }> = [
  { name: 'entry', rooms: ['bin', 'app/cli.ts'] },
  { name: 'surface', rooms: ['app/commands', 'scripts'] },
  { name: 'assembly', rooms: ['app/engine', 'app/cluster', 'app/view', 'app/services.ts'] },
  { name: 'analysis', rooms: ['results'] },
  { name: 'localizers', rooms: ['localizer'] },
  { name: 'stages', rooms: ['repair', 'validation'] },
  { name: 'services', rooms: ['src/config.ts', 'src/minibench', 'sandbox', 'src/index'] },
  { name: 'providers', rooms: ['src/embedding', 'src/vectorstore', 'src/llm', 'src/dataset', 'src/run', 'src/artifacts', 'src/sandbox', 'src/harness'] },
  {
    name: 'foundations',
    rooms: ['src/text', 'src/languages', 'src/parsing', 'src/repo', 'src/prompts.ts', 'src/util', 'src/patch.ts'],
  },
];

/**
 * The whole picture: the top-level folders, top first. What the layers allow inside one folder, this also asks
 * across folders: a folder imports only folders on its own floor or below, so `src/` is the foundation alone and
 * no arrow between two top-level folders points up (a folder both above and below another is what this forbids).
 */
export const FLOORS: ReadonlyArray<readonly string[]> = [
  ['bin'],
  ['app', 'scripts'],
  ['results'],
  ['localizer'],
  ['repair', 'validation'],
  ['sandbox'],
  ['src'],
];

/** Folders whose code is checked. test/ may import anything; scripts may import test/support (the scripted model). */
export const CODE_ROOTS = ['bin', 'app', 'src', 'localizer', 'repair', 'validation', 'sandbox', 'results', 'scripts'];
const ALLOWED_EXTRA: Record<string, readonly string[]> = { scripts: ['test'] };
/** Imports the layers would allow but a seam forbids, with the reason the message gives. */
export const FORBIDDEN: ReadonlyArray<{ from: string; to: string; why: string }> = [
  { from: 'validation', to: 'sandbox', why: 'validation runs code through the sandbox interface (src/sandbox/types.ts); the assembly picks the sandbox kind' },
];
export const MAX_FILE_LINES = 400;

export interface Violation {
  kind:
    | 'unplaced'
    | 'upward'
    | 'seam'
    | 'room-cycle'
    | 'file-cycle'
    | 'size'
    | 'glued-error'
    | 'free-error-kind'
    | 'flag-outside-table'
    | 'version-outside-table'
    | 'long-function'
    | 'restated-names';
  message: string;
}

const CODE_FILE = /\.(ts|js|mjs)$/;
const IMPORT =
  /(?:^|[^\w.])(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function listFiles(root: string, dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(path.join(root, dir));
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) listFiles(root, rel, out);
    else if (CODE_FILE.test(name) && !name.endsWith('.d.ts')) out.push(rel.split(path.sep).join('/'));
  }
}

/** The room of a repository-relative path: the longest declared room that is it or contains it. */
export function roomOf(file: string): string | undefined {
  let best: string | undefined;
  for (const layer of LAYERS) {
    for (const room of layer.rooms) {
      if ((file === room || file.startsWith(room + '/')) && (!best || room.length > best.length)) best = room;
    }
  }
  if (!best && file.startsWith('test/')) return 'test';
  return best;
}

const topFolder = (file: string): string => file.split('/')[0];
/** Whether an import from `file` to `target` points to a higher floor (a folder on no floor is never compared). */
function climbsFloors(file: string, target: string): boolean {
  const from = FLOORS.findIndex((floor) => floor.includes(topFolder(file)));
  const to = FLOORS.findIndex((floor) => floor.includes(topFolder(target)));
  return from >= 0 && to >= 0 && to < from;
}

const layerIndex = new Map(LAYERS.flatMap((layer, i) => layer.rooms.map((room) => [room, i] as const)));

/** Relative import specifiers of a source text, with their 1-based line numbers. */
export function importsOf(text: string): Array<{ specifier: string; line: number }> {
  const out: Array<{ specifier: string; line: number }> = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[1] ?? m[2] ?? m[3];
    if (!specifier?.startsWith('.')) continue;
    out.push({ specifier, line: text.slice(0, m.index + m[0].indexOf(specifier)).split('\n').length });
  }
  return out;
}

/** Strongly connected components with more than one node (Tarjan), each sorted. */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** Lines of code (not comments) that build an error by gluing properties onto a plain Error with Object.assign. */
/** Line numbers of `Object.assign(new Error(…), {kind})` (a kind glued on instead of KindedError), over line breaks too. */
export function gluedErrors(text: string): number[] {
  return matchLines(text, /Object\.assign\(\s*new Error\(/g);
}

/** Line numbers where an error kind is a bare string (`new KindedError('x', …)`) instead of a name from src/util/error-kinds.ts. */
export function freeErrorKinds(text: string): number[] {
  return matchLines(text, /new KindedError\(\s*['"`]/g);
}

/** The one file that declares the SWE-bench harness releases and their grading switches. */
export const RELEASE_TABLE = 'src/languages/harness-releases.ts';

/**
 * Line numbers where code compares a value with a harness release's version string (`rules.harness === '4.1'`):
 * grading and parsing ask the release's switches (RELEASE_TABLE) instead, so adding a release is one record.
 */
export function versionsOutsideTable(text: string): number[] {
  const version = HARNESS_VERSIONS.map((v) => v.replace(/\./g, '\\.')).join('|');
  return matchLines(text, new RegExp(`[!=]==?\\s*['"\`](?:${version})['"\`]|['"\`](?:${version})['"\`]\\s*[!=]==?`, 'g'));
}

/** The one file that declares command-line flags (every command takes its flags from its table). */
export const FLAG_TABLE = 'app/commands/flag-table.ts';

/** Line numbers where a command declares a flag itself (`.option(…)`, `.requiredOption(…)`, `new Option(…)`). */
export function flagsOutsideTable(text: string): number[] {
  return matchLines(text, /\.(?:requiredOption|option)\(\s*['"`]|new Option\(/g);
}

function matchLines(text: string, pattern: RegExp): number[] {
  const out: number[] = [];
  for (const match of text.matchAll(pattern)) {
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    if (/^\s*(\/\/|\*|\/\*)/.test(text.slice(lineStart, match.index))) continue; // in a comment
    out.push(text.slice(0, match.index).split('\n').length);
  }
  return out;
}

export function checkArchitecture(root: string): Violation[] {
  const files: string[] = [];
  for (const dir of CODE_ROOTS) listFiles(root, dir, files);
  const known = new Set(files);
  const violations: Violation[] = [];
  const fileGraph = new Map<string, Set<string>>();
  const roomGraph = new Map<string, Set<string>>();
  const long: LongFunction[] = [];
  for (const file of files.sort()) {
    const room = roomOf(file);
    const text = readFileSync(path.join(root, file), 'utf8');
    if (!room) {
      violations.push({ kind: 'unplaced', message: `${file} is in no declared room (add its folder to LAYERS in scripts/check-architecture.ts)` });
      continue;
    }
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    for (const line of gluedErrors(text))
      violations.push({
        kind: 'glued-error',
        message: `${file}:${line} glues a kind onto a plain Error: throw a KindedError (src/run/kinded-error.ts) or an Error class of its own`,
      });
    if (file !== FLAG_TABLE && (file.startsWith('app/') || file.startsWith('bin/')))
      for (const line of flagsOutsideTable(text))
        violations.push({
          kind: 'flag-outside-table',
          message: `${file}:${line} declares a command-line flag of its own: add it to ${FLAG_TABLE} (one spelling per option) and take it with useFlags`,
        });
    if (file !== RELEASE_TABLE)
      for (const line of versionsOutsideTable(text))
        violations.push({
          kind: 'version-outside-table',
          message: `${file}:${line} compares with a harness release's version: ask its switches in ${RELEASE_TABLE} (releaseOf, parsingOf, gradingSwitches)`,
        });
    for (const r of restatedNames(file, text))
      violations.push({ kind: 'restated-names', message: `${file}:${r.line} lists ${r.what} again: take them from ${r.file}` });
    for (const line of freeErrorKinds(text))
      violations.push({
        kind: 'free-error-kind',
        message: `${file}:${line} names an error kind by a bare string: use its name in ERROR_KINDS (src/util/error-kinds.ts), adding it there if it is new`,
      });
    if (lines > MAX_FILE_LINES) violations.push({ kind: 'size', message: `${file} has ${lines} lines (limit ${MAX_FILE_LINES}): split it along a seam` });
    if (/\.ts$/.test(file)) long.push(...longFunctions(file, text));
    const edges = new Set<string>();
    fileGraph.set(file, edges);
    for (const { specifier, line } of importsOf(text)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const targetRoom = roomOf(target);
      if (known.has(target)) edges.add(target);
      if (!targetRoom || targetRoom === room) continue;
      if (ALLOWED_EXTRA[room]?.includes(targetRoom)) continue;
      const forbidden = FORBIDDEN.find((f) => f.from === room && f.to === targetRoom);
      if (forbidden) violations.push({ kind: 'seam', message: `${file}:${line} imports ${target}: ${forbidden.why}` });
      if (targetRoom === 'test') {
        violations.push({ kind: 'upward', message: `${file}:${line} imports test code ${target}` });
        continue;
      }
      const from = layerIndex.get(room)!;
      const to = layerIndex.get(targetRoom)!;
      if (to < from) {
        violations.push({ kind: 'upward', message: `${file}:${line} (${LAYERS[from].name}) imports ${target} from the higher layer ${LAYERS[to].name}` });
      } else if (climbsFloors(file, target)) {
        violations.push({
          kind: 'upward',
          message: `${file}:${line} imports ${target}: the folder ${topFolder(target)}/ stands above ${topFolder(file)}/ (FLOORS)`,
        });
      }
      if (!roomGraph.has(room)) roomGraph.set(room, new Set());
      roomGraph.get(room)!.add(targetRoom);
    }
  }
  for (const message of functionLengthProblems(long, known)) violations.push({ kind: 'long-function', message });
  for (const cycle of cyclesOf(roomGraph)) violations.push({ kind: 'room-cycle', message: `rooms import each other in a circle: ${cycle.join(' ↔ ')}` });
  for (const cycle of cyclesOf(fileGraph)) violations.push({ kind: 'file-cycle', message: `files import each other in a circle: ${cycle.join(' ↔ ')}` });
  return violations;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkArchitecture(root);
  for (const v of violations) process.stderr.write(`${v.kind}: ${v.message}\n`);
  process.stderr.write(
    violations.length ? `check-architecture: ${violations.length} violation(s)\n` : 'check-architecture: layers, cycles and file sizes ok\n',
  );
  process.exitCode = violations.length ? 1 : 0;
}
