/**
 * The cascade localizer's options: an ordered list of tiers, cheapest first. Every tier but the last says
 * when to escalate (`escalate`); every tier but the first says how its answer merges with the one below
 * (`merge`, default replace). A tier is any registered localizer with its own options.
 *
 *   {"tiers": [
 *     {"localizer": "retrieval", "escalate": {"signal": "top-margin", "below": 0.28}},
 *     {"localizer": "blagent", "options": {"earFiles": 10}, "merge": "replace"}
 *   ]}
 */
import { z } from 'zod';

const EscalateSchema = z
  .object({
    signal: z.string().min(1, { message: 'must name a confidence signal' }),
    below: z.number({ message: 'must be a number' }).optional(),
    share: z.number({ message: 'must be a number from 0 to 1' }).min(0).max(1).optional(),
  })
  .strict()
  .refine((r) => (r.below === undefined) !== (r.share === undefined), { message: 'needs exactly one of "below" (a threshold) or "share" (0–1)' });

const TierSchema = z
  .object({
    localizer: z.string().min(1),
    /** shown in traces and reports (default: the localizer's name, numbered when it repeats) */
    name: z.string().min(1).optional(),
    options: z.record(z.string(), z.unknown()).default({}),
    escalate: EscalateSchema.optional(),
    merge: z.enum(['replace', 'fuse'], { message: 'must be "replace" or "fuse"' }).default('replace'),
  })
  .strict();

export const CascadeOptionsSchema = z
  .object({
    tiers: z.array(TierSchema).min(2, { message: 'needs at least two tiers' }),
    /** instances whose lower tiers the share rule's run-level pass localizes at once */
    prepareConcurrency: z.number().int().positive().default(2),
  })
  .strict()
  .superRefine((o, ctx) => {
    o.tiers.forEach((t, i) => {
      const last = i === o.tiers.length - 1;
      if (!last && !t.escalate) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'escalate'], message: 'is required on every tier but the last' });
      if (last && t.escalate) ctx.addIssue({ code: 'custom', path: ['tiers', i, 'escalate'], message: 'has nothing to escalate to on the last tier' });
      if (t.localizer === 'cascade') ctx.addIssue({ code: 'custom', path: ['tiers', i, 'localizer'], message: 'cannot be a cascade' });
    });
  });

export type CascadeOptions = z.output<typeof CascadeOptionsSchema>;
