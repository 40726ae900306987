/**
 * A localizer is resolved once, at the edge (issue 43): its name looked up and its options parsed one time, and the
 * run, `localize` and the cascade's tiers make it from that result. Before, a run validated the options, then
 * `createLocalizer` validated them again, and a cascade's tiers a third time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineLocalizer, LOCALIZERS, resolveLocalizer } from '../../localizer/registry.ts';
import type { FileLocalizer } from '../../localizer/types.ts';

let parses = 0;
const CountingSchema = z
  .object({ k: z.number().int().positive().default(3) })
  .strict()
  .transform((o) => {
    parses += 1;
    return o;
  });

afterEach(() => {
  delete LOCALIZERS['counting-test'];
  parses = 0;
});

describe('resolveLocalizer', () => {
  it('parses the options once; making the localizer, and a cascade tier of it, parses nothing again', async () => {
    let made: unknown;
    LOCALIZERS['counting-test'] = defineLocalizer({
      options: async () => CountingSchema,
      needs: () => ['model'],
      create: async (options) => {
        made = options;
        return { name: 'counting-test', localize: async () => ({ localizer: 'counting-test', files: [], predicted: [] }) } as unknown as FileLocalizer;
      },
    });
    const resolved = await resolveLocalizer('counting-test', { k: 5 });
    expect(parses).toBe(1);
    expect(resolved.options).toEqual({ k: 5 });
    expect(resolved.needs).toEqual({ needs: ['model'], uses: ['model'] });
    await resolved.create({ seed: 1 });
    expect(parses).toBe(1);
    expect(made).toEqual({ k: 5 });

    parses = 0;
    const tiers = [
      { localizer: 'counting-test', options: { k: 2 }, escalate: { signal: 'top-margin', below: 0.5 } },
      { localizer: 'counting-test', options: { k: 4 } },
    ];
    const cascade = await resolveLocalizer('cascade', { tiers });
    expect(parses).toBe(2); // once per tier
    expect(cascade.needs.needs).toContain('model');
    await cascade.create({});
    await new Promise((resolve) => setTimeout(resolve, 20)); // the cascade makes its tiers as it is constructed
    expect(parses).toBe(2);
  });

  it('an unknown name or a misspelled option fails at resolution, naming the flag or key', async () => {
    await expect(resolveLocalizer('retreival', {}, '--localizer')).rejects.toThrow(/--localizer: unknown localizer "retreival"; known: .*retrieval/);
    await expect(resolveLocalizer('blagent', { M: 10 })).rejects.toThrow(/blagent: unknown option\(s\) M/);
  });
});
