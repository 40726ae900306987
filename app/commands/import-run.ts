/**
 * `locfix import-run`: a published localization run (BLAgent results, LocAgent or Agentless loc_outputs,
 * SWE-bench predictions) as a locfix run folder that eval-loc, compare, calibrate and bench:cascade read.
 * Rows for unknown instances and malformed rows are listed in `import-report.json` and on stderr.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { parsePublishedRun, PUBLISHED_FORMATS, writeImportedRun, type PublishedFormat } from '../../localizer/interchange/published-runs.ts';
import { addSelectionOptions } from './common.ts';
import { loadSelectionWithDataset, selectionOfFlags, type SelectionFlags } from '../engine/selection.ts';

interface ImportFlags extends SelectionFlags {
  format: string;
  out: string;
  label?: string;
  cacheDir: string;
}

export function register(program: Command): void {
  const command = program
    .command('import-run')
    .description('turn a published localization run into a locfix run folder (localize-files artifacts, selection, import-report.json)')
    .argument('<file>', 'the published file');
  addSelectionOptions(command);
  useFlags(command, ['format', 'out', 'label', 'cacheDir'], {
    format: { required: true, description: `one of ${PUBLISHED_FORMATS.join(', ')}` },
    out: { required: true, description: 'run directory to write' },
    label: { description: 'localizer name recorded in the artifacts (default: imported-<format>)' },
    cacheDir: { description: 'cache folder (Hub datasets)', default: defaultCacheDir() },
  }).action(async (file: string, flags: ImportFlags) => {
    if (!(PUBLISHED_FORMATS as readonly string[]).includes(flags.format))
      throw new Error(`--format: unknown format "${flags.format}"; known: ${PUBLISHED_FORMATS.join(', ')}`);
    const format = flags.format as PublishedFormat;
    const text = await readFile(path.resolve(file), 'utf8');
    // BLAgent rows point into the whole dataset's order, whatever the selection
    const { dataset: whole, selection } = await loadSelectionWithDataset(selectionOfFlags(flags), 'import-run');
    const parsed = parsePublishedRun(format, text, whole);
    const wanted = new Set(selection.map((i) => i.instance_id));
    const inWhole = new Set(whole.map((i) => i.instance_id));
    // rows of dataset instances outside the selection are left out quietly; unknown ones are problems
    parsed.rows = parsed.rows.filter((r) => wanted.has(r.instanceId) || !inWhole.has(r.instanceId));
    const report = await writeImportedRun(path.resolve(flags.out), parsed, selection, {
      format,
      source: path.basename(file),
      label: flags.label ?? `imported-${format}`,
      datasetName: flags.dataset,
    });
    for (const p of report.problems.slice(0, 20)) process.stderr.write(`import-run: row ${p.row}${p.instanceId ? ` (${p.instanceId})` : ''}: ${p.reason}\n`);
    if (report.problems.length > 20) process.stderr.write(`import-run: … ${report.problems.length - 20} more problems in import-report.json\n`);
    process.stderr.write(
      `import-run: ${report.imported} of ${selection.length} instances imported, ${report.missing.length} without a row, ${report.problems.length} problems -> ${flags.out}\n`,
    );
    if (report.imported === 0) process.exitCode = 1;
  });
}
