/** The one way a runtime lends a sandbox: made when the concurrency queue admits it, removed however `fn` ends. */
import type PQueue from 'p-queue';

export async function withFreshSandbox<S extends { dispose(): Promise<void> }, T>(
  queue: PQueue,
  create: () => Promise<S>,
  fn: (sandbox: S) => Promise<T>,
): Promise<T> {
  return (await queue.add(async () => {
    const sandbox = await create();
    try {
      return await fn(sandbox);
    } finally {
      await sandbox.dispose();
    }
  })) as T;
}
