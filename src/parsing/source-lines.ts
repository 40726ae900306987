/**
 * Line bookkeeping over a decoded source string.
 *
 * Rows are 0-based here (tree-sitter's `startPosition.row`); public APIs convert to 1-based lines.
 * A line ends at '\n' — the same rule tree-sitter uses to count rows — so CRLF files keep their '\r' in
 * the raw text (stripped by `lineText`) and a lone '\r' is not a line break. web-tree-sitter reports
 * `startIndex` in UTF-16 code units of the JS string, the same unit as `lineStart`, so emoji, CJK and
 * U+FFFD replacement characters need no byte conversion.
 */
export class SourceLines {
  /** offset of the first code unit of each row */
  private readonly starts: number[];
  readonly count: number;

  constructor(readonly source: string) {
    const starts = [0];
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
    // A final '\n' ends the last line; it does not open an empty one.
    if (starts.length > 1 && starts[starts.length - 1] === source.length) starts.pop();
    this.starts = starts;
    this.count = source.length === 0 ? 0 : starts.length;
    if (source.includes('\r')) {
      // crBefore[r] = rows before r whose text ends in CR (CRLF files): sizes count text without CRs
      const crBefore = new Array<number>(this.count + 1);
      crBefore[0] = 0;
      for (let r = 0; r < this.count; r++) {
        const end = this.lineEnd(r);
        crBefore[r + 1] = crBefore[r] + (end > starts[r] && source.charCodeAt(end - 1) === 13 ? 1 : 0);
      }
      this.crBefore = crBefore;
    }
  }

  private readonly crBefore: number[] | undefined;

  /** offset of a row's first character in the source */
  offsetOf(row: number): number {
    return this.starts[row];
  }

  /** offset just past the last character of a row's text, before its line break */
  private lineEnd(row: number): number {
    if (row + 1 < this.starts.length) return this.starts[row + 1] - 1;
    return this.source.endsWith('\n') ? this.source.length - 1 : this.source.length;
  }

  /** text of a row without its line break (and without a CR before it) */
  lineText(row: number): string {
    const start = this.starts[row];
    let end = this.lineEnd(row);
    if (end > start && this.source.charCodeAt(end - 1) === 13) end--;
    return this.source.slice(start, end);
  }

  /** rows `startRow..endRow` (inclusive) joined with '\n', CRs dropped */
  text(startRow: number, endRow: number): string {
    const parts: string[] = [];
    for (let r = startRow; r <= endRow; r++) parts.push(this.lineText(r));
    return parts.join('\n');
  }

  /** length of `text(startRow, endRow)`: UTF-16 code units, '\n' between rows included, CRs not */
  size(startRow: number, endRow: number): number {
    const raw = this.lineEnd(endRow) - this.starts[startRow];
    return this.crBefore ? raw - (this.crBefore[endRow + 1] - this.crBefore[startRow]) : raw;
  }

  isBlank(row: number): boolean {
    return this.lineText(row).trim() === '';
  }

  /** leading whitespace width of a row, tabs counted as one character */
  indentOf(row: number): number {
    const text = this.lineText(row);
    return text.length - text.trimStart().length;
  }
}
