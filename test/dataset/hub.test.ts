import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cachedHubParquet, hubCacheFolder, parseHubDatasetName } from '../../src/dataset/hub.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import { removeDir, tempDir } from '../repo/fixtures.ts';
import { parquetBytes, row } from './fixtures.ts';

/**
 * A loopback stand-in for the Hub: the parquet listing endpoint answers with shard URLs that redirect to
 * the file, as https://huggingface.co/api/datasets/<name>/parquet/<config>/<split> does.
 */
class FakeHub {
  readonly requests: string[] = [];
  private server: Server | undefined;
  private shards = new Map<string, Uint8Array[]>(); // "<name>/<config>/<split>" -> shard bytes
  base = '';

  add(name: string, config: string, split: string, shards: Uint8Array[]): void {
    this.shards.set(`${name}/${config}/${split}`, shards);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = decodeURIComponent(req.url ?? '');
    this.requests.push(url);
    const list = /^\/api\/datasets\/([^/]+\/[^/]+)\/parquet\/([^/]+)\/([^/]+)$/.exec(url);
    if (list) {
      const shards = this.shards.get(`${list[1]}/${list[2]}/${list[3]}`);
      if (!shards) return void res.writeHead(404).end('{"error":"not found"}');
      const urls = shards.map((_, i) => `${this.base}/api/datasets/${list[1]}/parquet/${list[2]}/${list[3]}/${i}.parquet`);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(urls));
    }
    const shard = /^\/api\/datasets\/([^/]+\/[^/]+)\/parquet\/([^/]+)\/([^/]+)\/(\d+)\.parquet$/.exec(url);
    if (shard) {
      const location = `/datasets/${shard[1]}/resolve/refs%2Fconvert%2Fparquet/${shard[2]}/${shard[3]}/${shard[4]!.padStart(4, '0')}.parquet`;
      return void res.writeHead(302, { location }).end();
    }
    const file = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/refs\/convert\/parquet\/([^/]+)\/([^/]+)\/(\d+)\.parquet$/.exec(url);
    const bytes = file ? this.shards.get(`${file[1]}/${file[2]}/${file[3]}`)?.[Number(file[4])] : undefined;
    if (bytes) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(bytes));
    res.writeHead(404).end('not found');
  }
}

let hub: FakeHub;
let cacheRoot: string;

beforeAll(async () => {
  hub = new FakeHub();
  hub.add('SWE-bench/SWE-bench_Lite', 'default', 'test', [parquetBytes([row(1), row(2)]), parquetBytes([row(3, 'psf/requests')])]);
  hub.add('SWE-bench/SWE-bench_Lite', 'default', 'dev', [parquetBytes([row(7)])]);
  hub.add('acme/multi', 'extra', 'train', [parquetBytes([row(9)])]);
  await hub.start();
  cacheRoot = tempDir('hub');
});

afterAll(async () => {
  await hub.stop();
  removeDir(cacheRoot);
});

beforeEach(() => {
  hub.requests.length = 0;
});

const offlineFetch: typeof fetch = async () => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND huggingface.co'), { code: 'ENOTFOUND' }) });
};

describe('parseHubDatasetName', () => {
  it('reads name, optional split and config', () => {
    expect(parseHubDatasetName('SWE-bench/SWE-bench_Lite')).toEqual({ name: 'SWE-bench/SWE-bench_Lite', config: 'default', split: 'test' });
    expect(parseHubDatasetName('SWE-bench/SWE-bench_Lite:dev')).toEqual({ name: 'SWE-bench/SWE-bench_Lite', config: 'default', split: 'dev' });
    expect(parseHubDatasetName('acme/multi:extra:train')).toEqual({ name: 'acme/multi', config: 'extra', split: 'train' });
    expect(parseHubDatasetName('just-a-name')).toBeUndefined();
    expect(parseHubDatasetName('../x')).toBeUndefined();
    expect(parseHubDatasetName('a/b/c')).toBeUndefined();
  });
});

describe('Hub datasets', () => {
  it('downloads every shard of the split, caches it, then reuses the cache offline', async () => {
    const cacheDir = path.join(cacheRoot, 'a');
    const first = await loadDataset('SWE-bench/SWE-bench_Lite', { cacheDir, hubEndpoint: hub.base });
    expect(first.errors).toEqual([]);
    expect(first.instances.map((i) => i.instance_id)).toEqual(['acme__widgets-101', 'acme__widgets-102', 'psf__requests-103']);
    expect(first.instances[2]!.FAIL_TO_PASS).toEqual(['tests/test_core.py::test_3']);
    const folder = path.join(cacheDir, 'datasets', 'SWE-bench', 'SWE-bench_Lite', 'test');
    expect(hubCacheFolder(cacheDir, { name: 'SWE-bench/SWE-bench_Lite', config: 'default', split: 'test' })).toBe(folder);
    expect(readdirSync(folder).sort()).toEqual(['0000.parquet', '0001.parquet', 'manifest.json']);
    expect(first.files).toEqual([path.join(folder, '0000.parquet'), path.join(folder, '0001.parquet')]);
    expect(hub.requests[0]).toBe('/api/datasets/SWE-bench/SWE-bench_Lite/parquet/default/test');
    expect(JSON.parse(readFileSync(path.join(folder, 'manifest.json'), 'utf8'))).toMatchObject({ dataset: 'SWE-bench/SWE-bench_Lite', split: 'test' });

    hub.requests.length = 0;
    const again = await loadDataset('SWE-bench/SWE-bench_Lite:test', { cacheDir, hubEndpoint: hub.base, fetch: offlineFetch });
    expect(again.instances.map((i) => i.instance_id)).toEqual(first.instances.map((i) => i.instance_id));
    expect(hub.requests).toEqual([]);
  });

  it('keeps splits and configs apart in the cache', async () => {
    const cacheDir = path.join(cacheRoot, 'b');
    const dev = await loadDataset('SWE-bench/SWE-bench_Lite:dev', { cacheDir, hubEndpoint: hub.base });
    expect(dev.instances.map((i) => i.instance_id)).toEqual(['acme__widgets-107']);
    const extra = await loadDataset('acme/multi:extra:train', { cacheDir, hubEndpoint: hub.base });
    expect(extra.instances.map((i) => i.instance_id)).toEqual(['acme__widgets-109']);
    expect(existsSync(path.join(cacheDir, 'datasets', 'acme', 'multi', 'extra', 'train', '0000.parquet'))).toBe(true);
  });

  it('takes the endpoint from LOCFIX_HF_ENDPOINT', async () => {
    const cacheDir = path.join(cacheRoot, 'env');
    const saved = process.env.LOCFIX_HF_ENDPOINT;
    process.env.LOCFIX_HF_ENDPOINT = hub.base + '/';
    try {
      const { instances } = await loadDataset('SWE-bench/SWE-bench_Lite:dev', { cacheDir });
      expect(instances).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.LOCFIX_HF_ENDPOINT;
      else process.env.LOCFIX_HF_ENDPOINT = saved;
    }
  });

  it('offline and not cached: tells the user to download the parquet and pass its path', async () => {
    const cacheDir = path.join(cacheRoot, 'offline');
    const error = (await loadDataset('SWE-bench/SWE-bench_Lite', { cacheDir, hubEndpoint: 'https://huggingface.co', fetch: offlineFetch }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(
      /^Cannot reach the Hugging Face Hub at https:\/\/huggingface\.co to download dataset SWE-bench\/SWE-bench_Lite \(config default, split test\): fetch failed \(ENOTFOUND\)/,
    );
    expect(error.message).toContain('pass the file path instead (--dataset path/to/file.parquet)');
    expect(error.message).toContain(path.join(cacheDir, 'datasets', 'SWE-bench', 'SWE-bench_Lite', 'test'));
    expect(await cachedHubParquet(cacheDir, { name: 'SWE-bench/SWE-bench_Lite', config: 'default', split: 'test' })).toBeUndefined();
  });

  it('a real refused connection gives the same advice', async () => {
    const closed = new FakeHub();
    await closed.start();
    const endpoint = closed.base;
    await closed.stop();
    const cacheDir = path.join(cacheRoot, 'refused');
    await expect(loadDataset('SWE-bench/SWE-bench_Lite', { cacheDir, hubEndpoint: endpoint })).rejects.toThrow(
      /fetch failed \(ECONNREFUSED\).*pass the file path/s,
    );
  });

  it('an unknown split is a clear error and caches nothing', async () => {
    const cacheDir = path.join(cacheRoot, 'unknown');
    await expect(loadDataset('SWE-bench/SWE-bench_Lite:nope', { cacheDir, hubEndpoint: hub.base })).rejects.toThrow(
      /no such dataset, config or split on the Hub/,
    );
    expect(await cachedHubParquet(cacheDir, { name: 'SWE-bench/SWE-bench_Lite', config: 'default', split: 'nope' })).toBeUndefined();
  });
});
