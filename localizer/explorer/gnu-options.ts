/**
 * Command-line options read the way GNU getopt_long reads them, so the explorer's check sees what the program
 * will see: short options clustered (`-ne`) with an attached value (`-e1p`, `-i.bak`), long options by any
 * unambiguous prefix (`--expr=…` is `--expression`), `--` ending the options, and `-` an operand (standard input).
 * Each program gets an allowlist: an option not on it is refused, whatever its spelling.
 */
export type Arity = 'none' | 'required' | 'optional';

export interface OptionSpec {
  /** allowed short options (the letter) and whether they take a value */
  short: Readonly<Record<string, Arity>>;
  /** allowed long options (the full name) and whether they take a value */
  long: Readonly<Record<string, Arity>>;
  /** the program's other long options (refused): GNU matches prefixes against all of them */
  refusedLong: readonly string[];
  /** short options that are the same as a long one, so each option is reported by one name */
  shortToLong?: Readonly<Record<string, string>>;
}

export interface ParsedOptions {
  options: Array<{ name: string; value?: string }>;
  operands: string[];
}

/** The options and operands of `args`, or the first option that is not allowed (as the user wrote it). */
export function parseGnuOptions(args: readonly string[], spec: OptionSpec): ParsedOptions | { refused: string } {
  const options: ParsedOptions['options'] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const written = arg.slice(2, eq < 0 ? undefined : eq);
      const known = knownLong(spec);
      const exact = known.includes(written) ? [written] : known.filter((name) => name.startsWith(written));
      if (exact.length !== 1) return { refused: arg };
      const name = exact[0]!;
      const arity = spec.long[name];
      if (arity === undefined) return { refused: arg };
      let value = eq < 0 ? undefined : arg.slice(eq + 1);
      if (arity === 'none' && value !== undefined) return { refused: arg };
      if (arity === 'required' && value === undefined) value = args[++i] ?? '';
      options.push({ name, ...(value !== undefined ? { value } : {}) });
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const arity = spec.short[letter];
        if (arity === undefined) return { refused: `-${letter}` };
        const name = spec.shortToLong?.[letter] ?? letter;
        if (arity === 'none') {
          options.push({ name });
          continue;
        }
        const rest = arg.slice(j + 1);
        const value = rest !== '' ? rest : arity === 'required' ? (args[++i] ?? '') : undefined;
        options.push({ name, ...(value !== undefined ? { value } : {}) });
        break;
      }
      continue;
    }
    operands.push(arg);
  }
  return { options, operands };
}

/** Every long option of the program, allowed or refused. */
export function knownLong(spec: OptionSpec): string[] {
  return [...Object.keys(spec.long), ...spec.refusedLong];
}
