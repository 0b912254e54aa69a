import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';

/**
 * A zone's bound soil probe the engine cannot trust, or whose dry reading the
 * ledger contradicts (read from the snapshot's `soil_forecasts[]`, which
 * irrigation/soil/probe-forecast.ts fills):
 *
 * - `soil_probe_offline`: no reading within `engine.soil_probe_offline_minutes`;
 * - `soil_probe_distrusted`: stuck, out of range, or contradicted by its neighbours;
 * - `soil_probe_disagrees`: reads below the zone's watering threshold while the
 *   ledger says the zone is not due (no automatic run follows).
 *
 * The subject is the zone; the anomaly service announces each once while it lasts.
 */

interface ForecastRow {
  zone?: unknown;
  status?: unknown;
  sensor_id?: unknown;
  note?: unknown;
  disagreement?: unknown;
}

function rows(e: AnomalyEvidence): ForecastRow[] {
  return (e.irrigation?.soil_forecasts ?? []) as ForecastRow[];
}

function facts(row: ForecastRow): { zone: string; evidence: string[] } {
  const note = typeof row.note === 'string' ? row.note : '';
  return { zone: String(row.zone ?? ''), evidence: [String(row.sensor_id ?? ''), note].filter(Boolean) };
}

export const soilProbeOffline: Detector = {
  type: 'soil_probe_offline',
  detect: (e) =>
    rows(e)
      .filter((row) => row.status === 'offline')
      .map((row) => {
        const { zone, evidence } = facts(row);
        return anomaly({
          severity: 'warning',
          type: 'soil_probe_offline',
          subject: zone,
          summary: `The soil probe of zone ${zone} is offline`,
          evidence,
          fix: "Check the probe's battery and its gateway's reach; until it reports, the zone is planned without it.",
        });
      }),
};

export const soilProbeDistrusted: Detector = {
  type: 'soil_probe_distrusted',
  detect: (e) =>
    rows(e)
      .filter((row) => row.status === 'distrusted')
      .map((row) => {
        const { zone, evidence } = facts(row);
        return anomaly({
          severity: 'warning',
          type: 'soil_probe_distrusted',
          subject: zone,
          summary: `The soil probe of zone ${zone} is not trusted`,
          evidence,
          fix: 'Check that the probe sits in the root zone and is not damaged; recalibrate it on the Devices page.',
        });
      }),
};

export const soilProbeDisagrees: Detector = {
  type: 'soil_probe_disagrees',
  detect: (e): Anomaly[] =>
    rows(e).flatMap((row) =>
      typeof row.disagreement === 'string'
        ? [
            anomaly({
              severity: 'info',
              type: 'soil_probe_disagrees',
              subject: String(row.zone ?? ''),
              summary: `The soil probe of zone ${String(row.zone ?? '')} reads dry while the soil ledger says the zone is not due`,
              evidence: [row.disagreement],
              fix: "Compare the probe's placement and calibration with the zone's soil settings; the engine does not water on the probe alone.",
            }),
          ]
        : [],
    ),
};
