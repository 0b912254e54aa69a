import type { Detector } from '../anomaly';
import { capBindingEverySession, capBindingPastRaw } from './cap-binding';
import { controllerErrors } from './controller-errors';
import { et0OutOfClimate } from './et0-out-of-climate';
import { flowAlarm } from './flow-alarm';
import { gaugeDisagrees } from './gauge-disagrees';
import { restartPending } from './restart-pending';
import { sourceDisagrees } from './source-disagrees';
import { sourceJump } from './source-jump';
import { sourceOutOfRange } from './source-out-of-range';
import { sourceStuck } from './source-stuck';
import { stationOffline } from './station-offline';
import { zoneDueNotWatered } from './zone-due-not-watered';
import { soilProbeDisagrees, soilProbeDistrusted, soilProbeOffline } from './soil-probe';

/** Every anomaly detector; each `type` is documented in docs/learning.md. */
export const DETECTORS: readonly Detector[] = [
  flowAlarm,
  stationOffline,
  sourceOutOfRange,
  sourceJump,
  sourceStuck,
  sourceDisagrees,
  gaugeDisagrees,
  et0OutOfClimate,
  controllerErrors,
  zoneDueNotWatered,
  capBindingPastRaw,
  capBindingEverySession,
  restartPending,
  soilProbeOffline,
  soilProbeDistrusted,
  soilProbeDisagrees,
];
