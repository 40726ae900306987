/**
 * One mini-benchmark build shared by every test file that needs it (Docker, end-to-end, retrieval tests):
 * built on first use into a fixed folder under the OS temp dir and reused while the fixture sources are
 * unchanged. Safe when several vitest workers call it at once (the builder publishes atomically).
 *
 *   const bench = await sharedMiniBenchmark();
 *   // bench.datasetPath, bench.mirrorsDir (for --mirrors), bench.instances, bench.catalog
 */
import os from 'node:os';
import path from 'node:path';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';

export const SHARED_MINIBENCH_DIR = path.join(os.tmpdir(), `locfix-test-minibench-${process.getuid?.() ?? 'user'}`);

let pending: Promise<MiniBenchBuild> | undefined;

export function sharedMiniBenchmark(): Promise<MiniBenchBuild> {
  pending ??= buildMiniBenchmark(SHARED_MINIBENCH_DIR);
  return pending;
}
