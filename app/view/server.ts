/**
 * The run browser's web server: hono routes over a Catalogue. `viewApp` is the application alone (tests and
 * the static export call it without a socket); `serveView` listens, on the loopback address unless told
 * otherwise, and answers until it is closed.
 */
import os from 'node:os';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { SORT_KEYS, type Catalogue, type InstanceQuery, type SortKey } from './catalogue.ts';
import { CONTENT_SECURITY_POLICY, page, sync, type Html, type Links } from './html.ts';
import { instancePage } from './pages/instance.ts';
import { instancesPage, runsPage } from './pages/lists.ts';
import { STYLE } from './style.ts';

const enc = encodeURIComponent;

/** Query-string form of a filter, leaving out what is unset or default. */
export function queryString(q: InstanceQuery = {}): string {
  const params = new URLSearchParams();
  for (const key of ['run', 'repo', 'category', 'arm', 'tier', 'text'] as const) if (q[key]) params.set(key, q[key]!);
  if (q.sort && q.sort !== 'id') params.set('sort', q.sort);
  if (q.descending) params.set('desc', '1');
  if (q.page && q.page > 1) params.set('page', String(q.page));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export const serverLinks: Links = {
  live: true,
  home: () => '/',
  instances: (q) => `/instances${queryString(q)}`,
  instance: (run, id) => `/runs/${enc(run)}/instances/${enc(id)}`,
  style: () => '/style.css',
};

export function parseQuery(get: (name: string) => string | undefined): InstanceQuery {
  const sort = get('sort');
  const page = Number(get('page'));
  const q: InstanceQuery = {};
  for (const key of ['run', 'repo', 'category', 'arm', 'tier', 'text'] as const) {
    const v = get(key);
    if (v) q[key] = v;
  }
  if (sort && (SORT_KEYS as readonly string[]).includes(sort)) q.sort = sort as SortKey;
  if (get('desc') === '1') q.descending = true;
  if (Number.isInteger(page) && page > 1) q.page = page;
  return q;
}

/** The names a server on a loopback address answers to: a page elsewhere that rebinds its own name to 127.0.0.1 is refused. */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The host name of a Host header, lower case, without its port ("[::1]:8765" → "[::1]"). */
function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  return value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.replace(/:\d*$/, '');
}

/**
 * The application over a catalogue. With `allowedHosts`, a request whose Host header names another host is
 * answered 421 (DNS rebinding: a web page that points its own name at this machine would otherwise read the runs);
 * without, any name is served (only for a caller that checks names itself: `serveView` always passes a list).
 */
export function viewApp(catalogue: Catalogue, options: { allowedHosts?: readonly string[] } = {}): Hono {
  const app = new Hono();
  const allowed = options.allowedHosts ? new Set(options.allowedHosts.map((h) => h.toLowerCase())) : undefined;
  if (allowed)
    app.use('*', async (c, next) => {
      const host = c.req.header('host') ?? '';
      if (!allowed.has(hostName(host))) return c.text(`locfix view: Host "${host.slice(0, 100)}" is not this server's name; refused`, 421);
      await next();
    });
  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  app.get('/style.css', (c) => c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'max-age=3600' }));
  app.get('/', (c) => c.html(runsPage(catalogue, serverLinks)));
  app.get('/instances', (c) =>
    c.html(
      instancesPage(
        catalogue,
        serverLinks,
        parseQuery((name) => c.req.query(name)),
      ),
    ),
  );
  app.get('/runs/:run/instances/:id', async (c) => {
    const detail = await catalogue.instance(c.req.param('run'), c.req.param('id'));
    if (!detail) return c.html(page(serverLinks, 'not found', notFound(c.req.param('run'), c.req.param('id'))), 404);
    return c.html(instancePage(detail, serverLinks));
  });
  app.notFound((c) => c.html(page(serverLinks, 'not found', notFound()), 404));
  app.onError((err, c) => c.text(`locfix view: ${err.message}`, 500));
  return app;
}

function notFound(run?: string, id?: string): Html {
  return sync(html`<h1>Not found</h1>${run === undefined ? '' : html`<p>No instance ${id} in run ${run}.</p>`}`);
}

export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

const WILDCARD_ADDRESSES = new Set(['', '0.0.0.0', '::', '[::]']);

/** How a Host header writes an address: IPv6 in brackets, names in lower case. */
function asHostName(address: string): string {
  const value = address.trim().toLowerCase();
  return value.includes(':') && !value.startsWith('[') ? `[${value}]` : value;
}

/**
 * The names a server bound to `host` answers to. Always an allowlist, never "any name": a server put beyond
 * loopback with `--host` is as open to DNS rebinding as one on loopback (a page that points its own name at this
 * machine's address reads the runs). The list is the loopback names, the bound address, this machine's host
 * name, every address of its interfaces when bound to all of them (0.0.0.0 or ::), and the names given with
 * `--allow-host` (a DNS name that points here).
 */
export function serverNames(host: string, extra: readonly string[] = []): string[] {
  const names = new Set<string>(LOOPBACK_NAMES);
  const bound = host.trim();
  if (WILDCARD_ADDRESSES.has(bound)) {
    for (const addresses of Object.values(os.networkInterfaces())) for (const a of addresses ?? []) names.add(asHostName(a.address));
  } else names.add(asHostName(bound));
  const machine = os.hostname().toLowerCase();
  if (machine) names.add(machine);
  for (const name of extra) if (name.trim()) names.add(asHostName(name));
  return [...names];
}

/**
 * Listens on `host` (loopback by default: the pages show model outputs and code of the runs) and `port` (0: any
 * free one), answering only the names `serverNames` gives.
 */
export function serveView(catalogue: Catalogue, options: { host?: string; port?: number; allowHosts?: readonly string[] } = {}): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  const app = viewApp(catalogue, { allowedHosts: serverNames(host, options.allowHosts) });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, (info) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // a browser tab keeps its connection open (keep-alive): idle ones go now, busy ones after a second
            const http = 'closeAllConnections' in server ? server : undefined;
            http?.closeIdleConnections();
            setTimeout(() => http?.closeAllConnections(), 1000).unref();
          }),
      });
    });
    server.once('error', reject);
  });
}
