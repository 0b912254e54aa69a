import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../server/src/core/logger';
import type { AnomalyEvidence } from '../../../server/src/irrigation/anomalies/anomaly';
import { DETECTORS } from '../../../server/src/irrigation/anomalies/detectors/index';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { ProbeCalibrationStore } from '../../../server/src/irrigation/soil/probe-calibration-store';
import { probeEvidence, type ProbeEvidence } from '../../../server/src/irrigation/soil/probe-evidence';
import { distrustOutliers } from '../../../server/src/irrigation/soil/probe-neighbours';
import { ProbeReader } from '../../../server/src/irrigation/soil/probe-reader';
import { Store } from '../../../server/src/store/store';
import { demo, HOUR, input, NOW } from '../engine/fixtures';

/** Probe health: offline, stuck, out of range, an outlier among neighbours; the anomalies they raise. */

const OFFLINE_S = 3 * HOUR;
const CAL = {
  dry_raw_pct: 10,
  wet_raw_pct: 50,
  dry_origin: 'owner' as const,
  wet_origin: 'owner' as const,
  updated_epoch: 0,
};

function calibrated(sensor: string, raw: number): ProbeEvidence {
  return probeEvidence(sensor, [{ epoch: NOW - 60, value: raw }], CAL, NOW, OFFLINE_S);
}

describe('probe evidence', () => {
  it('is offline past the window, and a probe never heard is offline too', () => {
    expect(
      probeEvidence(
        'source:g:soil_moisture_pct:1',
        [{ epoch: NOW - OFFLINE_S, value: 30 }],
        null,
        NOW,
        OFFLINE_S,
      ).status,
    ).toBe('uncalibrated');
    const late = probeEvidence(
      'source:g:soil_moisture_pct:1',
      [{ epoch: NOW - OFFLINE_S - 1, value: 30 }],
      null,
      NOW,
      OFFLINE_S,
    );
    expect(late).toMatchObject({ status: 'offline', raw_pct: 30, reading_pct: null });
    expect(probeEvidence('source:g:soil_moisture_pct:1', [], null, NOW, OFFLINE_S)).toMatchObject({
      status: 'offline',
      raw_pct: null,
      note: 'no reading yet',
    });
  });

  it('a probe that moves, or has less than 72 h of history, is not stuck', () => {
    const moving = Array.from({ length: 80 }, (_, h) => ({ epoch: NOW - h * HOUR, value: 30 + (h % 3) }));
    expect(probeEvidence('source:g:soil_moisture_pct:1', moving, null, NOW, OFFLINE_S).status).toBe(
      'uncalibrated',
    );
    const young = Array.from({ length: 48 }, (_, h) => ({ epoch: NOW - h * HOUR, value: 30 }));
    expect(probeEvidence('source:g:soil_moisture_pct:1', young, null, NOW, OFFLINE_S).status).toBe(
      'uncalibrated',
    );
  });

  it('an HA entity binding is reported unsupported, not read as a fake value', () => {
    expect(probeEvidence('ha:sensor.garden_soil', [], null, NOW, OFFLINE_S)).toMatchObject({
      status: 'unsupported',
      reading_pct: null,
    });
  });
});

describe('neighbours', () => {
  it('a calibrated probe far from two agreeing neighbours is distrusted', () => {
    const probes = new Map([
      ['a', calibrated('source:g:soil_moisture_pct:1', 30)], // 50 %
      ['b', calibrated('source:g:soil_moisture_pct:2', 32)], // 55 %
      ['c', calibrated('source:g:soil_moisture_pct:3', 10)], // 0 %
    ]);
    const judged = distrustOutliers(probes);
    expect(judged.get('c')).toMatchObject({ status: 'distrusted', reading_pct: null });
    expect(judged.get('c')?.note).toContain('neighbours');
    expect(judged.get('a')?.status).toBe('calibrated');
    expect(judged.get('b')?.status).toBe('calibrated');
  });

  it('one neighbour, or neighbours that disagree among themselves, prove nothing', () => {
    const two = new Map([
      ['a', calibrated('source:g:soil_moisture_pct:1', 30)],
      ['c', calibrated('source:g:soil_moisture_pct:3', 10)],
    ]);
    expect([...distrustOutliers(two).values()].map((p) => p.status)).toEqual(['calibrated', 'calibrated']);
    const spread = new Map([...two, ['b', calibrated('source:g:soil_moisture_pct:2', 50)]]);
    expect([...distrustOutliers(spread).values()].every((p) => p.status === 'calibrated')).toBe(true);
  });
});

describe('ProbeReader over a real store', () => {
  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-probe-'));
    store = Store.open(path.join(dir, 'raincheck.db'), silentLogger());
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads the bound channel's latest reading from its own source and the probe's calibration", () => {
    store.readings.insertMany([
      { epoch: NOW - 1200, source_id: 'gw', field: 'soil_moisture_pct:1', value: 20 },
      { epoch: NOW - 600, source_id: 'gw', field: 'soil_moisture_pct:1', value: 33 },
      { epoch: NOW - 300, source_id: 'other', field: 'soil_moisture_pct:1', value: 90 },
    ]);
    const calibrations = new ProbeCalibrationStore(store.controls);
    const reader = new ProbeReader({ readings: store.readings, calibration: (id) => calibrations.get(id) });
    const config = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      (zones['front_lawn'] as Record<string, unknown>)['soil_sensor_id'] = 'source:gw:soil_moisture_pct:1';
    });
    expect(reader.evidence(config, NOW).get('front_lawn')).toMatchObject({
      status: 'uncalibrated',
      raw_pct: 33,
    });
    expect(reader.evidence(config, NOW).get('back_lawn')?.status).toBe('no_probe');
    calibrations.setPoint('source:gw:soil_moisture_pct:1', 'dry', 13, 'owner', NOW);
    calibrations.setPoint('source:gw:soil_moisture_pct:1', 'wet', 53, 'owner', NOW);
    expect(reader.evidence(config, NOW).get('front_lawn')).toMatchObject({
      status: 'calibrated',
      reading_pct: 50,
    });
    // Past the configured window (180 min by default) the probe is offline.
    expect(reader.evidence(config, NOW + 181 * 60).get('front_lawn')?.status).toBe('offline');
  });
});

describe('soil probe anomalies', () => {
  function anomaliesFor(evidence: ProbeEvidence, thresholds: Record<string, number> = {}) {
    const config = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      Object.assign(zones['front_lawn'] as Record<string, unknown>, {
        soil_sensor_id: evidence.sensor_id,
        ...thresholds,
      });
    });
    const out = computeIrrigation(input({ config, probes: new Map([['front_lawn', evidence]]) }));
    const judged = { irrigation: out.snapshot } as unknown as AnomalyEvidence;
    return DETECTORS.filter((d) => d.type.startsWith('soil_probe')).flatMap((d) => d.detect(judged));
  }

  it('an offline probe raises soil_probe_offline for its zone; a healthy one nothing', () => {
    const offline = probeEvidence(
      'source:g:soil_moisture_pct:1',
      [{ epoch: NOW - 4 * HOUR, value: 30 }],
      null,
      NOW,
      OFFLINE_S,
    );
    expect(anomaliesFor(offline).map((a) => [a.type, a.subject])).toEqual([
      ['soil_probe_offline', 'front_lawn'],
    ]);
    expect(anomaliesFor(calibrated('source:g:soil_moisture_pct:1', 30))).toEqual([]);
  });

  it('a probe out of range raises soil_probe_distrusted with the reading as evidence', () => {
    const wild = probeEvidence(
      'source:g:soil_moisture_pct:1',
      [{ epoch: NOW - 60, value: 140 }],
      null,
      NOW,
      OFFLINE_S,
    );
    const [found] = anomaliesFor(wild);
    expect(found?.type).toBe('soil_probe_distrusted');
    expect(found?.description).toContain('140 %');
  });
});
