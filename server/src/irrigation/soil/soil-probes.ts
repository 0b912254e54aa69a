import type { Store } from '../../store/store';
import { ProbeCalibrationStore } from './probe-calibration-store';
import { ProbeReader } from './probe-reader';

/** The soil probe parts main.ts wires: the calibration store and the engine's probe reader. */
export interface SoilProbes {
  calibrations: ProbeCalibrationStore;
  reader: ProbeReader;
}

export function soilProbes(store: Store): SoilProbes {
  const calibrations = new ProbeCalibrationStore(store.controls);
  const reader = new ProbeReader({
    readings: store.readings,
    calibration: (sensorId) => calibrations.get(sensorId),
  });
  return { calibrations, reader };
}
