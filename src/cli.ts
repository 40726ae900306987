/**
 * The `locfix` command line. Each command lives in `src/commands/<name>.ts` and exports
 * `register(program)`; this file only wires them together, so adding a command is one new file plus one
 * line in COMMANDS.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';

type Registrar = (program: Command) => void;

const COMMANDS: Array<() => Promise<{ register: Registrar }>> = [
  // one line per command module, e.g. () => import('./commands/retrieve.ts'),
  () => import('./commands/retrieve.ts'),
  () => import('./commands/eval-loc.ts'),
  () => import('./commands/evaluate.ts'),
  () => import('./commands/localize.ts'),
  () => import('./commands/localize-hierarchy.ts'),
  () => import('./commands/demo.ts'),
  () => import('./commands/run.ts'),
  () => import('./commands/report.ts'),
  () => import('./commands/repair.ts'),
  () => import('./commands/images.ts'),
  () => import('./commands/import-run.ts'),
  () => import('./commands/calibrate.ts'),
  () => import('./commands/merge.ts'),
];

export async function buildProgram(): Promise<Command> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command('locfix')
    .description('Staged automated program repair on SWE-bench with pluggable file localizers')
    .version(pkg.version)
    .showHelpAfterError();
  for (const load of COMMANDS) (await load()).register(program);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const program = await buildProgram();
  // `locfix eval-loc … | head` closes the pipe early: that is the reader being done, not an error
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Commands report per-instance failures themselves; reaching here means the command as a whole failed.
    console.error(`locfix: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.LOCFIX_DEBUG && err instanceof Error) console.error(err.stack);
    process.exitCode = 1;
  }
}
