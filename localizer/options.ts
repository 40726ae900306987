/**
 * Localizer options are declared once, as a zod schema each localizer exports; this parses them with
 * messages that name the localizer, the key, the value and what it accepts, so a typo in a config file or
 * in `--options` is caught before any instance runs.
 */
import { KindedError } from '../src/run/kinded-error.ts';
import { STAGE_ERROR_KIND } from '../src/run/stage-runner.ts';
import { z } from 'zod';

/**
 * The schema of what a user writes for an option block whose schema carries its defaults: the same fields with the
 * defaults taken off, every one optional (objects within it too), unknown keys refused. A run records what the user
 * wrote (so a resume compares like with like) and resolves it once with the full schema.
 */
export function userInputSchema(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional)
    return userInputSchema(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, userInputSchema(v).optional()]));
    return z.object(shape).strict();
  }
  return schema;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function knownKeys(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape).sort() : [];
}

/** The object schema at `path` inside `schema`, through defaults, optionals, nullables and pipes; undefined where
 * the path leaves objects (a record, an array, a union). */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  // what wraps an object: .default(), .optional(), .nullable(), .transform()/.pipe()
  const unwrap = (start: z.ZodType | undefined): z.ZodType | undefined => {
    let current = start;
    for (let guard = 0; current && guard < 10; guard++) {
      if (current instanceof z.ZodDefault || current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap() as z.ZodType;
      else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
      else break;
    }
    return current;
  };
  let current = unwrap(schema);
  for (const key of path) {
    current = current instanceof z.ZodObject && typeof key === 'string' ? unwrap(current.shape[key] as z.ZodType | undefined) : undefined;
  }
  return current;
}

/** `schema.parse(input)` with one readable line per problem. */
export function parseLocalizerOptions<T>(localizer: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length ? ` in ${issue.path.join('.')}` : '';
      const known = knownKeys(schemaAt(schema, issue.path) ?? z.never());
      return `${localizer}: unknown option(s) ${issue.keys.join(', ')}${where}; known: ${known.length ? known.join(', ') : '(see its documentation)'}`;
    }
    const key = issue.path.join('.') || '(options)';
    return `${localizer} option ${key} ${issue.message}, got ${JSON.stringify(valueAt(input, issue.path))}`;
  });
  throw new KindedError(STAGE_ERROR_KIND.badOptions, lines.join('\n'));
}

/** Reusable option types with messages that read after "<localizer> option <key> …" (declared once, for every schema). */
export { nonNegativeInt, positiveInt } from '../src/util/schema-types.ts';
