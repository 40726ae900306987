/**
 * Builds the bundled mini-benchmark (or reuses an up-to-date build) and prints where it is.
 *
 *   npx tsx scripts/build-minibench.ts [OUT_DIR]      (default: .locfix/minibench)
 *   npx tsx scripts/build-minibench.ts --json [OUT_DIR]
 */
import { buildMiniBenchmark, DEFAULT_MINIBENCH_DIR } from '../src/minibench/build.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const positional = args.filter((a) => a !== '--json');
  if (positional.length > 1 || positional.some((a) => a.startsWith('-'))) {
    console.error('usage: build-minibench.ts [--json] [OUT_DIR]');
    process.exitCode = 2;
    return;
  }
  const started = Date.now();
  const build = await buildMiniBenchmark(positional[0] ?? DEFAULT_MINIBENCH_DIR);
  if (json) {
    console.log(JSON.stringify({ datasetPath: build.datasetPath, mirrorsDir: build.mirrorsDir, catalogPath: build.catalogPath, instances: build.catalog }, null, 2));
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
