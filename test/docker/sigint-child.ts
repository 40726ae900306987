/**
 * Child process for the SIGINT cleanup test: creates a sandbox, prints its container id, then waits to be
 * interrupted. The sandbox module's signal handler must remove the container before the process exits.
 */
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';

const runId = process.argv[2] ?? 'sigint-test';
const runtime = new DockerRuntime();
await runtime.withSandbox({ image: 'locfix/base:bookworm', runId }, async (sandbox) => {
  process.stdout.write(`${sandbox.id}\n`);
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
