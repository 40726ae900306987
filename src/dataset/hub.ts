/**
 * Hugging Face Hub datasets: resolve a dataset split to its parquet files, download them once, and read
 * them from the cache afterwards (also offline).
 *
 * The Hub lists the parquet export of a split at
 *   GET <endpoint>/api/datasets/<owner>/<name>/parquet/<config>/<split>  ->  ["<url of shard 0>", ...]
 * (the dataset viewer's conversion on the `refs/convert/parquet` branch; shard URLs redirect to the files).
 * The endpoint is https://huggingface.co unless the option, LOCFIX_HF_ENDPOINT or HF_ENDPOINT says
 * otherwise; HF_TOKEN (if set) is sent for gated or private datasets.
 *
 * Cache layout: <cacheDir>/datasets/<owner>/<name>/<split>/0000.parquet, 0001.parquet, ... (shard order),
 * plus `manifest.json`, written last, which marks the download complete. A non-default config adds a
 * folder: <cacheDir>/datasets/<owner>/<name>/<config>/<split>/.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathExists, readJsonIfExists, writeFileAtomic, writeJsonAtomic } from '../util/fsx.ts';

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

export interface HubDatasetRef {
  /** "owner/name" */
  name: string;
  config: string;
  split: string;
}

export interface HubDownloadOptions {
  cacheDir: string;
  /** base URL of the Hub; default LOCFIX_HF_ENDPOINT, then HF_ENDPOINT, then https://huggingface.co */
  endpoint?: string;
  fetch?: typeof fetch;
  /** bearer token; default HF_TOKEN */
  token?: string;
  /** download again even when the cache is complete */
  refresh?: boolean;
}

interface CacheManifest {
  dataset: string;
  config: string;
  split: string;
  endpoint: string;
  urls: string[];
  files: string[];
  downloadedAt: string;
}

export class HubDatasetError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HubDatasetError';
  }
}

const HUB_NAME = /^([A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*)(?::([\w.-]+))?(?::([\w.-]+))?$/;

/**
 * Parses `owner/name`, `owner/name:split` or `owner/name:config:split` (split defaults to `test`, config
 * to `default`). Returns undefined for anything else.
 */
export function parseHubDatasetName(source: string): HubDatasetRef | undefined {
  const match = HUB_NAME.exec(source);
  if (!match) return undefined;
  const [, name, first, second] = match;
  if (name!.split('/').some((part) => part === '.' || part === '..')) return undefined;
  if (second !== undefined) return { name: name!, config: first!, split: second };
  return { name: name!, config: 'default', split: first ?? 'test' };
}

export function hubEndpoint(explicit?: string): string {
  const endpoint = explicit ?? process.env.LOCFIX_HF_ENDPOINT ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB_ENDPOINT;
  return endpoint.replace(/\/+$/, '');
}

export function hubCacheFolder(cacheDir: string, ref: HubDatasetRef): string {
  const parts = [path.resolve(cacheDir), 'datasets', ...ref.name.split('/')];
  if (ref.config !== 'default') parts.push(ref.config);
  parts.push(ref.split);
  return path.join(...parts);
}

export function hubParquetListUrl(endpoint: string, ref: HubDatasetRef): string {
  const [owner, name] = ref.name.split('/') as [string, string];
  return `${endpoint}/api/datasets/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/parquet/${encodeURIComponent(ref.config)}/${encodeURIComponent(ref.split)}`;
}

/** The cached parquet files of a split, or undefined when no complete download is cached. */
export async function cachedHubParquet(cacheDir: string, ref: HubDatasetRef): Promise<string[] | undefined> {
  const folder = hubCacheFolder(cacheDir, ref);
  const manifest = await readJsonIfExists<CacheManifest>(path.join(folder, 'manifest.json')).catch(() => undefined);
  if (!manifest || !Array.isArray(manifest.files) || manifest.files.length === 0) return undefined;
  const files = manifest.files.map((f) => path.join(folder, f));
  for (const file of files) if (!(await pathExists(file))) return undefined;
  return files;
}

/**
 * Local parquet files for a Hub dataset split: from the cache when complete, otherwise downloaded (and
 * cached). Throws HubDatasetError with what to do when the Hub cannot be reached.
 */
export async function downloadHubParquet(ref: HubDatasetRef, options: HubDownloadOptions): Promise<string[]> {
  if (!options.refresh) {
    const cached = await cachedHubParquet(options.cacheDir, ref);
    if (cached) return cached;
  }
  const endpoint = hubEndpoint(options.endpoint);
  const doFetch = options.fetch ?? globalThis.fetch;
  const token = options.token ?? process.env.HF_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const folder = hubCacheFolder(options.cacheDir, ref);
  const listUrl = hubParquetListUrl(endpoint, ref);
  const label = `${ref.name} (config ${ref.config}, split ${ref.split})`;
  const manualHint =
    `Download the parquet file(s) of that split yourself (listed at ${listUrl}, e.g. ` +
    `${endpoint}/datasets/${ref.name}/tree/refs%2Fconvert%2Fparquet) and pass the file path instead ` +
    `(--dataset path/to/file.parquet), or put the files in ${folder}/ as 0000.parquet, 0001.parquet, ... ` +
    `with a manifest.json (or set LOCFIX_HF_ENDPOINT to a reachable mirror of the Hub).`;

  let response: Response;
  try {
    response = await doFetch(listUrl, { headers });
  } catch (err) {
    throw new HubDatasetError(
      `Cannot reach the Hugging Face Hub at ${endpoint} to download dataset ${label}: ${networkReason(err)}. ` +
        `Nothing is cached for it in ${folder}. ${manualHint}`,
      { cause: err },
    );
  }
  if (!response.ok) {
    const why =
      response.status === 401 || response.status === 403
        ? 'access denied (set HF_TOKEN for a gated or private dataset)'
        : response.status === 404
          ? 'no such dataset, config or split on the Hub'
          : `HTTP ${response.status} ${response.statusText}`;
    throw new HubDatasetError(`Listing the parquet files of ${label} at ${listUrl} failed: ${why}. ${manualHint}`);
  }
  let urls: unknown;
  try {
    urls = await response.json();
  } catch (err) {
    throw new HubDatasetError(`The Hub's parquet listing for ${label} at ${listUrl} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(urls) || urls.length === 0 || !urls.every((u) => typeof u === 'string')) {
    throw new HubDatasetError(`The Hub's parquet listing for ${label} at ${listUrl} is not a non-empty list of URLs: ${JSON.stringify(urls).slice(0, 200)}`);
  }

  await fs.mkdir(folder, { recursive: true });
  await fs.rm(path.join(folder, 'manifest.json'), { force: true }); // incomplete until rewritten below
  const files: string[] = [];
  const absoluteUrls = (urls as string[]).map((u) => new URL(u, endpoint + '/').toString());
  for (const [index, url] of absoluteUrls.entries()) {
    const file = `${String(index).padStart(4, '0')}.parquet`;
    let body: ArrayBuffer;
    try {
      const shard = await doFetch(url, { headers, redirect: 'follow' });
      if (!shard.ok) throw new Error(`HTTP ${shard.status} ${shard.statusText}`);
      body = await shard.arrayBuffer();
    } catch (err) {
      throw new HubDatasetError(`Downloading ${url} (shard ${index + 1} of ${absoluteUrls.length} of ${label}) failed: ${networkReason(err)}. ${manualHint}`, {
        cause: err,
      });
    }
    await writeFileAtomic(path.join(folder, file), new Uint8Array(body));
    files.push(file);
  }
  const manifest: CacheManifest = {
    dataset: ref.name,
    config: ref.config,
    split: ref.split,
    endpoint,
    urls: absoluteUrls,
    files,
    downloadedAt: new Date().toISOString(),
  };
  await writeJsonAtomic(path.join(folder, 'manifest.json'), manifest);
  return files.map((f) => path.join(folder, f));
}

function networkReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // undici reports "fetch failed" and puts the real reason (ECONNREFUSED, ENOTFOUND, ...) in `cause`
  const cause = (err as Error & { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : undefined;
  return detail ? `${err.message} (${detail})` : err.message;
}
