/**
 * Before any instance of a run that validates or evaluates: can the selection's images be had on this machine? When
 * none can (a missing base image, environment images never built), every instance would fail alike, so the run stops
 * at start naming the fix (issue 52). When some cannot, the run goes on: those instances end "not reached" with the
 * cause image-unavailable, and the run is incomplete.
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import { makeInstanceSpec } from '../../src/harness/instance-spec.ts';
import { KindedError } from '../../src/run/kinded-error.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';
import { ERROR_KINDS } from '../../src/util/error-kinds.ts';

/** Throws an image-missing KindedError when no selected instance can have an image; returns the problems found. */
export async function checkImagesAtStart(backend: ExecutionBackend, instances: readonly SweInstance[]): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  if (instances.length === 0) return problems;
  await backend.run('image check', async (engine) => {
    if (!engine.images.missingImage) return;
    // per instance: an official image is the instance's own (a few existence checks each, nothing built)
    for (const instance of instances) {
      // a repository with no harness spec has no image either (its evaluation would say the same)
      const problem = await Promise.resolve()
        .then(() => engine.images.missingImage!(makeInstanceSpec(instance)))
        .catch((err: Error) => err.message);
      if (problem) problems.set(instance.instance_id, problem);
    }
  });
  if (problems.size === instances.length) {
    const reasons = [...new Set(problems.values())];
    throw new KindedError(
      ERROR_KINDS.imageMissing,
      `no image for any of the ${instances.length} selected instances can be had on this machine (${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; …' : ''}); validation and evaluation need them: build them, or stop earlier with --stop-after select`,
    );
  }
  return problems;
}
