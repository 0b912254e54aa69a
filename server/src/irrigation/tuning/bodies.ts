import { lazySchema } from '../../core/zod-lazy';

/**
 * Request bodies of the tuning writes (spec 4.4, 4.5), also the OpenAPI
 * document's. Field names are checked against the accepted list by the
 * service (422 `field_not_accepted`), not here, so a typo gets that answer.
 */

const scalar = (z: Parameters<Parameters<typeof lazySchema>[0]>[0]) =>
  z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const applyBody = lazySchema((z) =>
  z.strictObject({
    zone_slug: z.string().min(1),
    recommendation_id: z.string().min(1),
    field: z.string().min(1),
    value: scalar(z).describe('the value to write; null clears the override'),
    window_days: z
      .number()
      .int()
      .optional()
      .describe('the report window the recommendation came from; clamped to 7..30, absent = 14'),
  }),
);

export const dismissBody = lazySchema((z) =>
  z.strictObject({
    zone_slug: z.string().min(1),
    field: z.string().min(1),
    recommendation_id: z.string().min(1),
    kind: z.enum(['snooze', 'permanent']),
  }),
);

export const undismissBody = lazySchema((z) =>
  z.strictObject({
    zone_slug: z.string().min(1),
    field: z.string().min(1),
  }),
);
