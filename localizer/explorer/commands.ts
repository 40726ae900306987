/**
 * The explorer's command line: parsed like a POSIX shell reads it (quotes, escapes, `|`, `&&`, `||`, `;`),
 * then checked against the read-only command set. A checked line is rendered again, and that rendering is
 * what runs. Every word is single-quoted, so no expansion, substitution or redirection the model wrote can
 * reach the shell. The exceptions are the forms allowed on purpose:
 *
 * - an unquoted word made only of path characters and glob characters stays unquoted, so `ls src/*.py`
 *   expands as the model expects;
 * - `2>/dev/null`, `>/dev/null`, `2>&1` and `< file`;
 * - `cd dir` before a command.
 *
 * Refused (with a message the model sees): any program outside the set; writing options (`sed -i`,
 * `find -delete`/`-exec`, `sort -o`); sed scripts with w/r/e commands; redirection to a file; `$VAR`,
 * `$(…)` and backticks; background `&`. The workspace itself is read-only too, so a gap here still cannot
 * change the snapshot.
 */

import { type OptionSpec, knownLong, parseGnuOptions } from './gnu-options.ts';
import { SED_OPTIONS, SORT_OPTIONS, UNIQ_OPTIONS } from './program-options.ts';

export const ALLOWED_PROGRAMS = [
  'ls',
  'find',
  'grep',
  'egrep',
  'fgrep',
  'cat',
  'nl',
  'sed',
  'head',
  'tail',
  'wc',
  'sort',
  'uniq',
  'cut',
  'tr',
  'stat',
  'diff',
  'pwd',
  'echo',
  'true',
  'basename',
  'dirname',
] as const;

/** programs whose use counts as reading a file's content (the study's "reads") */
export const READ_PROGRAMS = new Set(['cat', 'nl', 'sed', 'head', 'tail']);

interface Word {
  text: string;
  /** some part of it was quoted or escaped */
  quoted: boolean;
}

type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: string };

export interface SimpleCommand {
  argv: string[];
  /** argv words the shell may glob (unquoted, path and glob characters only) */
  globs: boolean[];
  redirects: string[];
}

export interface ParsedLine {
  /** pipelines joined by `&&`, `||` or `;` */
  pipelines: Array<{ commands: SimpleCommand[]; joiner?: '&&' | '||' | ';' }>;
}

export type CheckResult = { ok: true; script: string; programs: string[]; reads: number } | { ok: false; reason: string };

const SAFE_GLOB_WORD = /^[A-Za-z0-9_./*?[\]{},=:@%+-]+$/;

export class CommandSyntaxError extends Error {}

function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let word: Word | undefined;
  const flush = () => {
    if (word) tokens.push({ kind: 'word', word });
    word = undefined;
  };
  const add = (text: string, quoted: boolean) => {
    word ??= { text: '', quoted: false };
    word.text += text;
    word.quoted ||= quoted;
  };
  const dollarCheck = (at: number) => {
    const next = line[at + 1];
    if (next !== undefined && /[A-Za-z_{(0-9@*#?$!-]/.test(next))
      throw new CommandSyntaxError('shell expansions (`$VAR`, `$(…)`) are not allowed: write the value itself');
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandSyntaxError('unterminated single quote');
      add(line.slice(i + 1, end), true);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        const d = line[j]!;
        if (d === '\\' && j + 1 < line.length && '"\\$`\n'.includes(line[j + 1]!)) {
          text += line[++j];
        } else if (d === '`') {
          throw new CommandSyntaxError('command substitution (backticks) is not allowed');
        } else {
          if (d === '$') dollarCheck(j);
          text += d;
        }
      }
      if (j >= line.length) throw new CommandSyntaxError('unterminated double quote');
      add(text, true);
      i = j + 1;
    } else if (c === '\\') {
      if (line[i + 1] === '\n') i += 2;
      else {
        add(line[i + 1] ?? '', true);
        i += 2;
      }
    } else if (c === ' ' || c === '\t') {
      flush();
      i++;
    } else if (c === '\n' || c === ';') {
      flush();
      tokens.push({ kind: 'op', op: ';' });
      i++;
    } else if (c === '#' && !word) {
      while (i < line.length && line[i] !== '\n') i++;
    } else if (c === '`') {
      throw new CommandSyntaxError('command substitution (backticks) is not allowed');
    } else if (c === '$') {
      dollarCheck(i);
      add(c, false);
      i++;
    } else if (c === '|' || c === '&') {
      flush();
      const two = line.slice(i, i + 2);
      if (two === '||' || two === '&&') {
        tokens.push({ kind: 'op', op: two });
        i += 2;
      } else if (c === '&' && line[i + 1] === '>') {
        tokens.push({ kind: 'op', op: '&>' });
        i += 2;
      } else {
        if (c === '&') throw new CommandSyntaxError('background jobs (`&`) are not allowed');
        tokens.push({ kind: 'op', op: '|' });
        i++;
      }
    } else if (c === '>' || c === '<') {
      // a file-descriptor number right before the operator belongs to it (`2>`)
      let op = c;
      if (word && !word.quoted && /^\d$/.test(word.text)) {
        op = word.text + c;
        word = undefined;
      } else flush();
      if (line[i + 1] === '>' || line[i + 1] === '&') {
        op += line[i + 1];
        i++;
      }
      if (op.endsWith('&') && /\d/.test(line[i + 1] ?? '')) {
        op += line[i + 1];
        i++;
      }
      tokens.push({ kind: 'op', op });
      i++;
    } else if (c === '(' || c === ')') {
      throw new CommandSyntaxError('subshells and grouping are not allowed');
    } else {
      add(c, false);
      i++;
    }
  }
  flush();
  return tokens;
}

export function parseCommandLine(line: string): ParsedLine {
  const tokens = tokenize(line);
  const pipelines: ParsedLine['pipelines'] = [];
  let commands: SimpleCommand[] = [];
  let current: SimpleCommand = { argv: [], globs: [], redirects: [] };
  const endCommand = () => {
    if (current.argv.length === 0) {
      if (current.redirects.length) throw new CommandSyntaxError('a redirection without a command');
      return false;
    }
    commands.push(current);
    current = { argv: [], globs: [], redirects: [] };
    return true;
  };
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.kind === 'word') {
      current.argv.push(token.word.text);
      current.globs.push(!token.word.quoted && /[*?[]/.test(token.word.text) && SAFE_GLOB_WORD.test(token.word.text));
    } else if (token.op === '|') {
      if (!endCommand()) throw new CommandSyntaxError('a pipe without a command before it');
    } else if (token.op === '&&' || token.op === '||' || token.op === ';') {
      const had = endCommand();
      if (!had && commands.length === 0) {
        if (token.op === ';') continue;
        throw new CommandSyntaxError(`\`${token.op}\` without a command before it`);
      }
      pipelines.push({ commands, joiner: token.op });
      commands = [];
    } else {
      const target = tokens[t + 1];
      if (/&\d$/.test(token.op)) {
        current.redirects.push(token.op);
        continue;
      }
      if (target?.kind !== 'word') throw new CommandSyntaxError(`\`${token.op}\` needs a target`);
      t++;
      current.redirects.push(`${token.op}${target.word.text}`);
    }
  }
  endCommand();
  if (commands.length) pipelines.push({ commands });
  const last = pipelines.at(-1);
  if (last?.joiner === ';') delete last.joiner;
  if (last?.joiner) throw new CommandSyntaxError(`the line ends with \`${last.joiner}\``);
  if (pipelines.length === 0) throw new CommandSyntaxError('no command');
  return { pipelines };
}

const quote = (s: string): string => (s === '' ? "''" : /^[A-Za-z0-9_./=:@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** Checks a command line against the read-only set; `script` is what runs (through /bin/sh -c). */
export function checkCommandLine(line: string): CheckResult {
  let parsed: ParsedLine;
  try {
    parsed = parseCommandLine(line);
  } catch (err) {
    if (err instanceof CommandSyntaxError) return { ok: false, reason: err.message };
    throw err;
  }
  const programs: string[] = [];
  let reads = 0;
  const parts: string[] = [];
  for (const pipeline of parsed.pipelines) {
    const rendered: string[] = [];
    for (const [index, cmd] of pipeline.commands.entries()) {
      const program = (cmd.argv[0] ?? '').replace(/^\/(usr\/)?bin\//, '');
      const refusal = program === 'cd' ? checkCd(cmd, pipeline.commands.length) : checkProgram(program, cmd.argv.slice(1));
      if (refusal) return { ok: false, reason: refusal };
      for (const r of cmd.redirects) {
        const redirect = checkRedirect(r);
        if (redirect) return { ok: false, reason: redirect };
      }
      if (program !== 'cd') programs.push(program);
      // a reader at the head of a pipeline (or alone) with a file operand reads file content
      if (READ_PROGRAMS.has(program) && index === 0 && cmd.argv.slice(1).some((a) => !a.startsWith('-'))) reads++;
      const words = cmd.argv.map((a, i) => (i === 0 ? program : cmd.globs[i] ? a : quote(a)));
      rendered.push([...words, ...cmd.redirects.map((r) => r.replace(/^(\d?<)(.+)$/, (_, op: string, file: string) => `${op}${quote(file)}`))].join(' '));
    }
    parts.push(rendered.join(' | ') + (pipeline.joiner ? ` ${pipeline.joiner}` : ''));
  }
  return { ok: true, script: parts.join(' '), programs, reads };
}

function checkCd(cmd: SimpleCommand, pipelineLength: number): string | undefined {
  if (pipelineLength > 1) return '`cd` cannot be part of a pipeline';
  if (cmd.argv.length > 2) return '`cd` takes one folder';
  return undefined;
}

function checkRedirect(r: string): string | undefined {
  if (/^\d?>&\d$/.test(r)) return undefined;
  if (/^(\d?>>?|&>)\/dev\/null$/.test(r)) return undefined;
  if (/^\d?</.test(r)) return undefined;
  return `redirecting output to a file (\`${r}\`) is not allowed: the repository is read-only; read the output instead`;
}

const FIND_WRITERS = new Set(['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls']);

function checkProgram(program: string, args: readonly string[]): string | undefined {
  if (!(ALLOWED_PROGRAMS as readonly string[]).includes(program)) {
    return `\`${program}\` is not allowed. Only read-only inspection commands run here: ${ALLOWED_PROGRAMS.join(', ')} (with pipes between them)`;
  }
  switch (program) {
    case 'find': {
      const bad = args.find((a) => FIND_WRITERS.has(a));
      return bad ? `\`find ${bad}\` is not allowed: find may only list files` : undefined;
    }
    case 'sed':
      return checkSed(args);
    case 'sort': {
      const parsed = parseGnuOptions(args, SORT_OPTIONS);
      if (!('refused' in parsed)) return undefined;
      const name = longName(parsed.refused, SORT_OPTIONS);
      if (parsed.refused === '-o' || name === 'output') return '`sort -o` writes a file and is not allowed';
      if (name === 'compress-program') return '`sort --compress-program` runs a program and is not allowed';
      return `\`sort ${parsed.refused}\` is not allowed here`;
    }
    case 'tail':
      return args.some((a) => /^-[a-zA-Z]*[fF]/.test(a) || a.startsWith('--follow') || a === '--retry') ? '`tail -f` never ends and is not allowed' : undefined;
    case 'uniq': {
      const parsed = parseGnuOptions(args, UNIQ_OPTIONS);
      if ('refused' in parsed) return `\`uniq ${parsed.refused}\` is not allowed here`;
      // a second operand is the output file (`-` is standard input, an operand too)
      return parsed.operands.length > 1 ? '`uniq` with an output file is not allowed' : undefined;
    }
    default:
      return undefined;
  }
}

/** sed: no in-place editing, no script files, and scripts only of commands that print (no w, W, r, R, e, or s///w, s///e) */
function checkSed(args: readonly string[]): string | undefined {
  const parsed = parseGnuOptions(args, SED_OPTIONS);
  if ('refused' in parsed) {
    const name = longName(parsed.refused, SED_OPTIONS);
    if (parsed.refused === '-i' || name === 'in-place') return '`sed -i` edits files and is not allowed: use `sed -n` to print lines';
    if (parsed.refused === '-f' || name === 'file') return '`sed -f` (a script file) is not allowed';
    return `\`sed ${parsed.refused}\` is not allowed here`;
  }
  const scripts = parsed.options.filter((o) => o.name === 'expression').map((o) => o.value ?? '');
  // without -e the first operand is the script
  if (scripts.length === 0 && parsed.operands.length > 0) scripts.push(parsed.operands[0]!);
  for (const script of scripts) {
    const bad = sedScriptProblem(script);
    if (bad) return `this sed script is not allowed (${bad}): only printing scripts such as \`sed -n '10,40p' file\` run here`;
  }
  return undefined;
}

/** The long option a refused argument names (by GNU's prefix rule), when it names exactly one. */
function longName(refused: string, spec: OptionSpec): string | undefined {
  if (!refused.startsWith('--')) return undefined;
  const written = refused.slice(2).split('=')[0]!;
  const known = knownLong(spec);
  const matches = known.includes(written) ? [written] : known.filter((n) => n.startsWith(written));
  return matches.length === 1 ? matches[0] : undefined;
}

const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/I?)`;
const SED_COMMAND = new RegExp(
  String.raw`^\s*(?:${SED_ADDRESS}(?:\s*,\s*(?:${SED_ADDRESS}|\+\d+|~\d+))?)?\s*!?\s*(?:[pdn=lqQgGhHxNPD]|s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gpiIm0-9]*)\s*$`,
);

function sedScriptProblem(script: string): string | undefined {
  for (const part of script.split(/[;\n]/)) {
    if (part.trim() === '') continue;
    if (!SED_COMMAND.test(part)) return `\`${part.trim()}\``;
  }
  return undefined;
}
