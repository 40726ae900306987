/**
 * Builds the bundled mini-benchmark (or reuses an up-to-date build) and prints where it is.
 *
 *   npx tsx scripts/build-minibench.ts [OUT_DIR]            build into OUT_DIR (default .locfix/minibench)
 *   npx tsx scripts/build-minibench.ts --json [OUT_DIR]     the same, as JSON (paths + per-instance catalog)
 *   npx tsx scripts/build-minibench.ts --check [ID…]        also run each instance's tests before/after its
 *                                                           gold patch with the host's python3 -m pytest and
 *                                                           print the FAIL_TO_PASS / PASS_TO_PASS lists the
 *                                                           runs imply (how a new instance gets its lists)
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildMiniBenchmark, DEFAULT_MINIBENCH_DIR } from '../src/minibench/build.ts';
import { checkInstance } from '../src/minibench/validate.ts';

const USAGE = 'usage: build-minibench.ts [--json] [OUT_DIR]\n       build-minibench.ts --check [INSTANCE_ID…]';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const check = args.includes('--check');
  const json = args.includes('--json');
  const positional = args.filter((a) => a !== '--json' && a !== '--check');
  if (positional.some((a) => a.startsWith('-')) || (!check && positional.length > 1) || (check && json)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const started = Date.now();
  const build = await buildMiniBenchmark(check ? DEFAULT_MINIBENCH_DIR : (positional[0] ?? DEFAULT_MINIBENCH_DIR));
  if (check) {
    const wanted = positional.length ? new Set(positional) : undefined;
    const unknown = [...(wanted ?? [])].filter((id) => !build.instances.some((i) => i.instance_id === id));
    if (unknown.length) throw new Error(`no such instance: ${unknown.join(', ')}`);
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'minibench-check-'));
    let failures = 0;
    try {
      for (const instance of build.instances.filter((i) => !wanted || wanted.has(i.instance_id))) {
        const result = await checkInstance(instance, build.mirrorsDir, path.join(scratch, instance.instance_id));
        failures += result.problems.length ? 1 : 0;
        console.log(`${instance.instance_id}: ${result.problems.length ? 'PROBLEMS' : 'ok'}`);
        for (const problem of result.problems) console.log(`  ${problem}`);
        if (result.problems.length) console.log(JSON.stringify(result.derived, null, 2));
      }
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
    process.exitCode = failures ? 1 : 0;
    return;
  }
  if (json) {
    console.log(
      JSON.stringify({ datasetPath: build.datasetPath, mirrorsDir: build.mirrorsDir, catalogPath: build.catalogPath, instances: build.catalog }, null, 2),
    );
    return;
  }
  console.log(`dataset:  ${build.datasetPath}`);
  console.log(`mirrors:  ${build.mirrorsDir}`);
  console.log(`catalog:  ${build.catalogPath}`);
  console.log(`${build.instances.length} instances (${Date.now() - started} ms):`);
  for (const info of build.catalog) {
    console.log(`  ${info.instance_id.padEnd(24)} ${info.goldFiles.join(', ')}`);
  }
}

main().catch((err: unknown) => {
  console.error(`build-minibench: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
