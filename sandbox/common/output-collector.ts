/** Output of a sandboxed command, bounded: the first and last halves of the budget are kept. */
/** Collects interleaved output, keeping the first and last halves of the budget when it overflows. */
export class OutputCollector {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    const half = Math.floor(this.maxBytes / 2);
    if (this.headBytes < half) {
      const take = chunk.subarray(0, half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > half && this.tail.length > 0) {
      const first = this.tail[0];
      const excess = this.tailBytes - half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return this.dropped > 0 ? `${head}\n[locfix: ${this.dropped} bytes of output dropped]\n${tail}` : head + tail;
  }
}
