/**
 * One sandbox per instance, reused across candidate patches: reset the checkout, apply a candidate, run
 * tests or a script, reset again. Starting a container costs about a second; resetting a checkout costs a
 * git command, so validating many candidates of one instance stays close to the cost of the test runs.
 *
 * Reset is `git reset --hard` + `git clean -fd` in /testbed: tracked files go back to the instance image's
 * state and files a patch or script created are removed, while ignored build artifacts stay. If a run times
 * out the container is killed (see sandbox.ts); the next call transparently starts a fresh one.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import type { InstanceImage, InstanceImages } from '../src/sandbox/types.ts';
import { isMissingImageError, type ExecResult, type Sandbox, type SandboxRuntime } from '../src/sandbox/types.ts';
import { randomBytes } from 'node:crypto';
import { DOCKER_PATCH, DOCKER_WORKDIR, PATCH_ALREADY_APPLIED_CHECK, PATCH_APPLY_COMMANDS, PATCH_RESET_COMMAND } from '../src/harness/constants.ts';
import { applyModelPatch, readBaseFiles } from './evaluate.ts';
import { mixedManifests, separateTestMachinery } from './test-machinery.ts';

export interface TestbedOptions {
  runId: string;
  /** default timeout for test runs and scripts (default 600 s) */
  timeoutMs?: number;
}

/** A file written before a run (e.g. a reproduction script); absolute container path. */
export interface InlineFile {
  path: string;
  content: string;
}

/** Inline files travel inside the command; Linux caps one argument at 128 KiB (escapes can double the size). */
const MAX_INLINE_BYTES = 48 * 1024;

/** bash $'…' quoting of any text without NUL: quotes, backslashes and control characters escaped. */
export function ansiCQuote(text: string): string {
  let out = "$'";
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x27) out += "\\'";
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += '\\x' + byte.toString(16).padStart(2, '0');
  }
  return out + "'";
}

export interface PatchRunResult extends ExecResult {
  applied: boolean;
  applyOutput: string;
}

export class InstanceTestbed {
  private sandbox?: Sandbox;
  /** mixed manifests at the base commit, read once per testbed (test-machinery.ts) */
  private readonly manifestBases = new Map<string, string | undefined>();
  /** containers started so far (1 unless a timeout killed one) */
  containersStarted = 0;

  private constructor(
    readonly runtime: SandboxRuntime,
    private readonly images: InstanceImages,
    public image: InstanceImage,
    readonly instance: SweInstance,
    private readonly options: TestbedOptions,
  ) {}

  static async open(runtime: SandboxRuntime, images: InstanceImages, instance: SweInstance, options: TestbedOptions): Promise<InstanceTestbed> {
    const image = await images.instanceImage(makeInstanceSpec(instance));
    const testbed = new InstanceTestbed(runtime, images, image, instance, options);
    await testbed.ensureSandbox();
    return testbed;
  }

  private async ensureSandbox(): Promise<Sandbox> {
    if (this.sandbox?.alive) return this.sandbox;
    if (this.sandbox) await this.sandbox.dispose().catch(() => undefined);
    const create = () =>
      this.runtime.create({
        image: this.image.image,
        runId: this.options.runId,
        namePrefix: `locfix-testbed-${this.instance.instance_id}`,
        workdir: DOCKER_WORKDIR,
      });
    this.sandbox = await create().catch(async (err: unknown) => {
      // removed by another process since the lookup (or since the last sandbox, after a timeout): get it again
      if (!isMissingImageError(err)) throw err;
      this.image = await this.images.instanceImage(makeInstanceSpec(this.instance));
      return create();
    });
    this.containersStarted += 1;
    return this.sandbox;
  }

  /**
   * A candidate as validation runs it: its test machinery kept at the base commit (validation/test-machinery.ts), so
   * no sample wins the regression or reproduction vote by editing the tests or the runner's configuration.
   */
  private async withoutMachinery(patch: string): Promise<string> {
    const unread = mixedManifests(patch).filter((file) => !this.manifestBases.has(file));
    if (unread.length) {
      const read = await readBaseFiles(await this.ensureSandbox(), this.instance.base_commit, unread);
      for (const [file, text] of read) this.manifestBases.set(file, text);
    }
    return separateTestMachinery(patch, 'restore', this.manifestBases).patch;
  }

  /** Runs shell lines in /testbed after the image's prelude (conda activation in official images). */
  async run(lines: readonly string[], timeoutMs = this.options.timeoutMs ?? 600_000): Promise<ExecResult> {
    const sandbox = await this.ensureSandbox();
    const script = ['set -uo pipefail', ...this.image.prelude, `cd ${DOCKER_WORKDIR}`, ...lines].join('\n');
    return sandbox.exec(['/bin/bash', '-c', script], { timeoutMs });
  }

  /** Back to the image's checkout: tracked files restored, new untracked files removed. */
  async reset(): Promise<void> {
    const result = await this.run(['git reset -q --hard', 'git clean -qfd'], 120_000);
    if (result.exitCode !== 0) throw new Error(`${this.instance.instance_id}: resetting /testbed failed: ${result.output}`);
  }

  /** Applies `patch` (empty: nothing; its test machinery left out) on a clean checkout with the harness' fallbacks. */
  async applyPatch(candidate: string): Promise<{ applied: boolean; output: string }> {
    await this.reset();
    const patch = await this.withoutMachinery(candidate);
    if (patch.trim() === '') return { applied: true, output: '' };
    const sandbox = await this.ensureSandbox();
    await sandbox.copyFiles([{ path: DOCKER_PATCH, content: patch }]);
    return applyModelPatch(sandbox, undefined, 300_000);
  }

  /**
   * Reset, apply `patch` (harness fallbacks), write `files`, run `lines` — all in one exec, so a candidate
   * costs one Docker round trip besides the work itself. A patch that applies with no command gives
   * `applied: false` and no run.
   */
  async runWithPatch(candidate: string, lines: readonly string[], timeoutMs?: number, files: readonly InlineFile[] = []): Promise<PatchRunResult> {
    const inline = [{ path: DOCKER_PATCH, content: await this.withoutMachinery(candidate) }, ...files];
    const inlineBytes = inline.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    // Files are written after the reset (which would delete new files under /testbed); the candidate's
    // own files after the patch, since the harness' reset between apply attempts cleans untracked files.
    const writes: string[] = [];
    if (inlineBytes <= MAX_INLINE_BYTES) {
      // bash's own printf with $'…' quoting: no extra process per file
      for (const f of inline) writes.push(`printf '%s' ${ansiCQuote(f.content)} > '${f.path}'`);
    } else {
      // Too large for one command-line argument: stage them with a tar copy, move them in after the reset.
      const sandbox = await this.ensureSandbox();
      await sandbox.copyFiles(inline.map((f, i) => ({ path: `/tmp/locfix_stage/${i}`, content: f.content, mode: 0o755 })));
      inline.forEach((f, i) => writes.push(`cp /tmp/locfix_stage/${i} '${f.path}'`));
    }
    const [writePatch, ...writeFiles] = writes;
    const applyLoop = PATCH_APPLY_COMMANDS.map((cmd) => JSON.stringify(cmd)).join(' ');
    const script = [
      'git reset -q --hard && git clean -qfd || { echo "$LOCFIX_MARK reset-failed"; exit 97; }',
      writePatch,
      `if [ -s ${DOCKER_PATCH} ]; then`,
      '  applied=""; attempt=0',
      `  for cmd in ${applyLoop}; do`,
      // as the harness: a pristine tree before every attempt after the first
      `    if [ $attempt -gt 0 ]; then { ${PATCH_RESET_COMMAND}; } > /dev/null 2>&1; fi; attempt=$((attempt + 1))`,
      `    if $cmd ${DOCKER_PATCH} > /tmp/locfix_apply.log 2>&1; then applied="$cmd"; break; fi`,
      '  done',
      `  if [ -z "$applied" ] && ${PATCH_ALREADY_APPLIED_CHECK} ${DOCKER_PATCH} > /dev/null 2>&1; then applied="already"; fi`,
      '  if [ -z "$applied" ]; then cat /tmp/locfix_apply.log; echo "$LOCFIX_MARK apply-failed"; exit 98; fi',
      'fi',
      ...writeFiles,
      'echo "$LOCFIX_MARK run"',
      ...lines,
    ];
    const mark = `__LOCFIX_${randomBytes(6).toString('hex')}__`;
    const result = await this.run([`LOCFIX_MARK=${mark}`, ...script], timeoutMs);
    const runMarker = `${mark} run\n`;
    const at = result.output.indexOf(runMarker);
    if (at < 0) {
      if (result.output.includes(`${mark} reset-failed`)) throw new Error(`${this.instance.instance_id}: resetting /testbed failed: ${result.output}`);
      const applyFailed = result.output.includes(`${mark} apply-failed`);
      return {
        applied: false,
        applyOutput: result.output.replace(`${mark} apply-failed\n`, ''),
        exitCode: applyFailed ? null : result.exitCode,
        output: '',
        timedOut: result.timedOut,
        durationMs: result.durationMs,
      };
    }
    return { ...result, output: result.output.slice(at + runMarker.length), applied: true, applyOutput: result.output.slice(0, at) };
  }

  /** Copies a file into the container (e.g. a reproduction script), outside /testbed by default. */
  async putFile(containerPath: string, content: string): Promise<void> {
    const sandbox = await this.ensureSandbox();
    await sandbox.copyFiles([{ path: containerPath, content, mode: 0o755 }]);
  }

  async close(): Promise<void> {
    await this.sandbox?.dispose();
    this.sandbox = undefined;
  }
}

/** Opens a testbed, runs `fn`, always closes it. */
export async function withTestbed<T>(
  runtime: SandboxRuntime,
  images: InstanceImages,
  instance: SweInstance,
  options: TestbedOptions,
  fn: (testbed: InstanceTestbed) => Promise<T>,
): Promise<T> {
  const testbed = await InstanceTestbed.open(runtime, images, instance, options);
  try {
    return await fn(testbed);
  } finally {
    await testbed.close();
  }
}
