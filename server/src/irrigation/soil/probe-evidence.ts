import { calibratedPct, isCalibrated, type ProbeCalibration } from './probe-calibration';

/**
 * What a zone's bound soil probe says now (pure): its latest raw reading, the
 * calibrated reading when the probe is calibrated, and whether it can be
 * trusted. Statuses:
 *
 * - `no_probe`: the zone binds no probe;
 * - `unsupported`: the binding names a channel the service does not store
 *   (only `source:<id>:<key>` channels are kept as history);
 * - `offline`: no reading within the offline window (`engine.soil_probe_offline_minutes`);
 * - `distrusted`: the latest reading is outside 0..100, or the probe has
 *   repeated one value for STUCK_WINDOW_S (a probe out of the ground, a
 *   frozen transmitter);
 * - `uncalibrated`: a trusted relative reading (no dry/wet points);
 * - `calibrated`: a trusted reading on the probe's dry..wet scale.
 *
 * Only the last two are evidence: holds and the ledger read nothing else.
 */

export type ProbeStatus =
  'no_probe' | 'unsupported' | 'offline' | 'distrusted' | 'uncalibrated' | 'calibrated';

export interface ProbeEvidence {
  sensor_id: string | null;
  status: ProbeStatus;
  /** The probe's own latest reading, % (null when none). */
  raw_pct: number | null;
  /** The calibrated reading when calibrated, else the relative raw reading; null unless trusted. */
  reading_pct: number | null;
  reading_epoch: number | null;
  /** Why the probe is distrusted, offline or unsupported; null otherwise. */
  note: string | null;
  calibration: ProbeCalibration | null;
}

export interface ProbeSample {
  epoch: number;
  value: number;
}

/** One repeated value for three days is a stuck probe: real soil drifts with every day's ET. */
export const STUCK_WINDOW_S = 72 * 3600;
/** How much history the evidence is built from: enough to see a stuck probe. */
export const PROBE_HISTORY_S = STUCK_WINDOW_S + 6 * 3600;

export interface ProbeChannelRef {
  source_id: string;
  field: string;
}

/** The stored channel a `soil_sensor_id` names; null for bindings the service cannot read back. */
export function storedChannel(sensorId: string | null | undefined): ProbeChannelRef | null {
  const match = sensorId ? /^source:([^:]+):(.+)$/.exec(sensorId) : null;
  return match ? { source_id: match[1] as string, field: match[2] as string } : null;
}

export function noProbe(): ProbeEvidence {
  return {
    sensor_id: null,
    status: 'no_probe',
    raw_pct: null,
    reading_pct: null,
    reading_epoch: null,
    note: null,
    calibration: null,
  };
}

export function probeEvidence(
  sensorId: string,
  samples: readonly ProbeSample[],
  calibration: ProbeCalibration | null,
  nowEpoch: number,
  offlineAfterS: number,
): ProbeEvidence {
  const base = { ...noProbe(), sensor_id: sensorId, calibration };
  if (!storedChannel(sensorId)) {
    return { ...base, status: 'unsupported', note: 'only source:<id>:<key> channels are kept as history' };
  }
  const past = samples.filter((s) => s.epoch <= nowEpoch).sort((a, b) => a.epoch - b.epoch);
  const last = past.at(-1);
  if (!last || nowEpoch - last.epoch > offlineAfterS) {
    const since = last ? `no reading since ${new Date(last.epoch * 1000).toISOString()}` : 'no reading yet';
    return {
      ...base,
      status: 'offline',
      raw_pct: last?.value ?? null,
      reading_epoch: last?.epoch ?? null,
      note: since,
    };
  }
  const seen = { raw_pct: last.value, reading_epoch: last.epoch };
  if (!(last.value >= 0 && last.value <= 100)) {
    return { ...base, ...seen, status: 'distrusted', note: `reading ${last.value} % is outside 0..100 %` };
  }
  if (isStuck(past, nowEpoch)) {
    return {
      ...base,
      ...seen,
      status: 'distrusted',
      note: `the probe has read ${last.value} % unchanged for ${STUCK_WINDOW_S / 3600} h`,
    };
  }
  const calibrated = isCalibrated(calibration);
  return {
    ...base,
    ...seen,
    status: calibrated ? 'calibrated' : 'uncalibrated',
    reading_pct: calibrated ? round1(calibratedPct(last.value, calibration) as number) : last.value,
  };
}

/** Readings reach back STUCK_WINDOW_S and every one of them in the window is the same value. */
function isStuck(past: readonly ProbeSample[], nowEpoch: number): boolean {
  const first = past[0];
  if (!first || nowEpoch - first.epoch < STUCK_WINDOW_S) return false;
  const window = past.filter((s) => s.epoch >= nowEpoch - STUCK_WINDOW_S);
  const value = window[0]?.value;
  return window.length >= 2 && window.every((s) => s.value === value);
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
