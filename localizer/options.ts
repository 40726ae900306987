/**
 * Localizer options are declared once, as a zod schema each localizer exports; this parses them with
 * messages that name the localizer, the key, the value and what it accepts, so a typo in a config file or
 * in `--options` is caught before any instance runs.
 */
import { STAGE_ERROR_KIND } from '../src/run/stage-runner.ts';
import { z } from 'zod';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function knownKeys(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape).sort() : [];
}

/** `schema.parse(input)` with one readable line per problem. */
export function parseLocalizerOptions<T>(localizer: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? ` in ${issue.path.join('.')}` : '';
      return `${localizer}: unknown option(s) ${issue.keys.join(', ')}${where}; known: ${issue.path.length ? '(see its documentation)' : knownKeys(schema).join(', ')}`;
    }
    const key = issue.path.join('.') || '(options)';
    return `${localizer} option ${key} ${issue.message}, got ${JSON.stringify(valueAt(input, issue.path))}`;
  });
  throw Object.assign(new Error(lines.join('\n')), { kind: STAGE_ERROR_KIND.badOptions });
}

/** Reusable option types with messages that read after "<localizer> option <key> …". */
export const positiveInt = () =>
  z.number({ message: 'must be a positive integer' }).int({ message: 'must be a positive integer' }).positive({ message: 'must be a positive integer' });
export const nonNegativeInt = (what = 'must be an integer >= 0') => z.number({ message: what }).int({ message: what }).nonnegative({ message: what });
