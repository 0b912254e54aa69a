import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { describeTime } from './readings';

/** `restart_required` held for PENDING_HOURS or more: a config change is waiting for a restart to apply. */

const PENDING_HOURS = 6;

export const restartPending: Detector = {
  type: 'restart_required_pending',
  detect(e: AnomalyEvidence): Anomaly[] {
    const since = e.restartPendingSince;
    if (since === null || e.nowEpoch - since < PENDING_HOURS * 3600) return [];
    const reasons = e.irrigation?.restart_reasons ?? [];
    return [
      anomaly({
        severity: 'warning',
        type: 'restart_required_pending',
        subject: 'site',
        summary: `A restart has been pending since ${describeTime(since, e.timezone)}`,
        evidence: reasons.length > 0 ? reasons : ['restart_required is true'],
        fix: 'Restart the add-on (or the service) when no zone is watering; the change does not apply until then.',
      }),
    ];
  },
};
