/**
 * The README's example configurations parse as written, in today's keys: it once showed `concurrency.docker`
 * (issue 52), a name the run still reads for old configs but documents as `concurrency.sandboxes`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from '../../src/config.ts';
import { withCurrentKeys } from '../../src/util/legacy.ts';

const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The ```json blocks that are whole run configurations (a cascade's `localizer` block is checked inside one). */
function configBlocks(): Array<{ line: number; text: string }> {
  const blocks: Array<{ line: number; text: string }> = [];
  const re = /^```json\n([\s\S]*?)^```/gm;
  for (let m = re.exec(README); m; m = re.exec(README)) {
    blocks.push({ line: README.slice(0, m.index).split('\n').length, text: m[1]! });
  }
  return blocks;
}

describe("the README's configurations", () => {
  it('every JSON block is a configuration the run accepts', () => {
    const blocks = configBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const { line, text } of blocks) {
      const value = JSON.parse(text) as Record<string, unknown>;
      // a fragment (the cascade's) is checked as the part of a configuration it is
      expect(withCurrentKeys(value), `README.md:${line} uses a key's old name`).toEqual(value);
      expect(() => parseRunConfig({ runId: 'readme-example', dataset: 'lite', ...value }, `README.md:${line}`), `README.md:${line}`).not.toThrow();
    }
  });
});
