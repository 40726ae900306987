/** Which recorded settings differ from the current ones, compared as canonical JSON (key order ignored). */

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * "path: before → after" for each artifact setting that differs (empty when the same), named down to the
 * field that changed ("repair.samplesPerSet: 10 → 3"); a field present on one side only shows as absent.
 */
export function settingsChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changes: string[] = [];
  const walk = (prefix: string, a: unknown, b: unknown): void => {
    if (isPlainObject(a) && isPlainObject(b)) {
      for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(prefix ? `${prefix}.${k}` : k, a[k], b[k]);
      return;
    }
    if (stableJson(a) === stableJson(b)) return;
    const show = (v: unknown) => (v === undefined ? '(absent)' : stableJson(v).slice(0, 120));
    changes.push(`${prefix}: ${show(a)} → ${show(b)}`);
  };
  walk('', before, after);
  return changes;
}
