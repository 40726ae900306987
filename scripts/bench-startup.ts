/**
 * How long a locfix command takes to start, for each given CLI, in one run (machines are noisy: compare within it):
 *
 *   npm run bench:startup -- --cli new=bin/locfix.js --cli old=<older checkout>/bin/locfix.js --run RUN [--stage S] [--repeat 7]
 *
 * Each CLI runs `locfix --version` and `locfix eval-loc RUN --json` `--repeat` times. Wall time is measured here,
 * CPU time (user + system of the child) with GNU time when /usr/bin/time exists. Medians are printed.
 * `LOCFIX_FROM_SOURCE=1` in a CLI's name (`--cli tsx=bin/locfix.js:LOCFIX_FROM_SOURCE=1`) runs it from the
 * TypeScript sources.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    cli: { type: 'string', multiple: true, default: [] },
    run: { type: 'string' },
    repeat: { type: 'string', default: '7' },
    // named, so that CLIs from before eval-loc found the stage itself read the same one
    stage: { type: 'string', default: 'localize-files' },
  },
});
if (!values.cli.length) throw new Error('usage: npm run bench:startup -- --cli NAME=PATH[:ENV=VALUE] … [--run RUN] [--repeat N]');
const repeat = Number(values.repeat);
const gnuTime = existsSync('/usr/bin/time');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'locfix-startup-'));

function once(bin: string, env: Record<string, string>, args: string[]): { wall: number; cpu?: number } {
  const timeFile = path.join(scratch, 'time');
  const command = gnuTime ? '/usr/bin/time' : process.execPath;
  const argv = gnuTime ? ['-f', '%U %S', '-o', timeFile, process.execPath, bin, ...args] : [bin, ...args];
  const started = process.hrtime.bigint();
  const result = spawnSync(command, argv, { env: { ...process.env, ...env }, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (!gnuTime) return { wall };
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
  return { wall, cpu: user + sys };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const commands: Array<[string, string[]]> = [['--version', ['--version']]];
if (values.run) commands.push([`eval-loc ${path.basename(values.run)}`, ['eval-loc', path.resolve(values.run), '--stage', values.stage, '--json']]);
const rows: string[] = [];
for (const spec of values.cli) {
  const [name, rest] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
  const [bin, ...envParts] = rest.split(':');
  const env = Object.fromEntries(envParts.map((e) => e.split('=') as [string, string]));
  for (const [label, args] of commands) {
    once(path.resolve(bin), env, args); // warm the file cache
    const samples = Array.from({ length: repeat }, () => once(path.resolve(bin), env, args));
    const cpu = samples.every((s) => s.cpu !== undefined) ? median(samples.map((s) => s.cpu!)).toFixed(2) : '–';
    rows.push(`| ${name} | ${label} | ${median(samples.map((s) => s.wall)).toFixed(2)} | ${cpu} |`);
  }
}
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(
  `${['| CLI | command | wall s (median) | CPU s (median) |', '|---|---|--:|--:|', ...rows].join('\n')}\n(${repeat} runs each, after one warm-up)\n`,
);
