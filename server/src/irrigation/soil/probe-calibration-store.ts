import { lazySchema } from '../../core/zod-lazy';
import type { JsonValue } from '../../store/json';
import { emptyCalibration, type CalibrationOrigin, type ProbeCalibration } from './probe-calibration';

/**
 * Per-probe calibration and the owner's name for the probe, kept in the
 * controls table under `soil_probe.calibration:<sensor id>` and
 * `soil_probe.name:<sensor id>` (one small JSON value per probe,
 * written atomically by the store). It belongs to the probe, not the zone:
 * rebinding a probe to another zone keeps it.
 */

export interface KeyValueBackend {
  get(key: string): JsonValue | undefined;
  set(key: string, value: JsonValue): void;
  delete(key: string): boolean;
}

const KEY_PREFIX = 'soil_probe.calibration:';
const NAME_PREFIX = 'soil_probe.name:';
const storedSchema = lazySchema((z) => {
  const origin = z.enum(['owner', 'ledger_refill']).nullable();
  return z.object({
    dry_raw_pct: z.number().nullable(),
    wet_raw_pct: z.number().nullable(),
    dry_origin: origin,
    wet_origin: origin,
    updated_epoch: z.number(),
  });
});

export type CalibrationPoint = 'dry' | 'wet';

export class ProbeCalibrationStore {
  constructor(private readonly kv: KeyValueBackend) {}

  /** The probe's calibration; null when nothing was ever set (or the stored value is unreadable). */
  get(sensorId: string): ProbeCalibration | null {
    const parsed = storedSchema.safeParse(this.kv.get(KEY_PREFIX + sensorId));
    return parsed.success ? parsed.data : null;
  }

  /** Sets one point (the other is kept) and returns the new calibration. */
  setPoint(
    sensorId: string,
    point: CalibrationPoint,
    rawPct: number,
    from: CalibrationOrigin,
    epoch: number,
  ): ProbeCalibration {
    const next: ProbeCalibration = { ...(this.get(sensorId) ?? emptyCalibration()), updated_epoch: epoch };
    if (point === 'dry') Object.assign(next, { dry_raw_pct: rawPct, dry_origin: from });
    else Object.assign(next, { wet_raw_pct: rawPct, wet_origin: from });
    this.kv.set(KEY_PREFIX + sensorId, { ...next });
    return next;
  }

  clear(sensorId: string): boolean {
    return this.kv.delete(KEY_PREFIX + sensorId);
  }

  /** The owner's name for the probe; null when none was given. */
  name(sensorId: string): string | null {
    const value = this.kv.get(NAME_PREFIX + sensorId);
    return typeof value === 'string' && value !== '' ? value : null;
  }

  /** Renames the probe (null or empty: back to the source's own label). */
  rename(sensorId: string, name: string | null): void {
    if (name === null || name.trim() === '') this.kv.delete(NAME_PREFIX + sensorId);
    else this.kv.set(NAME_PREFIX + sensorId, name.trim());
  }
}
