/**
 * Maps paths named in an issue (file paths, traceback frames, dotted modules) onto repository files.
 *
 * Issues give paths relative to wherever the reporter stood: absolute site-packages paths, paths from the
 * repository root, or from a `src/` folder. We match by trailing path segments: the repository file that
 * shares the longest suffix with the issue path wins. A bare file name ("models.py") matches every file of
 * that name, so its weight is shared among them; a longer path whose only match is the file name (a
 * reporter's own `myapp/models.py`) is not a match at all.
 */
import { INDEXED_LANGUAGES, languageForPath } from '../../src/languages/index.ts';
import { isTestPath } from '../../src/index/file-filter.ts';

import type { StructuralSignals } from './structural-query.ts';

/** Files that would define module `a/b` in any language, each language's most specific form first. */
function moduleFileCandidates(base: string): string[] {
  return INDEXED_LANGUAGES.flatMap((l) => l.moduleFiles(base));
}

export class RepoPathMatcher {
  private readonly byBasename = new Map<string, string[]>();
  /** lowercased module name -> files: `latex` -> printing/latex.py, `autodoc` -> ext/autodoc/__init__.py */
  private readonly byModuleName = new Map<string, string[]>();

  constructor(files: Iterable<string>) {
    const push = (map: Map<string, string[]>, key: string, f: string): void => {
      const list = map.get(key);
      if (list) list.push(f);
      else map.set(key, [f]);
    };
    for (const f of files) {
      const slash = f.lastIndexOf('/');
      const base = f.slice(slash + 1);
      push(this.byBasename, base, f);
      const moduleName = languageForPath(f)?.moduleName(f);
      if (moduleName) push(this.byModuleName, moduleName.toLowerCase(), f);
    }
  }

  /** Files whose module (file stem, or package folder for `__init__.py`) is called `name`. */
  matchModuleName(name: string): string[] {
    return this.byModuleName.get(name.toLowerCase()) ?? [];
  }

  /** Repository files best matching an issue path (several only when tied). */
  match(issuePath: string): string[] {
    const segs = issuePath.split('/').filter((s) => s && s !== '.');
    if (segs.length === 0) return [];
    const candidates = this.byBasename.get(segs[segs.length - 1]);
    if (!candidates) return [];
    let best = 0;
    let winners: string[] = [];
    for (const cand of candidates) {
      const csegs = cand.split('/');
      let m = 0;
      while (m < segs.length && m < csegs.length && segs[segs.length - 1 - m] === csegs[csegs.length - 1 - m]) m++;
      if (m > best) {
        best = m;
        winners = [cand];
      } else if (m === best) winners.push(cand);
    }
    if (segs.length >= 2 && best < 2) return [];
    return winners;
  }

  /** `a.b.c` as a module or package, trying shorter prefixes when the tail names attributes. */
  matchModule(dotted: string): string[] {
    const parts = dotted.split('.');
    for (let n = parts.length; n >= 2; n--) {
      const base = parts.slice(0, n).join('/');
      for (const file of moduleFileCandidates(base)) {
        const found = this.match(file).filter((p) => p.endsWith(`/${file}`) || p === file);
        if (found.length) return found;
      }
    }
    return [];
  }
}

/**
 * The module a test file tests, by the naming conventions of the ecosystems locfix reads: `test_widgets.py`,
 * `widgets_test.go`, `WidgetsTest.java`, `widgets.test.ts`, `widgets.spec.js`, `widgets_spec.rb` all test
 * `widgets`. Undefined when the name follows none of them.
 */
export function testedModuleName(testPath: string): string | undefined {
  const file = testPath.slice(testPath.lastIndexOf('/') + 1);
  const stem = file.replace(/\.[^.]+$/, '');
  const m = stem.match(/^tests?_(.+)$/i) ?? stem.match(/^(.+?)[._-](?:test|tests|spec)$/i) ?? stem.match(/^(.+?)Tests?$/) ?? stem.match(/^Test(.+)$/);
  return m?.[1] && m[1].length >= 3 ? m[1] : undefined;
}

export interface PathEvidence {
  path: string;
  /** what in the issue named it */
  signal: 'path' | 'frame' | 'module' | 'module-name' | 'tested-module';
  mention: string;
  weight: number;
}

export interface PathWeights {
  path: number;
  frame: number;
  module: number;
  /** an identifier the issue names that is also a module's name (`latex`, `autodoc`) */
  moduleName: number;
  /** the module a test file the issue names tests (`tests/test_widgets.py` → `widgets.py`) */
  testedModule: number;
}

/**
 * Path-signal scores per file. Frames count from the innermost repository frame down, each outer one
 * `frameDecay` times the previous (frames outside the repository — stdlib, user scripts — are skipped and
 * do not use up rank). Ambiguous matches share their weight.
 */
export function pathSignalScores(
  signals: StructuralSignals,
  matcher: RepoPathMatcher,
  weights: PathWeights,
  frameDecay: number,
): { scores: Map<string, number>; evidence: PathEvidence[] } {
  const scores = new Map<string, number>();
  const evidence: PathEvidence[] = [];
  const add = (files: string[], signal: PathEvidence['signal'], mention: string, weight: number): void => {
    if (files.length === 0 || weight <= 0) return;
    const share = weight / files.length;
    for (const f of files) {
      scores.set(f, (scores.get(f) ?? 0) + share);
      evidence.push({ path: f, signal, mention, weight: share });
    }
  };
  let frameWeight = weights.frame;
  const seenFrameFiles = new Set<string>();
  for (const frame of signals.frames) {
    const files = matcher.match(frame.path);
    if (files.length === 0) continue;
    const key = files.join('\n');
    // a recursion or repeated frame in the same file does not count twice
    if (!seenFrameFiles.has(key)) add(files, 'frame', `${frame.path}:${frame.line}${frame.func ? ` in ${frame.func}` : ''}`, frameWeight);
    seenFrameFiles.add(key);
    frameWeight *= frameDecay;
  }
  for (const p of signals.paths) add(matcher.match(p), 'path', p, weights.path);
  if (weights.testedModule > 0) {
    const tests = [...signals.paths, ...signals.frames.map((f) => f.path)].filter(isTestPath);
    for (const t of new Set(tests)) {
      const name = testedModuleName(t);
      const files = name ? matcher.matchModuleName(name).filter((f) => !isTestPath(f)) : [];
      // a common name (utils, base) says nothing about which module
      if (files.length <= 5) add(files, 'tested-module', t, weights.testedModule);
    }
  }
  for (const m of signals.modules) add(matcher.matchModule(m), 'module', m, weights.module);
  if (weights.moduleName > 0) {
    for (const n of signals.names) {
      const files = matcher.matchModuleName(n.name);
      // a name shared by many modules (utils, base, core) says nothing about which one
      if (files.length > 0 && files.length <= 5) add(files, 'module-name', n.name, weights.moduleName);
    }
  }
  return { scores, evidence };
}
