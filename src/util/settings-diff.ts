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

/** "key: before → after" for each artifact setting that differs (empty when the same). */
export function settingsChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => stableJson(before[k]) !== stableJson(after[k]))
    .map((k) => `${k}: ${stableJson(before[k]).slice(0, 120)} → ${stableJson(after[k]).slice(0, 120)}`);
}
