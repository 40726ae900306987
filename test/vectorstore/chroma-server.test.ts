/**
 * One Chroma server per data folder, across processes: concurrent starters, and the orphan of a kill -9, which
 * the next process adopts (it ran forever before: every later process reused it and none stopped it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-chroma-server-'));
const pids: number[] = [];

afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A process that starts (or finds) the server for `dataDir`, prints it, and stays alive until killed. */
function starter(dataDir: string, options: { exitAfterPrint?: boolean } = {}): { lines: Promise<{ url: string; owned: boolean }>; kill: () => void } {
  const code = `import { startChromaServer } from ${JSON.stringify(path.join(ROOT, 'src/vectorstore/chroma-server.ts'))};
const s = await startChromaServer({ dataDir: ${JSON.stringify(dataDir)} });
console.log(JSON.stringify({ url: s.url, owned: s.owned }));
${options.exitAfterPrint ? 'setTimeout(() => process.exit(0), 200);' : 'setInterval(() => {}, 1000);'}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  pids.push(child.pid!);
  const lines = new Promise<{ url: string; owned: boolean }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
    child.once('exit', (code) => reject(new Error(`starter exited with ${code} before printing`)));
  });
  return { lines, kill: () => child.kill('SIGKILL') };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('local Chroma server per data folder', () => {
  it('two processes starting at once share one server; after kill -9 the orphan is adopted, and ends with its adopter', async () => {
    const dataDir = path.join(dir, 'chroma');
    const a = starter(dataDir);
    const b = starter(dataDir);
    const [first, second] = await Promise.all([a.lines, b.lines]);
    expect(first.url).toBe(second.url);
    expect([first.owned, second.owned].sort()).toEqual([false, true]);

    // kill -9 both: their exit hooks do not run, so the server is left behind (an orphan)
    a.kill();
    b.kill();
    await new Promise((r) => setTimeout(r, 500));
    const state = JSON.parse(readFileSync(path.join(dir, 'chroma-server.json'), 'utf8')) as { pid: number };
    pids.push(state.pid);
    // the next process adopts the orphan (its owner is gone) and stops it when it ends, so it does not run forever
    const adopter = starter(dataDir, { exitAfterPrint: true });
    const found = await adopter.lines;
    expect(found.url).toBe(first.url);
    expect(found.owned).toBe(true);
    for (let i = 0; i < 50 && alive(state.pid); i++) await new Promise((r) => setTimeout(r, 200));
    expect(alive(state.pid), 'the adopted server ended with its adopter').toBe(false);
  }, 180_000);
});
