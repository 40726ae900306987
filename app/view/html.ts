/**
 * The building blocks of the run browser's pages. Every page is HTML made with hono's `html` tagged template,
 * which escapes whatever it interpolates: issue texts, model outputs, logs and paths are untrusted, and none of
 * them is ever marked raw. The pages carry no script at all, and their Content-Security-Policy forbids any, so
 * even markup that escaped escaping could not run. Collapsing is `<details>`; filters are GET forms.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { InstanceQuery } from './catalogue.ts';

export type Html = HtmlEscapedString;

/** No script, no frames, no outside resources: styles and images from the browser itself only. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** How pages link to each other: the server's routes, or the files of a static export. */
export interface Links {
  home(): string;
  instances(q?: InstanceQuery): string;
  instance(run: string, id: string): string;
  style(): string;
  /** false in a static export: its instance lists are pre-made per filter, not queried */
  readonly live: boolean;
}

/** hono's `html` is synchronous for the values the pages interpolate (never a promise): this says so. */
export function sync(value: Html | Promise<Html>): Html {
  if (value instanceof Promise) throw new Error('a page part was asynchronous');
  return value;
}

export function page(links: Links, title: string, body: Html): string {
  return String(
    sync(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<title>${title} · locfix</title>
<link rel="stylesheet" href="${links.style()}">
</head>
<body>
<nav><a href="${links.home()}">runs</a> <a href="${links.instances()}">instances</a></nav>
<main>${body}</main>
</body>
</html>
`),
  );
}

/** A long text collapsed to its first lines, the rest one click away. */
export function longText(text: string, lines = 40): Html {
  const all = text.split('\n');
  if (all.length <= lines && text.length <= 8_000) return sync(html`<pre>${text}</pre>`);
  const head = all.slice(0, lines).join('\n').slice(0, 8_000);
  return sync(
    html`<pre>${head}</pre><details><summary>${all.length - lines > 0 ? `${all.length - lines} more lines` : 'the rest'}</summary><pre>${text}</pre></details>`,
  );
}

/** A unified diff with its lines marked added, removed, hunk or file header. */
export function diff(patch: string | undefined): Html {
  if (!patch?.trim()) return sync(html`<p class="muted">no patch</p>`);
  const lines = patch.replace(/\n$/, '').split('\n');
  const kind = (line: string) =>
    line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'ctx';
  // block spans make the lines; a newline after each would double them
  return sync(html`<pre class="diff">${lines.map((line) => html`<span class="${kind(line)}">${line || ' '}</span>`)}</pre>`);
}

/** Any JSON value, pretty, collapsed when long. */
export function json(value: unknown, lines = 30): Html {
  return longText(JSON.stringify(value, null, 2) ?? 'undefined', lines);
}

export function category(name: string): Html {
  return sync(html`<span class="cat cat-${name.replace(/[^a-z-]/g, '')}">${name}</span>`);
}

export function dollars(cost: number): string {
  return cost === 0 ? '$0' : cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function seconds(ms: number | undefined): string {
  return ms === undefined ? '–' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
