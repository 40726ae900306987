/**
 * Docker for tests. `dockerAvailable()` answers once per process; `ensureDocker()` is for suites that need
 * a daemon and the base image: with LOCFIX_REQUIRE_DOCKER=1 (CI) a missing daemon or image fails loudly,
 * otherwise the suite is skipped with a message saying how to get Docker.
 */
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';

export interface DockerStatus {
  ok: boolean;
  reason?: string;
}

let cached: Promise<DockerStatus> | undefined;

export function dockerAvailable(): Promise<DockerStatus> {
  cached ??= (async () => {
    const runtime = new DockerRuntime();
    try {
      await runtime.ping();
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
    if (!(await runtime.imageExists(DEFAULT_BASE_IMAGE))) {
      return { ok: false, reason: `base image ${DEFAULT_BASE_IMAGE} is missing (bash scripts/setup-docker.sh builds it)` };
    }
    return { ok: true };
  })();
  return cached;
}

/**
 * For `describe.skipIf(!(await ensureDocker()))`: true when Docker and the base image are there; throws
 * when they are not and LOCFIX_REQUIRE_DOCKER=1; otherwise prints why the suite is skipped.
 */
export async function ensureDocker(suite = 'Docker tests'): Promise<boolean> {
  const status = await dockerAvailable();
  if (status.ok) return true;
  if (process.env.LOCFIX_REQUIRE_DOCKER === '1') {
    throw new Error(`${suite}: Docker is required (LOCFIX_REQUIRE_DOCKER=1) but not usable: ${status.reason}`);
  }
  console.warn(`[skip] ${suite}: ${status.reason}. Run scripts/setup-docker.sh as root (or set LOCFIX_REQUIRE_DOCKER=1 to fail instead).`);
  return false;
}
