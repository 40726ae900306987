/** A retrieval that could not see the repository says so (Issue 16, item 3): never a silent "ok". */
import { describe, expect, it } from 'vitest';
import { coverageWarnings } from '../../localizer/retrieval/localizer.ts';

describe('coverage warnings of the retrieval localizer', () => {
  it('warns when nothing was indexed, naming the languages it found', () => {
    const files = ['app/src/Main.kt', 'app/src/Util.kt', 'build.gradle.kts', 'README.md'];
    expect(coverageWarnings(0, files)).toEqual([
      "no indexable source file among the repository's 4 files (it has 2 .kt, 1 .kts files, languages locfix does not parse): the ranking is empty",
    ]);
    expect(coverageWarnings(0, ['README.md'])).toEqual(["no indexable source file among the repository's 1 files: the ranking is empty"]);
  });

  it('warns when an unparsed language outnumbers the indexed files, and is silent otherwise', () => {
    const swift = Array.from({ length: 30 }, (_, i) => `Sources/F${i}.swift`);
    expect(coverageWarnings(4, [...swift, 'scripts/a.py'])[0]).toMatch(/^only 4 files indexed; .*30 \.swift files/);
    expect(coverageWarnings(40, [...swift, 'scripts/a.py'])).toEqual([]);
    expect(coverageWarnings(12, ['a.go', 'b.rs'])).toEqual([]);
  });
});
