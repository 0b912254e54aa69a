import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { describeTime } from './readings';

/**
 * A controller failing again and again: at least MIN_FAILURES failed commands
 * or readbacks in the last DAYS days (failed dispatches the ledger kept, and
 * `controller.failure` announcements heard since start).
 */

const DAYS = 7;
const MIN_FAILURES = 3;

export const controllerErrors: Detector = {
  type: 'controller_errors_repeating',
  detect(e: AnomalyEvidence): Anomaly[] {
    const since = e.nowEpoch - DAYS * 86_400;
    const byController = new Map<string, { epoch: number; message: string }[]>();
    for (const f of e.controllerFailures) {
      if (f.epoch < since) continue;
      const list = byController.get(f.controller_id) ?? [];
      list.push(f);
      byController.set(f.controller_id, list);
    }
    const found: Anomaly[] = [];
    for (const [id, failures] of byController) {
      if (failures.length < MIN_FAILURES) continue;
      const sorted = [...failures].sort((a, b) => a.epoch - b.epoch);
      found.push(
        anomaly({
          severity: 'warning',
          type: 'controller_errors_repeating',
          subject: id,
          summary: `Controller ${id} failed ${failures.length} times in the last ${DAYS} days`,
          evidence: sorted.slice(-3).map((f) => `${describeTime(f.epoch, e.timezone)}: ${f.message}`),
          fix: 'Check that the controller is powered and reachable at its configured address, and its credentials; POST /wizard/test_controller tries it.',
        }),
      );
    }
    return found;
  },
};
