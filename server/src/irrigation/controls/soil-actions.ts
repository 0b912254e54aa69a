import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { zoneUnknown, type ActionContext, type ActionError } from './actions';

/**
 * The soil kind of POST /irrigation/action (pure): `declare_soil_state`
 * `{zone, state: 'soaked', date?}` records that the owner soaked the zone's
 * root zone to field capacity on `date` (local YYYY-MM-DD, default today):
 * the ledger starts that day from a known, full root zone and replays from
 * there (source `owner`). The date may be neither in the future nor older
 * than the record keeps (400 days): 400 `soil_date_out_of_range`.
 */

export interface SoilAction {
  kind: 'declare_soil_state';
  zone: string;
  state: 'soaked';
  /** Local date; null = today. */
  date: string | null;
}

export const SOIL_STATES = ['soaked'] as const;
export const SOIL_ACTION_KINDS = ['declare_soil_state'] as const;
export const SOIL_DECLARATION_MAX_AGE_DAYS = 400;

const declareBody = lazySchema((z) =>
  z.object({
    zone: z.string().min(1),
    state: z.enum(SOIL_STATES),
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
  }),
);

export const SOIL_ACTION_BODIES = {
  declare_soil_state: declareBody,
} as const satisfies Record<SoilAction['kind'], z.ZodObject>;

export function isSoilActionKind(kind: unknown): kind is SoilAction['kind'] {
  return typeof kind === 'string' && (SOIL_ACTION_KINDS as readonly string[]).includes(kind);
}

export type ParseSoilResult = { ok: true; action: SoilAction } | { ok: false; error: ActionError };

/** `today` and `oldest`: the deployment's local dates bounding an acceptable `date`. */
export function parseSoilAction(
  body: unknown,
  context: ActionContext & { today: string; oldest: string },
): ParseSoilResult {
  const parsed = declareBody.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        status: 400,
        code: 'invalid_body',
        message: "declare_soil_state: expected {zone: <slug>, state: 'soaked', date?: 'YYYY-MM-DD'}",
      },
    };
  }
  const { zone, state, date } = parsed.data;
  if (!context.mappedZones.includes(zone))
    return { ok: false, error: zoneUnknown(zone, context.mappedZones) };
  if (date !== undefined && (!realDate(date) || date > context.today || date < context.oldest)) {
    return {
      ok: false,
      error: {
        status: 400,
        code: 'soil_date_out_of_range',
        message: `date must be a real local date from ${context.oldest} to ${context.today}, got ${date}`,
      },
    };
  }
  return { ok: true, action: { kind: 'declare_soil_state', zone, state, date: date ?? null } };
}

function realDate(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}
