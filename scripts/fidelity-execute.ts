/**
 * bench:fidelity --execute: real Lite instances evaluated again, in the offline environment images of
 * scripts/build-env-image.sh. Per instance, in one instance image (built once, removed at the end):
 *
 *   gold       the dataset's patch: must resolve, and every FAIL_TO_PASS / PASS_TO_PASS test must pass;
 *   no-op      a patch that only adds an unrelated file: must not resolve (FAIL_TO_PASS tests fail, as
 *              before the fix), so the environment does not pass the instance by itself. (An *empty* patch
 *              is never run: the harness counts it as not resolved without running anything.)
 *   published  with --published DIR, a real harness run's own patch (<DIR>/<id>/patch.diff): test by test
 *              against that run's report.json;
 *   bare       the gold + test patches applied by hand and the bare test command run in the same image:
 *              the time locfix's evaluation script takes, compared with that (image build excluded).
 *
 * Results are appended to --out as JSON lines as instances finish, so a partial run is still a result.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import type { SweInstance } from '../src/dataset/schema.ts';
import { DOCKER_WORKDIR } from '../src/harness/constants.ts';
import { testDirectives } from '../src/harness/eval-script.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { pythonTestCommand } from '../src/harness/specs.ts';
import { RepoStore } from '../src/repo/store.ts';
import { ImageProvider } from '../sandbox/docker/images.ts';
import { DockerRuntime } from '../sandbox/docker/sandbox.ts';
import { InstanceImageRecipe, type ImageConfig, type MirrorLocator } from '../sandbox/common/image-recipe.ts';
import { BwrapImageEngine } from '../sandbox/bwrap/images.ts';
import { RootfsStore } from '../sandbox/bwrap/image-store.ts';
import { BwrapRuntime } from '../sandbox/bwrap/runtime.ts';
import type { InstanceImages, SandboxLimits, SandboxRuntime } from '../src/sandbox/types.ts';
import { evaluateInstance } from '../validation/evaluate-instance.ts';
import { instanceLogDir, type InstanceOutcome } from '../validation/evaluate.ts';
import type { InstanceReport, TestsStatus } from '../validation/grading.ts';

/** The recipes of scripts/build-env-image.sh and the versions each serves (docs/offline-env-images.md). */
const RECIPES: Array<{ repo: string; versions: string[]; image: string }> = [
  { repo: 'django/django', versions: ['3.0', '3.1', '3.2', '4.0', '4.1', '4.2'], image: 'locfix/env.django-py39:1' },
  { repo: 'django/django', versions: ['5.0'], image: 'locfix/env.django-py311:1' },
  {
    repo: 'sympy/sympy',
    versions: ['0.7', '1.0', '1.1', '1.2', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9', '1.10', '1.11', '1.12', '1.13'],
    image: 'locfix/env.sympy:1',
  },
  { repo: 'pytest-dev/pytest', versions: ['4.4', '4.5', '4.6', '5.0', '5.1', '5.2', '5.3', '5.4', '6.0'], image: 'locfix/env.pytest:1' },
  {
    repo: 'psf/requests',
    versions: ['0.13', '0.14', '1.1', '1.2', '2.0', '2.2', '2.3', '2.4', '2.5', '2.7', '2.8', '2.9', '2.10'],
    image: 'locfix/env.requests:1',
  },
];

/** The run config's `docker.envImages` (`repo@version` → image) for every version the recipes serve. */
export function offlineEnvImages(): Record<string, string> {
  const envImages: Record<string, string> = {};
  for (const r of RECIPES) for (const v of r.versions) envImages[`${r.repo}@${v}`] = r.image;
  return envImages;
}

export function envImageFor(instance: Pick<SweInstance, 'repo' | 'version'>): string | undefined {
  return RECIPES.find((r) => r.repo === instance.repo && r.versions.includes(instance.version ?? ''))?.image;
}

export interface ExecuteOptions {
  instances: readonly SweInstance[];
  runsDir: string;
  mirrors: string;
  out: string;
  workers: number;
  timeoutMs: number;
  published?: string;
  /** the sandbox kind: Docker (default), or bubblewrap over this image store (the env images imported into it) */
  bwrapImageStore?: string;
}

/** The runtime and images of the chosen kind, and how an image it built is removed. */
function sandboxOf(
  options: ExecuteOptions,
  mirrors: MirrorLocator,
  config: ImageConfig,
): { runtime: SandboxRuntime; images: InstanceImages; removeImage(name: string): Promise<void> } {
  const defaultLimits: Partial<SandboxLimits> = { memoryBytes: 4 * 1024 ** 3, nanoCpus: 1e9 };
  if (options.bwrapImageStore) {
    const runtime = new BwrapRuntime({ store: new RootfsStore(options.bwrapImageStore), concurrency: options.workers, defaultLimits });
    const engine = new BwrapImageEngine(runtime);
    return { runtime, images: new InstanceImageRecipe(engine, mirrors, config), removeImage: (name) => engine.remove(name) };
  }
  const runtime = new DockerRuntime({ concurrency: options.workers, defaultLimits });
  return {
    runtime,
    images: new ImageProvider(runtime, mirrors, config),
    removeImage: async (name) => {
      await runtime.docker
        .getImage(name)
        .remove({ force: true })
        .catch(() => undefined);
    },
  };
}

type Side = 'success' | 'failure' | 'absent';

function side(status: TestsStatus | undefined, category: keyof TestsStatus, test: string): Side {
  if (!status) return 'absent';
  if (status[category].success.includes(test)) return 'success';
  if (status[category].failure.includes(test)) return 'failure';
  return 'absent';
}

interface RunResult {
  completed: boolean;
  resolved: boolean;
  error?: string;
  evalMs?: number;
  containerMs?: number;
  status?: TestsStatus;
  patchApplyCommand?: string;
}

function readStatus(runsDir: string, runId: string, id: string): TestsStatus | undefined {
  const file = path.join(instanceLogDir(runsDir, runId, id), 'report.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as InstanceReport)[id]?.tests_status;
}

function result(outcome: InstanceOutcome, status: TestsStatus | undefined): RunResult {
  return {
    completed: outcome.completed,
    resolved: outcome.resolved,
    ...(outcome.error ? { error: `${outcome.errorKind ?? 'error'}: ${outcome.error.slice(0, 300)}` } : {}),
    ...(outcome.timings && !outcome.reused ? { evalMs: outcome.timings.evalMs, containerMs: outcome.timings.containerMs } : {}),
    ...(status ? { status } : {}),
    ...(outcome.patchApplyCommand ? { patchApplyCommand: outcome.patchApplyCommand } : {}),
  };
}

/** A patch that changes no code: it adds one file the tests never read. */
export const NO_OP_PATCH = [
  'diff --git a/locfix-fidelity-probe.txt b/locfix-fidelity-probe.txt',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/locfix-fidelity-probe.txt',
  '@@ -0,0 +1 @@',
  '+a file no test reads',
  '',
].join('\n');

export async function executeFidelity(options: ExecuteOptions): Promise<void> {
  const store = new RepoStore({ cacheDir: path.join(os.tmpdir(), 'locfix-fidelity-cache'), mirrorsDir: options.mirrors, allowClone: false });
  const envImages = offlineEnvImages();
  // instance images stay while an instance's four runs use them; this script removes each at the end
  const { runtime, images, removeImage } = sandboxOf(options, store, { envImages, useOfficialImages: false, cacheLevel: 'instance' });
  await runtime.ping();
  const queue = new PQueue({ concurrency: options.workers });
  const evalOptions = { runsDir: options.runsDir, runtime, images, timeoutMs: options.timeoutMs, network: 'none' as const };
  try {
    await Promise.all(
      options.instances.map((instance) =>
        queue.add(async () => {
          const id = instance.instance_id;
          const started = Date.now();
          const row: Record<string, unknown> = { id, repo: instance.repo, version: instance.version };
          let imageName: string | undefined;
          try {
            const spec = makeInstanceSpec(instance);
            const buildStarted = Date.now();
            const image = await images.instanceImage(spec);
            imageName = image.image;
            row.imageMs = Date.now() - buildStarted;

            const run = async (runId: string, patch: string): Promise<RunResult> => {
              const outcome = await evaluateInstance(instance, { instance_id: id, model_name_or_path: runId, model_patch: patch }, { ...evalOptions, runId });
              return result(outcome, readStatus(options.runsDir, runId, id));
            };
            const gold = await run('fidelity-gold', instance.patch);
            const noop = await run('fidelity-noop', NO_OP_PATCH);
            const expected = (r: RunResult, category: 'FAIL_TO_PASS' | 'PASS_TO_PASS', want: Side) =>
              instance[category].filter((t) => side(r.status, category, t) === want).length;
            row.gold = { ...gold, status: undefined, f2pPass: expected(gold, 'FAIL_TO_PASS', 'success'), p2pPass: expected(gold, 'PASS_TO_PASS', 'success') };
            row.noop = { ...noop, status: undefined, f2pFail: expected(noop, 'FAIL_TO_PASS', 'failure'), p2pPass: expected(noop, 'PASS_TO_PASS', 'success') };
            row.f2p = instance.FAIL_TO_PASS.length;
            row.p2p = instance.PASS_TO_PASS.length;
            row.goldOff = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]
              .filter((t) => side(gold.status, instance.FAIL_TO_PASS.includes(t) ? 'FAIL_TO_PASS' : 'PASS_TO_PASS', t) !== 'success')
              .slice(0, 10);

            const publishedDir = options.published && path.join(options.published, id);
            if (publishedDir && existsSync(path.join(publishedDir, 'patch.diff')) && existsSync(path.join(publishedDir, 'report.json'))) {
              const patch = readFileSync(path.join(publishedDir, 'patch.diff'), 'utf8');
              const harness = (JSON.parse(readFileSync(path.join(publishedDir, 'report.json'), 'utf8')) as InstanceReport)[id];
              const ours = patch.trim() ? await run('fidelity-published', patch) : undefined;
              const disagreements: string[] = [];
              let compared = 0;
              for (const category of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
                for (const test of instance[category]) {
                  compared += 1;
                  const h = side(harness?.tests_status, category, test);
                  const l = side(ours?.status, category, test);
                  if (h !== l) disagreements.push(`${test}: harness ${h}, locfix ${l}`);
                }
              }
              row.published = {
                harnessResolved: Boolean(harness?.resolved),
                locfixResolved: Boolean(ours?.resolved),
                ...(ours?.error ? { error: ours.error } : {}),
                compared,
                agree: compared - disagreements.length,
                disagreements: disagreements.slice(0, 10),
              };
            }

            // the bare test command, in the same image: the test and gold patches applied by hand
            row.bare = await runtime.withSandbox(
              { image: image.image, runId: 'fidelity-bare', namePrefix: `locfix-bare-${id}`, workdir: DOCKER_WORKDIR },
              async (sandbox) => {
                const containerStarted = Date.now();
                await sandbox.copyFiles([
                  { path: '/tmp/test.patch', content: instance.test_patch },
                  { path: '/tmp/gold.patch', content: instance.patch },
                ]);
                const applied = await sandbox.exec('git apply /tmp/test.patch && git apply /tmp/gold.patch', { workdir: DOCKER_WORKDIR });
                if (applied.exitCode !== 0) return { error: `patches do not apply: ${applied.output.slice(0, 200)}` };
                const command = [
                  ...(spec.spec.spec.eval_commands ?? []),
                  [pythonTestCommand(spec.spec.spec), ...testDirectives(instance.test_patch, spec.spec.testDirectives)].join(' '),
                ].join(' && ');
                const tests = await sandbox.exec(['bash', '-c', command], { workdir: DOCKER_WORKDIR, timeoutMs: options.timeoutMs });
                return { testMs: tests.durationMs, exitCode: tests.exitCode, timedOut: tests.timedOut, containerMs: Date.now() - containerStarted };
              },
            );
          } catch (err) {
            row.error = err instanceof Error ? err.message.split('\n')[0] : String(err);
          } finally {
            if (imageName) await removeImage(imageName).catch(() => undefined);
            row.totalMs = Date.now() - started;
            appendFileSync(options.out, `${JSON.stringify(row)}\n`);
            const gold = row.gold as RunResult | undefined;
            const noop = row.noop as RunResult | undefined;
            console.log(
              `${id} (${instance.repo} ${instance.version}): gold ${gold ? (gold.resolved ? 'resolved' : (gold.error ?? 'unresolved')) : '-'}, ` +
                `no-op ${noop ? (noop.resolved ? 'RESOLVED' : (noop.error ?? 'unresolved')) : '-'}${row.error ? `, error ${row.error}` : ''} ` +
                `${((row.totalMs as number) / 1000).toFixed(0)} s`,
            );
          }
        }),
      ),
    );
  } finally {
    await store.close();
    await runtime.sweepContainers('fidelity-bare');
  }
}
