/**
 * The canonical form of a localizer's options (localizer/registry.ts `canonicalLocalizerOptions`), which names an
 * arm: defaults written out, equal for options that mean the same, a fixed point; and what a split into shards
 * changes for a localizer (`localizerShardCaveat`).
 */
import { describe, expect, it } from 'vitest';
import { canonicalLocalizerOptions, localizerShardCaveat } from '../../localizer/registry.ts';

const cascade = (escalate: Record<string, unknown>) => ({
  tiers: [
    { localizer: 'retrieval', escalate: { signal: 'top-margin', ...escalate } },
    { localizer: 'agentless', options: { combineTopN: 3 } },
  ],
});

describe('canonical localizer options', () => {
  it('options that mean the same are equal, whatever was typed; different ones are not', async () => {
    const plain = await canonicalLocalizerOptions('retrieval', {});
    expect(await canonicalLocalizerOptions('retrieval', { queries: 'raw+structural+title', retrieval: { weights: { history: 1 } } })).toEqual(plain);
    expect(await canonicalLocalizerOptions('retrieval', { retrieval: { weights: { history: 0 } } })).not.toEqual(plain);
    expect(await canonicalLocalizerOptions('agentless', { retrieval: true })).toEqual(await canonicalLocalizerOptions('agentless', {}));
    // a cascade's tiers are brought to their own canonical form
    const a = await canonicalLocalizerOptions('cascade', cascade({ share: 0.4 }));
    const b = await canonicalLocalizerOptions('cascade', { ...cascade({ share: 0.4 }), tiers: [cascade({ share: 0.4 }).tiers[0], { localizer: 'agentless' }] });
    expect(a).toEqual(b);
  });

  it('is a fixed point: the canonical form validates and canonicalizes to itself', async () => {
    for (const [name, options] of [
      ['retrieval', {}],
      ['blagent', { m: 5 }],
      ['agentless', {}],
      ['locagent', {}],
      ['explorer', {}],
      ['cascade', cascade({ below: 0.3 })],
    ] as const) {
      const once = await canonicalLocalizerOptions(name, options as Record<string, unknown>);
      expect(await canonicalLocalizerOptions(name, once), name).toEqual(once);
    }
  });

  it('a localizer the registry does not know (an imported run) keeps its options; bad options are refused', async () => {
    expect(await canonicalLocalizerOptions('published-agent', { x: 1 })).toEqual({ x: 1 });
    await expect(canonicalLocalizerOptions('retrieval', { nope: 1 })).rejects.toThrow(/unknown option/);
  });
});

describe('what shards change', () => {
  it("a cascade's share rule ranks the whole run: sharding it is said; a threshold rule and other localizers say nothing", async () => {
    // before: a sharded share-rule cascade changed its results without a word
    expect(await localizerShardCaveat('cascade', cascade({ share: 0.4 }))).toMatch(
      /share rule \(tier 1 escalates 0\.4\) ranks the whole run; each shard ranks only its own/,
    );
    expect(await localizerShardCaveat('cascade', cascade({ below: 0.3 }))).toBeUndefined();
    expect(await localizerShardCaveat('retrieval', {})).toBeUndefined();
  });
});
