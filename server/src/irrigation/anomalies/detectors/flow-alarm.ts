import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { describeTime } from './readings';

/**
 * Flow alarms of the last day per zone (the metered flow left its learned
 * baseline, or no flow with the valve open). Issue 17 raises them; without a
 * provider (`flowAlarms` null) this detector has nothing to read.
 */
export const flowAlarm: Detector = {
  type: 'flow_alarm',
  detect(e: AnomalyEvidence): Anomaly[] {
    if (!e.flowAlarms) return [];
    const byZone = new Map<string, typeof e.flowAlarms>();
    for (const a of e.flowAlarms) byZone.set(a.zone, [...(byZone.get(a.zone) ?? []), a]);
    return [...byZone].map(([zone, alarms]) =>
      anomaly({
        severity: alarms.some((a) => a.stopped || a.kind === 'high') ? 'critical' : 'warning',
        type: 'flow_alarm',
        subject: zone,
        summary: `Zone ${zone} raised ${alarms.length} flow alarm(s) in the last day`,
        evidence: alarms
          .slice(-3)
          .map(
            (a) =>
              `${describeTime(a.epoch, e.timezone)}: ${a.kind} flow ${a.rate_gpm ?? 'unknown'} gpm against ${a.baseline_gpm ?? 'no'} baseline${a.stopped ? ', zone stopped' : ''}`,
          ),
        fix: 'Walk the zone with it running: high flow is a broken head or pipe, low or none a closed valve, clog or failed solenoid.',
      }),
    );
  },
};
