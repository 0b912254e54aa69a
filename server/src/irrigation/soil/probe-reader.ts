import type { RaincheckConfig } from '../../config/schema';
import type { Reading } from '../../store/readings';
import type { ProbeCalibration } from './probe-calibration';
import { distrustOutliers } from './probe-neighbours';
import { PROBE_HISTORY_S, noProbe, probeEvidence, storedChannel, type ProbeEvidence } from './probe-evidence';

/**
 * Gathers, per zone, what its bound soil probe says now (the engine's
 * `probes` input): the channel's stored readings of the last PROBE_HISTORY_S,
 * the probe's calibration, and the configured offline window; then a
 * calibrated probe its neighbours contradict is distrusted (probe-neighbours.ts).
 */

export interface ProbeReaderDeps {
  readings: { listRecent(nowEpoch: number, hours: number, field?: string): Reading[] };
  calibration: (sensorId: string) => ProbeCalibration | null;
}

export class ProbeReader {
  constructor(private readonly deps: ProbeReaderDeps) {}

  evidence(config: RaincheckConfig, nowEpoch: number): Map<string, ProbeEvidence> {
    const offlineAfterS = config.engine.soil_probe_offline_minutes * 60;
    const out = new Map<string, ProbeEvidence>();
    for (const [slug, zone] of Object.entries(config.zones)) {
      const sensorId = zone.soil_sensor_id ?? null;
      if (!sensorId) {
        out.set(slug, noProbe());
        continue;
      }
      out.set(
        slug,
        probeEvidence(
          sensorId,
          this.samples(sensorId, nowEpoch),
          this.deps.calibration(sensorId),
          nowEpoch,
          offlineAfterS,
        ),
      );
    }
    return distrustOutliers(out);
  }

  private samples(sensorId: string, nowEpoch: number): { epoch: number; value: number }[] {
    const channel = storedChannel(sensorId);
    if (!channel) return [];
    return this.deps.readings
      .listRecent(nowEpoch, PROBE_HISTORY_S / 3600, channel.field)
      .filter((r) => r.source_id === channel.source_id)
      .map((r) => ({ epoch: r.epoch, value: r.value }));
  }
}
