import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { describeTime } from './readings';

/** An enabled station (not a forecast model) in health status `offline` (spec 3: the hard-offline window). */
export const stationOffline: Detector = {
  type: 'station_offline',
  detect(e: AnomalyEvidence): Anomaly[] {
    return e.sources
      .filter((s) => s.enabled && s.status === 'offline' && !e.modelledSources.has(s.id))
      .map((s) =>
        anomaly({
          severity: 'warning',
          type: 'station_offline',
          subject: s.id,
          summary: `Station ${s.id} (${s.kind}) is offline`,
          evidence: [
            s.last_seen_epoch === null
              ? 'never seen since the service started'
              : `last seen ${describeTime(s.last_seen_epoch, e.timezone)}`,
            ...(s.note ? [s.note] : []),
          ],
          fix: 'Check its power, network and the source config; watering falls back to model weather meanwhile.',
        }),
      );
  },
};
