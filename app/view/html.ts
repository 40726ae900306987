/**
 * The building blocks of the run browser's pages. Every page is HTML made with hono's `html` tagged template,
 * which escapes whatever it interpolates: issue texts, model outputs, logs and paths are untrusted, and none of
 * them is ever marked raw. The pages carry no script at all, and their Content-Security-Policy forbids any, so
 * even markup that escaped escaping could not run. Collapsing is `<details>`; filters are GET forms.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { InstanceQuery } from './catalogue.ts';

export type Html = HtmlEscapedString;

/** No script, no frames, no outside resources: styles and images from the browser itself only. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** The same in a page's meta element, which cannot carry frame-ancestors (browsers log an error for it there). */
const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(/; frame-ancestors [^;]*/, '');

/** The most characters of one text a page shows (a log, a model answer, an artifact as JSON); the rest is said to be left out. */
export const MAX_TEXT_CHARS = 500_000;
/** The most characters of a page's body; past it the page is cut, said at its end (a page is never megabytes). */
export const MAX_PAGE_CHARS = 8_000_000;
/** Levels of a JSON value shown; deeper ones are left out, said where (an artifact nested 100,000 levels deep). */
export const MAX_JSON_DEPTH = 40;

/**
 * Bidirectional controls made visible: in an id or a text they reorder what is shown (`x__y-2\u202Egnp.exe` reads as
 * "…exe.png"); markup never holds them, so the whole page is rewritten.
 */
export function showBidiControls(text: string): string {
  return text.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\u27e8U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}\u27e9`);
}

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

/** A body cut at MAX_PAGE_CHARS, at a line end, with a note of what was left out. */
function bounded(body: Html): Html | string {
  const text = String(body);
  if (text.length <= MAX_PAGE_CHARS) return body;
  const cut = text.lastIndexOf('\n', MAX_PAGE_CHARS);
  return raw(
    `${text.slice(0, cut > 0 ? cut : MAX_PAGE_CHARS)}\n<p class="warn">page truncated: ${text.length - (cut > 0 ? cut : MAX_PAGE_CHARS)} more characters left out</p>`,
  );
}

export function page(links: Links, title: string, body: Html): string {
  return showBidiControls(
    String(
      sync(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${META_CONTENT_SECURITY_POLICY}">
<title>${title} · locfix</title>
<link rel="stylesheet" href="${links.style()}">
</head>
<body>
<nav><a href="${links.home()}">runs</a> <a href="${links.instances()}">instances</a></nav>
<main>${bounded(body)}</main>
</body>
</html>
`),
    ),
  );
}

/** A long text collapsed to its first lines, the rest one click away; past MAX_TEXT_CHARS it is cut, said so. */
export function longText(whole: string, lines = 40): Html {
  const text = whole.length > MAX_TEXT_CHARS ? `${whole.slice(0, MAX_TEXT_CHARS)}\n[… truncated: ${whole.length - MAX_TEXT_CHARS} more characters]` : whole;
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

/** Any JSON value, pretty, collapsed when long; bounded in depth and size, so no value can stop the page. */
export function json(value: unknown, lines = 30): Html {
  return longText(boundedJson(value), lines);
}

/**
 * JSON.stringify(value, null, 2) for values up to MAX_JSON_DEPTH levels and MAX_TEXT_CHARS characters; deeper levels
 * and the rest are left out, each place said. Recursion is bounded by the depth, so no nesting overflows the stack.
 */
export function boundedJson(value: unknown): string {
  const parts: string[] = [];
  let size = 0;
  const push = (text: string) => {
    parts.push(text);
    size += text.length;
  };
  const walk = (v: unknown, depth: number, indent: string): void => {
    if (size > MAX_TEXT_CHARS) return;
    if (v === null || typeof v !== 'object') {
      push(JSON.stringify(v) ?? 'null');
      return;
    }
    const entries: Array<[string | undefined, unknown]> = Array.isArray(v)
      ? v.map((x) => [undefined, x])
      : Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && typeof x !== 'function');
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return push(`${open}${close}`);
    if (depth >= MAX_JSON_DEPTH) return push(`${open}"[… ${entries.length} entries nested deeper than ${MAX_JSON_DEPTH} levels, left out]"${close}`);
    push(`${open}\n`);
    const inner = `${indent}  `;
    entries.forEach(([key, x], i) => {
      if (size > MAX_TEXT_CHARS) return;
      push(key === undefined ? inner : `${inner}${JSON.stringify(key)}: `);
      walk(x, depth + 1, inner);
      push(i < entries.length - 1 ? ',\n' : '\n');
    });
    push(`${indent}${close}`);
  };
  walk(value, 0, '');
  const text = parts.join('');
  return size > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}\n[… truncated: the value is longer than ${MAX_TEXT_CHARS} characters]` : text;
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
