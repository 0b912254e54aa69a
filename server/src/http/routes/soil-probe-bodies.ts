import { lazySchema } from '../../core/zod-lazy';

/**
 * The request bodies of the soil probe routes (routes/soil-probes.ts), also
 * described in the OpenAPI document (docs/openapi.ts). zod builds them on
 * their first use (core/zod-lazy.ts).
 */

export const calibrationBody = lazySchema((z) =>
  z.strictObject({
    sensor_id: z.string().min(1),
    point: z.enum(['dry', 'wet']),
    raw_pct: z.number().nullish(),
  }),
);

export const bindingBody = lazySchema((z) =>
  z.strictObject({
    sensor_id: z.string().min(1),
    zone: z.string().min(1).nullable(),
  }),
);

export const nameBody = lazySchema((z) =>
  z.strictObject({
    sensor_id: z.string().min(1),
    name: z.string().max(80).nullable(),
  }),
);
