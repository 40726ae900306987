/**
 * The explorer's command check on its own: what runs (and how it is rendered for the shell), what is
 * refused and why, and the reply/answer parser.
 */
import { describe, expect, it } from 'vitest';
import { checkCommandLine } from '../../localizer/explorer/commands.ts';
import { parseAnswer, parseReply } from '../../localizer/explorer/answer.ts';
import { cutObservation } from '../../localizer/explorer/agent.ts';

const ok = (line: string) => {
  const r = checkCommandLine(line);
  if (!r.ok) throw new Error(`refused: ${line}: ${r.reason}`);
  return r;
};
const refused = (line: string) => {
  const r = checkCommandLine(line);
  if (r.ok) throw new Error(`ran: ${line} as ${r.script}`);
  return r.reason;
};

describe('read-only command check', () => {
  it('renders inspection commands with every word quoted, globs and /dev/null redirects kept', () => {
    expect(ok(`grep -rn "def total" shop/ | head -20`).script).toBe(`grep -rn 'def total' shop/ | head -20`);
    expect(ok(`ls src/*.py`).script).toBe('ls src/*.py');
    // a quoted glob is the program's pattern, not the shell's
    expect(ok(`find . -name "*.py" 2>/dev/null | sort`).script).toBe(`find . -name '*.py' 2>/dev/null | sort`);
    expect(ok(`grep -rn "it's" .`).script).toBe(`grep -rn 'it'\\''s' .`);
    expect(ok(`cd shop && grep -n 'x$' *.py`).script).toBe(`cd shop && grep -n 'x$' *.py`);
    expect(ok(`sed -n "/class Cart/,/def /p" shop/cart.py`).reads).toBe(1);
    expect(ok(`nl -ba a.py | sed -n '1,20p'; cat b.py`)).toMatchObject({ reads: 2, programs: ['nl', 'sed', 'cat'] });
  });

  it('refuses writers, executors, expansions and redirections to files, saying why', () => {
    expect(refused(`sed -i 's/a/b/' x.py`)).toMatch(/sed -i/);
    expect(refused(`sed -ni '1p' x.py`)).toMatch(/sed -i/);
    expect(refused(`sed -n '1w out.txt' x.py`)).toMatch(/sed script/);
    expect(refused(`sed 's/a/b/e' x.py`)).toMatch(/sed script/);
    expect(refused(`find . -name "*.pyc" -delete`)).toMatch(/find -delete/);
    expect(refused(`find . -exec cat {} \\;`)).toMatch(/find -exec/);
    expect(refused(`echo hi > x.py`)).toMatch(/redirecting output/);
    expect(refused(`cat a >> b`)).toMatch(/redirecting output/);
    expect(refused(`cat x.py | tee y.py`)).toMatch(/`tee` is not allowed/);
    expect(refused(`ls | xargs rm`)).toMatch(/`xargs` is not allowed/);
    expect(refused(`python -c 'open("x","w")'`)).toMatch(/`python` is not allowed/);
    expect(refused(`cat $(ls)`)).toMatch(/expansions/);
    expect(refused('cat `ls`')).toMatch(/backticks/);
    expect(refused(`echo $HOME`)).toMatch(/expansions/);
    expect(refused(`sort -o out x`)).toMatch(/sort -o/);
    expect(refused(`tail -f log`)).toMatch(/tail -f/);
    expect(refused(`sleep 100 &`)).toMatch(/background/);
    expect(refused(`(cd a; ls)`)).toMatch(/subshells/);
    expect(refused(`grep "unterminated`)).toMatch(/unterminated/);
  });

  it('reads options as GNU getopt does, so no spelling slips past (Issue 32, item 4)', () => {
    // before, each of these passed the check: an attached -e value, an abbreviated long option, `-` as an operand
    expect(refused(`sed -n -e'1e id' a.py`)).toMatch(/sed script/);
    expect(refused(`sed -ne'1e id' a.py`)).toMatch(/sed script/);
    expect(refused(`sed --expr='1e id' a.py`)).toMatch(/sed script/);
    expect(refused(`sed --expr '1e id' a.py`)).toMatch(/sed script/);
    expect(refused(`sed --in-pl=.bak 's/a/b/' a.py`)).toMatch(/sed -i/);
    expect(refused(`sed -f script.sed a.py`)).toMatch(/sed -f/);
    expect(refused(`sed --s '1p' a.py`)).toMatch(/`sed --s` is not allowed/); // ambiguous: sandbox, separate, silent
    expect(refused(`sort --out=x a.txt`)).toMatch(/sort -o/);
    expect(refused(`sort -rno x a.txt`)).toMatch(/sort -o/);
    expect(refused(`sort --compress-prog=sh a.txt`)).toMatch(/compress-program/);
    expect(refused(`sort -T /tmp a.txt`)).toMatch(/`sort -T` is not allowed/);
    expect(refused(`uniq - out.txt`)).toMatch(/uniq` with an output file/);
    expect(refused(`uniq -c a.txt b.txt`)).toMatch(/uniq` with an output file/);
    // and what a reader needs still runs
    expect(ok(`sed -n -e '10,40p' -e '/def run/p' a.py`).script).toContain('sed');
    expect(ok(`sed -nE 's/(a)/\\1/p' a.py`).reads).toBe(1);
    expect(ok(`sed --quiet --expression='1,5p' -- a.py`).reads).toBe(1);
    expect(ok(`sort -t: -k2,2n -u a.txt | uniq -c`).programs).toEqual(['sort', 'uniq']);
    expect(ok(`grep -n run a.py | uniq --count -`).programs).toEqual(['grep', 'uniq']);
  });
});

describe('replies and the final answer', () => {
  it('de-duplicates a hostile answer of 100,000 paths in linear time (Issue 32, item 8)', () => {
    const files = Array.from({ length: 100_000 }, (_, i) => `./pkg/m${i % 50_000}.py`);
    const started = performance.now();
    const parsed = parseAnswer(JSON.stringify({ files }), '/repo') as { files: string[] };
    expect(parsed.files).toHaveLength(50_000);
    expect(parsed.files[0]).toBe('pkg/m0.py');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('takes exactly one action per reply', () => {
    expect(parseReply('THOUGHT: look\n```bash\nls\n```', '/repo')).toEqual({ kind: 'command', thought: 'look', command: 'ls' });
    expect(parseReply('done\n```json\n{"files": ["./a.py", "/repo/b.py", "a.py"]}\n```', '/repo')).toEqual({
      kind: 'answer',
      thought: 'done',
      files: ['a.py', 'b.py'],
    });
    expect(parseReply('```bash\nls\n```\n```json\n{"files":[]}\n```', '/repo')).toMatchObject({
      kind: 'format-error',
      problem: expect.stringContaining('exactly one'),
    });
    expect(parseReply('I think it is a.py', '/repo')).toMatchObject({ kind: 'format-error' });
    expect(parseReply('```json\n{"files": "a.py"}\n```', '/repo')).toMatchObject({ kind: 'malformed-answer', problem: expect.stringContaining('list') });
  });

  it('keeps paths that do not exist (scored as false positives), and an empty list is valid', () => {
    expect(parseAnswer('{"files": ["no/such.py"], "why": "x"}', '/repo')).toEqual({ files: ['no/such.py'] });
    expect(parseAnswer('{"files": []}', '/repo')).toEqual({ files: [] });
    expect(parseAnswer('{"files": [1]}', '/repo')).toMatchObject({ problem: expect.stringContaining('string') });
    expect(parseAnswer('not json', '/repo')).toMatchObject({ problem: expect.stringContaining('not valid JSON') });
  });

  it('cuts long outputs to head and tail, saying how much was left out', () => {
    expect(cutObservation('short', 100)).toBe('<output>\nshort</output>');
    const cut = cutObservation('a'.repeat(50) + 'b'.repeat(50), 20);
    expect(cut).toContain('<output_head>\naaaaaaaaaa\n</output_head>');
    expect(cut).toContain('<elided_chars>80 characters elided</elided_chars>');
    expect(cut).toContain('<output_tail>\nbbbbbbbbbb\n</output_tail>');
  });
});
