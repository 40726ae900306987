/**
 * `locfix view RUN... [--port N] [--host H] [--allow-host NAME]`: a run browser in the web browser over any kind of run folder
 * (runs, arms, the instance table, one instance stage by stage), served on the loopback address by default.
 * `locfix view RUN... --export DIR` writes the same pages as static HTML instead.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import { Catalogue } from '../view/catalogue.ts';
import { exportView } from '../view/export.ts';
import { serveView } from '../view/server.ts';
import { claimSignal } from '../../src/util/termination.ts';

interface ViewFlags {
  port: number;
  host: string;
  allowHost: string[];
  export?: string;
}

/** Serves until Ctrl-C or SIGTERM, then closes the server (the action stays pending until then). */
async function serveUntilStopped(catalogue: Catalogue, flags: ViewFlags): Promise<void> {
  const port = flags.port;
  const server = await serveView(catalogue, { host: flags.host, port, allowHosts: flags.allowHost });
  const instances = catalogue.rows.length;
  console.log(
    `locfix view: ${catalogue.runs.length} run${catalogue.runs.length === 1 ? '' : 's'}, ${instances} instance runs at ${server.url}/ (Ctrl-C stops)`,
  );
  if (flags.host !== '127.0.0.1' && flags.host !== 'localhost' && flags.host !== '::1')
    console.log(`locfix view: listening on ${flags.host}: anyone who reaches it sees the runs' code, issues and model outputs`);
  await new Promise<void>((resolve) => {
    const release: Array<() => void> = [];
    const stop = () => {
      for (const r of release) r();
      void server.close().then(resolve);
    };
    release.push(claimSignal('SIGINT', stop), claimSignal('SIGTERM', stop));
  });
}

export function register(program: Command): void {
  const command = program
    .command('view')
    .description('browse runs in the web browser: runs and arms, every instance, one instance stage by stage (any kind of run folder)')
    .argument('<runs...>', 'run folders (locfix run, stage commands, import-run, merge)');
  useFlags(command, ['port', 'host', 'allowHost', 'export'], { port: { default: 8765 }, host: { default: '127.0.0.1' } }).action(
    async (runs: string[], flags: ViewFlags) => {
      const catalogue = await Catalogue.open(runs);
      if (flags.export) {
        const summary = await exportView(catalogue, flags.export, (line) => console.log(line));
        console.log(`locfix view: ${summary.pages} pages in ${summary.dir} (open index.html)`);
        return;
      }
      await serveUntilStopped(catalogue, flags);
    },
  );
}
