/**
 * How much a dataset row may hold. A row is data someone else wrote: a 14 MB parquet file with one 300 M-character
 * problem statement took 1.36 GB of memory to load, and a text that size would then go to every prompt builder,
 * index and report. The limits sit far above real rows (Lite's longest problem statement is 24,770 characters, its
 * longest hints 59,920, its longest PASS_TO_PASS list 123,979 as JSON; the Multilingual dev set's longest gold
 * patch 206,166), so no real row meets them, and a row over one is refused by name, never cut silently.
 *
 * Parquet is compressed, so a small file can hold a large field: before any value is decoded, each column chunk's
 * uncompressed size (the file's own metadata) is checked, and a file whose chunk is over the bound is refused
 * whole, since the row cannot be known without decoding it.
 */

/** characters a field may hold; fields not named here hold at most `OTHER_FIELD_CHARS` */
export const FIELD_CHAR_LIMITS: Readonly<Record<string, number>> = {
  problem_statement: 1_000_000,
  hints_text: 1_000_000,
  patch: 16_000_000,
  test_patch: 16_000_000,
  eval_script: 16_000_000,
  FAIL_TO_PASS: 16_000_000,
  PASS_TO_PASS: 16_000_000,
};
export const OTHER_FIELD_CHARS = 100_000;

/** the largest uncompressed column chunk of a parquet file that is decoded (bytes) */
export const MAX_PARQUET_CHUNK_BYTES = 256 * 1024 * 1024;

/** A field's size in characters: a string's length, a list's items (and 2 a separator, as JSON writes it). */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + sizeOf(item) + 2, 2);
  return 0;
}

/** The first field over its limit, as `{ field, text }` for the row's error, or undefined. */
export function fieldOverLimit(record: Readonly<Record<string, unknown>>): { field: string; text: string } | undefined {
  for (const [field, value] of Object.entries(record)) {
    const limit = FIELD_CHAR_LIMITS[field] ?? OTHER_FIELD_CHARS;
    const size = sizeOf(value);
    if (size > limit)
      return {
        field,
        text: `${field}: ${size.toLocaleString('en-US')} characters, over the ${limit.toLocaleString('en-US')} a row's ${field} may hold (src/dataset/limits.ts); refused`,
      };
  }
  return undefined;
}

interface ParquetChunkSizes {
  row_groups: ReadonlyArray<{ columns: ReadonlyArray<{ meta_data?: { path_in_schema: string[]; total_uncompressed_size: bigint | number } }> }>;
}

/** Why a parquet file's metadata says it is too large to decode, or undefined. */
export function parquetOverBound(metadata: ParquetChunkSizes): string | undefined {
  for (const [group, rowGroup] of metadata.row_groups.entries()) {
    for (const column of rowGroup.columns) {
      const bytes = Number(column.meta_data?.total_uncompressed_size ?? 0);
      if (bytes > MAX_PARQUET_CHUNK_BYTES)
        return (
          `column ${column.meta_data?.path_in_schema.join('.')} of row group ${group} is ${bytes.toLocaleString('en-US')} bytes uncompressed, ` +
          `over the ${MAX_PARQUET_CHUNK_BYTES.toLocaleString('en-US')} locfix decodes (a field over the row limits of src/dataset/limits.ts); refused`
        );
    }
  }
  return undefined;
}
