/**
 * The `locfix` command line. Each command lives in `app/commands/<name>.ts` and exports
 * `register(program)`; this file only wires them together, so adding a command is one new file plus one
 * line in COMMANDS.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';

type Registrar = (program: Command) => void;
type CommandModule = () => Promise<{ register: Registrar }>;

/**
 * Every command name and the module that registers it, loaded only when needed: `locfix run …` imports the run
 * command's module alone, so a command starts without loading the other commands' dependencies (`--help` and an
 * unknown name load them all). A module registering several commands is listed under each name.
 */
const COMMANDS: Record<string, CommandModule> = {
  retrieve: () => import('./commands/retrieve.ts'),
  'eval-loc': () => import('./commands/eval-loc.ts'),
  evaluate: () => import('./commands/evaluate.ts'),
  gate: () => import('./commands/gate.ts'),
  localize: () => import('./commands/localize.ts'),
  'localize-functions': () => import('./commands/localize-hierarchy.ts'),
  'localize-lines': () => import('./commands/localize-hierarchy.ts'),
  'agentless-export': () => import('./commands/localize-hierarchy.ts'),
  'agentless-import': () => import('./commands/localize-hierarchy.ts'),
  demo: () => import('./commands/demo.ts'),
  run: () => import('./commands/run.ts'),
  ladder: () => import('./commands/ladder.ts'),
  analyze: () => import('./commands/report.ts'),
  compare: () => import('./commands/report.ts'),
  report: () => import('./commands/report.ts'),
  repair: () => import('./commands/repair.ts'),
  select: () => import('./commands/repair.ts'),
  images: () => import('./commands/images.ts'),
  'import-run': () => import('./commands/import-run.ts'),
  calibrate: () => import('./commands/calibrate.ts'),
  merge: () => import('./commands/merge.ts'),
  view: () => import('./commands/view.ts'),
};

/** The command a command line names (its first word that is not an option), if any. */
function commandOf(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((word) => !word.startsWith('-'));
}

export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command('locfix')
    .description('Staged automated program repair on SWE-bench with pluggable file localizers')
    .version(pkg.version)
    .showHelpAfterError();
  const name = commandOf(argv);
  const versionOnly = name === undefined && argv.slice(2).some((w) => w === '-V' || w === '--version');
  if (versionOnly) return program;
  const wanted = name !== undefined && Object.hasOwn(COMMANDS, name) ? [COMMANDS[name]] : Object.values(COMMANDS);
  // a module imported twice is the same namespace object: each registers its commands once
  const modules = await Promise.all(wanted.map((load) => load()));
  for (const module of new Set(modules)) module.register(program);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const program = await buildProgram(argv);
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
