/**
 * Fault (issue 42, round 3): `locfix view` and `--export` read files outside the run folder. A folder someone
 * hands you showed /etc/passwd in the page and wrote it into the static export, through a symbolic link in its
 * evaluation logs or an instance id `../../outside` from its selection file; and the server answered any Host
 * header, so a web page could read runs through DNS rebinding. The confinement rule (src/run/confinement.ts)
 * refuses both ways out for every reader of run folders; the server answers loopback names only.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../app/view/catalogue.ts';
import { exportView } from '../../app/view/export.ts';
import { serveView, serverNames, viewApp } from '../../app/view/server.ts';
import { analyzeRun } from '../../results/run-analysis.ts';
import { openRunFolder } from '../../results/run-folder.ts';
import { mergeRunFolders } from '../../src/run/merge-runs.ts';
import { assertConfined, confinedPath, readConfinedFile } from '../../src/run/confinement.ts';
import { EXAMPLE_ROW, writeRankingFolder } from './fixture-runs.ts';

const SECRET = 'root:x:0:0:the secret outside the run folder';
let dir: string;

/** A stage folder of these instances (test/view/fixture-runs.ts). */
const stageFolder = (name: string, ids: string[]) => writeRankingFolder(path.join(dir, name), ids);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-confinement-'));
  await writeFile(path.join(dir, 'secret.txt'), SECRET);
  await mkdir(path.join(dir, 'outside'), { recursive: true });
  await writeFile(path.join(dir, 'outside', 'test_output.txt'), SECRET);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the confinement rule', () => {
  it('confinedPath refuses a path that leaves the folder; readConfinedFile a file that resolves outside it', async () => {
    const root = path.join(dir, 'plain');
    await mkdir(root, { recursive: true });
    expect(confinedPath(root, 'evaluation', 'x', 'report.json')).toBe(path.join(root, 'evaluation', 'x', 'report.json'));
    expect(() => confinedPath(root, 'evaluation', '../../outside')).toThrow(/leaves the run folder/);
    expect(() => confinedPath(root, '/etc/passwd')).toThrow(/leaves the run folder/);
    await symlink(path.join(dir, 'secret.txt'), path.join(root, 'link.txt'));
    await expect(readConfinedFile(root, 'link.txt')).rejects.toThrow(/outside the run folder; refused/);
    await writeFile(path.join(root, 'inside.txt'), 'ok');
    await symlink(path.join(root, 'inside.txt'), path.join(root, 'inner-link.txt'));
    expect(await readConfinedFile(root, 'inner-link.txt')).toBe('ok');
    expect(await readConfinedFile(root, 'missing.txt')).toBeUndefined();
  });

  it('a symbolic link out of the folder refuses the folder for every reader: view, export, analyze, merge', async () => {
    const root = await stageFolder('linked', [EXAMPLE_ROW.instance_id]);
    const logs = path.join(root, 'evaluation', EXAMPLE_ROW.instance_id);
    await mkdir(logs, { recursive: true });
    await symlink(path.join(dir, 'secret.txt'), path.join(logs, 'test_output.txt'));
    await expect(assertConfined(root)).rejects.toThrow(/test_output\.txt: a symbolic link out of the run folder/);
    // before: the instance page showed the secret, and the export wrote it
    await expect(Catalogue.open([root])).rejects.toThrow(/a symbolic link out of the run folder/);
    await expect(analyzeRun(root)).rejects.toThrow(/a symbolic link out of the run folder/);
    await expect(mergeRunFolders(path.join(dir, 'merged'), [root])).rejects.toThrow(/a symbolic link out of the run folder/);
    expect(existsSync(path.join(dir, 'merged', 'evaluation'))).toBe(false);
  });

  it('an id from a selection file is checked against the id rule before it names a path', async () => {
    const root = await stageFolder('escaping-id', ['../../outside', EXAMPLE_ROW.instance_id]);
    // before: the page of "../../outside" read <parent>/outside/test_output.txt
    await expect(openRunFolder(root)).rejects.toThrow(/localize-files\.selection\.json: instance id "\.\.\/\.\.\/outside" is not a valid id/);
  });

  it('an honest folder still opens, and its export holds nothing from outside it', async () => {
    const root = await stageFolder('honest', [EXAMPLE_ROW.instance_id]);
    const catalogue = await Catalogue.open([root]);
    const out = path.join(dir, 'export');
    await exportView(catalogue, out);
    const pages = await readdir(out, { recursive: true });
    for (const page of pages.filter((p) => p.endsWith('.html'))) expect(await readFile(path.join(out, page), 'utf8')).not.toContain(SECRET);
  });
});

describe('the server answers loopback names only', () => {
  it('a request with a foreign Host header is refused (DNS rebinding); loopback names and an explicit --host are served', async () => {
    const catalogue = await Catalogue.open([await stageFolder('served', [EXAMPLE_ROW.instance_id])]);
    const app = viewApp(catalogue, { allowedHosts: ['127.0.0.1', 'localhost', '[::1]'] });
    const get = (host: string) => app.request('http://x/', { headers: { host } });
    // before: 200 for any Host
    expect((await get('evil.example:8765')).status).toBe(421);
    expect(await (await get('evil.example:8765')).text()).toMatch(/Host "evil\.example:8765" is not this server's name/);
    for (const host of ['127.0.0.1:8765', 'localhost:8765', 'LOCALHOST', '[::1]:8765']) expect((await get(host)).status, host).toBe(200);
    // served for real: the same through a socket, and a server told --host 0.0.0.0 takes any name
    const server = await serveView(catalogue, { port: 0 });
    try {
      const port = new URL(server.url).port;
      expect((await fetch(`${server.url}/`)).status).toBe(200);
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', headers: { host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(421);
    } finally {
      await server.close();
    }
    expect((await viewApp(catalogue, { allowedHosts: undefined }).request('http://x/', { headers: { host: 'anything.example' } })).status).toBe(200);
  });

  it('a server bound beyond loopback keeps an allowlist: its address, the host name, --allow-host; a rebinding name is refused', async () => {
    const catalogue = await Catalogue.open([await stageFolder('wide', [EXAMPLE_ROW.instance_id])]);
    // before: a server on 0.0.0.0 answered any Host
    const server = await serveView(catalogue, { host: '0.0.0.0', port: 0, allowHosts: ['runs.lab.example'] });
    try {
      const port = new URL(server.url).port;
      const { request } = await import('node:http');
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await status('evil.example')).toBe(421);
      expect(await status(`evil.example:${port}`)).toBe(421);
      for (const host of [`127.0.0.1:${port}`, `${os.hostname()}:${port}`, 'runs.lab.example', `RUNS.lab.example:${port}`])
        expect(await status(host), host).toBe(200);
    } finally {
      await server.close();
    }
    expect(serverNames('192.0.2.7')).toContain('192.0.2.7');
    expect(serverNames('fe80::1')).toContain('[fe80::1]');
    expect(serverNames('192.0.2.7')).not.toContain('evil.example');
  });
});
