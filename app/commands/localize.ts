/**
 * `locfix localize --localizer NAME`: file-level localization with any registered localizer, one artifact
 * per instance under runs/ID/localize-files/ (resumable), scored by `locfix eval-loc RUN --stage localize-files`.
 */
import { useFlags } from './flag-table.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import type { Command } from 'commander';
import path from 'node:path';
import { createProgress } from '../../src/run/progress.ts';
import { localizerNames, resolveLocalizer } from '../../localizer/registry.ts';
import { runFileLocalization } from '../../localizer/stage.ts';
import { assembleFileLocalization } from '../engine/file-localization.ts';
import { DEFAULT_LOCALIZER, defaultSandboxSettings } from '../../src/config.ts';
import { runBackend } from '../engine/backends.ts';
import { STAGE } from '../../src/run/stage.ts';
import { addSelectionOptions, addServiceOptions, servicesFrom, type ServiceFlags } from './common.ts';
import { loadSelection, selectionOfFlags, type SelectionFlags } from '../engine/selection.ts';

interface LocalizeFlags extends SelectionFlags, ServiceFlags {
  localizer: string;
  /** parsed by the flag's table (a JSON object) */
  localizerOptions?: Record<string, unknown>;
  out: string;
  concurrency: number;
  retryErrors?: RetryErrors;
}

export async function localizeCommand(flags: LocalizeFlags): Promise<{ ok: number; total: number }> {
  const given = flags.localizerOptions ?? {};
  // looked up and parsed once; the parsed options are what the manifest records: two option sets are two arms
  const resolved = await resolveLocalizer(flags.localizer, given, '--localizer');
  const instances = await loadSelection(selectionOfFlags(flags), 'localize');
  const services = servicesFrom(flags);
  // a localizer that reads through a sandbox (the explorer) gets one on the local Docker engine
  const files = assembleFileLocalization(resolved, services, {
    runDir: path.resolve(flags.out),
    sandbox: () => runBackend(defaultSandboxSettings(flags.cacheDir), services.store),
  });
  await (async () => {
    await services.checkConfiguration({ repos: instances.map((i) => i.repo) });
    files.assertReady();
    // what a killed invocation of this run, or any locfix process that is gone, left on the engine
    const removed = await files.sweepWorkspaces();
    if (removed) console.error(`removed ${removed} workspace container(s) and volume(s) left behind by locfix processes that are gone`);
  })().catch(async (err) => {
    await services.close();
    throw err;
  });
  const progress = createProgress({ concurrency: flags.concurrency });
  progress.begin(STAGE.files, instances.length);
  try {
    const artifacts = await runFileLocalization(instances, await files.localizer, services, {
      ...files.runSettings,
      dataset: flags.dataset,
      concurrency: flags.concurrency,
      retryErrors: flags.retryErrors,
      onEvent: (e) => progress.event(e),
    });
    return { ok: artifacts.filter((a) => a.status === 'ok').length, total: artifacts.length };
  } finally {
    progress.end();
    await services.close();
  }
}

export function register(program: Command): void {
  const command = program.command('localize').description('file-level localization with a pluggable localizer, one artifact per instance');
  addSelectionOptions(command);
  addServiceOptions(command);
  useFlags(command, ['localizer', 'localizerOptions', 'concurrency', 'retryErrors', 'out'], {
    localizer: { default: DEFAULT_LOCALIZER, description: `file localizer: ${localizerNames().join(' | ')}` },
    concurrency: { description: 'instances localized at once', default: 1 },
    out: { required: true },
  }).action(async (flags: LocalizeFlags) => {
    const { ok, total } = await localizeCommand(flags);
    process.stderr.write(`localize: ${ok} of ${total} instances ok -> ${path.join(flags.out, STAGE.files)}\n`);
    if (ok === 0) process.exitCode = 1;
  });
}
