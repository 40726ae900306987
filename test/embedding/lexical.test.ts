import { describe, expect, it } from 'vitest';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';

const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: readonly number[]): number => Math.sqrt(dot(a, a));

describe('lexical embedder', () => {
  const embedder = new LexicalEmbedder({ dims: 512 });

  it('is deterministic across instances and L2-normalized', async () => {
    const text = 'def bulk_create(self, objs):\n    return QuerySet(self.model)';
    const [a] = await embedder.embedDocuments([text]);
    const b = await new LexicalEmbedder({ dims: 512 }).embedQuery(text);
    expect(a).toHaveLength(512);
    expect(a).toEqual(b);
    expect(norm(a)).toBeCloseTo(1, 5);
  });

  it('scores shared identifiers above unrelated text', async () => {
    const [doc, related, unrelated] = await embedder.embedDocuments([
      'django/db/models/query.py\nclass QuerySet:\n    def bulk_create(self, objs, batch_size=None):',
      'QuerySet.bulk_create ignores batch_size',
      'matplotlib colorbar tick labels overlap',
    ]);
    expect(dot(doc, related)).toBeGreaterThan(0.2);
    expect(dot(doc, related)).toBeGreaterThan(dot(doc, unrelated) + 0.15);
  });

  it('gives the zero vector for text without tokens, and names its settings in the id', async () => {
    expect(norm(await embedder.embedQuery('the and of , .'))).toBe(0);
    expect(embedder.id).toBe('lexical:v1:512');
    expect(new LexicalEmbedder().id).toBe('lexical:v1:1024');
    expect(new LexicalEmbedder({ kindWeights: { part: 0.25 } }).id).toBe('lexical:v1:1024:dotted=1.5,identifier=1,part=0.25,path=2');
    expect(() => new LexicalEmbedder({ dims: 3 })).toThrow(/dims/);
  });
});
