/**
 * Image names are data (issue 50, finding 3). A row's `image` went into the engine's API path unescaped:
 * `../../../../127.0.0.1:PORT/x` made the client follow the daemon's redirect to a port the row chose, and
 * `../../../../etc` crashed `evaluate` with an unhandled 'error' event. Now a name outside the reference
 * grammar is the row's (or the flag's) error, the client refuses such a path, and a redirect is never followed.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { imageComponent } from '../../sandbox/common/image-recipe.ts';
import { EnginePathError, engineClient } from '../../sandbox/docker/engine-client.ts';
import { parseRunConfig } from '../../src/config.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { imageReferenceProblem } from '../../src/util/image-reference.ts';
import { runLocfix } from '../support/cli.ts';
import { ensureDocker } from '../support/docker.ts';

let dir: string | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function listen(handler: http.RequestListener): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits };
}

describe('the reference grammar', () => {
  it('takes the names images have and refuses paths, upper case, empty components and junk', () => {
    for (const ok of [
      'locfix/base:bookworm',
      'swebench/sweb.eval.x86_64.django_1776_django-11099:latest',
      'registry.example.com:5000/team/env__py-3.9:v1.2',
      'ubuntu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      'localhost/x',
    ])
      expect(imageReferenceProblem(ok), ok).toBeUndefined();
    for (const bad of ['../../../../etc', '../../../../127.0.0.1:9/x', 'Locfix/Base', 'a//b', 'a/../b', 'x:', ':tag', 'a b', 'a\nb', '', 'x'.repeat(300)])
      expect(imageReferenceProblem(bad), bad).toBeDefined();
  });

  it('image names locfix makes from ids follow it, whatever the id holds', () => {
    for (const id of ['django__django-11099', 'Weird..Id+2', 'a.-b', '__x__', '+++', 'ok-1.2_3'])
      expect(imageReferenceProblem(`locfix/sweb.inst.${imageComponent(id)}:0123abcd`), id).toBeUndefined();
    expect(imageComponent('django__django-11099')).toBe('django__django-11099');
  });
});

describe('names enter only through the grammar', () => {
  it("a row's image outside it is that row's error, naming the field; the other rows load", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-image-names-'));
    const good = { instance_id: 'x__y-1', repo: 'x/y', base_commit: 'abcdef0', problem_statement: 'p', image: 'acme/env:1' };
    const bad = { ...good, instance_id: 'x__y-2', image: '../../../../127.0.0.1:9/x' };
    await writeFile(path.join(dir, 'rows.jsonl'), `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
    const loaded = await loadDataset(path.join(dir, 'rows.jsonl'));
    expect(loaded.instances.map((i) => i.instance_id)).toEqual(['x__y-1']);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toMatchObject({ instanceId: 'x__y-2', field: 'image' });
    expect(loaded.errors[0]!.message).toMatch(/line 2: image: not an image reference/);
  });

  it('--base-image and --env-image values outside it are configuration errors', () => {
    expect(() => parseRunConfig({ dataset: 'd', sandbox: { baseImage: '../../etc' } })).toThrow(/sandbox\.baseImage.*not an image reference/s);
    expect(() => parseRunConfig({ dataset: 'd', sandbox: { envImages: { 'a/b': 'x/../../y' } } })).toThrow(/sandbox\.envImages.*not an image reference/s);
  });
});

describe('the engine client', () => {
  it('refuses a path with "..", an empty or encoded segment, as an error of the request (no crash)', async () => {
    const engine = await listen((_req, res) => res.end('{}'));
    const docker = engineClient({ host: '127.0.0.1', port: engine.port, protocol: 'http' });
    for (const name of ['../../../../etc', '../../../../127.0.0.1:9/x', 'a%2e%2e', 'a//b'])
      await expect(docker.getImage(name).inspect(), name).rejects.toBeInstanceOf(EnginePathError);
    expect(engine.hits).toEqual([]);
    await expect(docker.getImage('locfix/base:bookworm').inspect()).resolves.toEqual({});
  });

  it('never follows a redirect: the answer is the request error, and the other host sees nothing', async () => {
    const elsewhere = await listen((_req, res) => res.end('{"Id":"elsewhere"}'));
    const engine = await listen((_req, res) => {
      res.writeHead(301, { location: `http://127.0.0.1:${elsewhere.port}/x` });
      res.end();
    });
    const docker = engineClient({ host: '127.0.0.1', port: engine.port, protocol: 'http' });
    await expect(docker.getImage('acme/env:1').inspect()).rejects.toThrow(/redirect/i);
    expect(engine.hits).toEqual(['GET /images/acme/env:1/json']);
    expect(elsewhere.hits).toEqual([]);
  });
});

const hasDocker = await ensureDocker('image names end to end');

describe.skipIf(!hasDocker)('locfix evaluate with a hostile image name in one row', () => {
  it('that row is refused by name and the others are evaluated; no crash', { timeout: 300_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-image-names-'));
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    const rows = (await readFile(bench.datasetPath, 'utf8')).trim().split('\n').slice(0, 1);
    const first = JSON.parse(rows[0]!) as Record<string, unknown>;
    const hostile = { ...first, instance_id: `${String(first.instance_id)}-hostile`, image: '../../../../etc' };
    const dataset = path.join(dir, 'rows.jsonl');
    await writeFile(dataset, `${rows[0]}\n${JSON.stringify(hostile)}\n`);
    const result = await runLocfix(
      ['evaluate', '--dataset', dataset, '--predictions', 'gold', '--run-id', 'names', '--runs-dir', path.join(dir, 'runs'), '--mirrors', bench.mirrorsDir],
      path.join(dir, 'cache'),
    );
    const said = result.stdout + result.stderr;
    expect(said).not.toMatch(/Unhandled 'error' event|ENOTFOUND/);
    expect(said).toMatch(/line 2: image: not an image reference/);
    expect(result.stdout).toContain('Instances resolved: 1');
  });
});
