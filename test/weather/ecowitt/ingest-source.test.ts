import { ManualClock } from '../../../server/src/core/clock';
import { IngestRejected } from '../../../server/src/weather/source';
import {
  EcowittIngestSource,
  ecowittIngestConfigSchema,
  ecowittIngestKind,
  readUploadFields,
  uploadCredential,
} from '../../../server/src/weather/sources/ecowitt/ingest-source';
import { extraOf, makeContext, readingOf, uploadBodies, valueOf } from './helpers';

const bodies = uploadBodies();
const HP3500 = bodies[5]!;
const HP3500_KEY = '34271334ED1FADA6D8B988B14267E55D';
const GW2000A = bodies[1]!;
const GW2000A_EPOCH = 1650482087; // its dateutc, 2022-04-20 19:14:47 UTC

function ingestSource(passkey: string, clockMs = Date.UTC(2025, 0, 1)) {
  const made = makeContext({ passkey }, { clock: new ManualClock(clockMs), id: 'ingest1' });
  const src = ecowittIngestKind.create(made.ctx) as EcowittIngestSource;
  return { src, ...made };
}

function rejection(run: () => void): IngestRejected {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestRejected);
    return err as IngestRejected;
  }
  throw new Error('expected IngestRejected');
}

describe('ecowitt_ingest source', () => {
  it('matches its passkey in constant time and nothing else', () => {
    const { src } = ingestSource(HP3500_KEY);
    expect(src.kind).toBe('ecowitt_ingest');
    expect(src.matchesPasskey(HP3500_KEY)).toBe(true);
    expect(src.matchesPasskey(` ${HP3500_KEY}\n`)).toBe(true);
    expect(src.matchesPasskey(HP3500_KEY.toLowerCase())).toBe(false);
    expect(src.matchesPasskey(HP3500_KEY.slice(0, -1))).toBe(false);
    expect(src.matchesPasskey('')).toBe(false);
  });

  it('publishes a form-encoded upload with the right PASSKEY and reports contact', () => {
    const { src, sink } = ingestSource(HP3500_KEY);
    src.ingest(HP3500, 'application/x-www-form-urlencoded');
    expect(sink.batches).toHaveLength(1);
    expect(sink.contacts).toEqual([{ ok: true }]);
    const batch = sink.batches[0]!;
    expect(readingOf(batch, 'air_temp_f')).toEqual({
      field: 'air_temp_f',
      value: 70.3,
      observedEpoch: Date.UTC(2020, 4, 4, 14, 34, 26) / 1000,
    });
    expect(valueOf(batch, 'solar_w_m2')).toBe(205.52);
    expect(batch.devices![0]).toMatchObject({ id: 'ingest1:gateway', source_id: 'ingest1', model: 'HP3500' });
    expect(JSON.stringify(batch)).not.toContain(HP3500_KEY); // the PASSKEY is a secret
  });

  it('accepts an already-parsed form object and raw bytes', () => {
    const { src, sink } = ingestSource(HP3500_KEY);
    const parsed = Object.fromEntries(new URLSearchParams(HP3500));
    src.ingest(parsed, 'application/x-www-form-urlencoded');
    src.ingest(Buffer.from(HP3500, 'utf8'), undefined);
    expect(sink.batches).toHaveLength(2);
    expect(valueOf(sink.batches[0]!, 'air_temp_f')).toBe(70.3);
    expect(valueOf(sink.batches[1]!, 'uv_index')).toBe(2);
  });

  it('accepts the Wunderground variant keyed by PASSWORD', () => {
    const { src, sink } = ingestSource('1909');
    const query = bodies[7]!;
    expect(src.matchesPasskey(uploadCredential(readUploadFields(query)!)!)).toBe(true);
    src.ingest(query, undefined);
    expect(valueOf(sink.batches[0]!, 'air_temp_f')).toBe(89.42);
    expect(readingOf(sink.batches[0]!, 'air_temp_f')!.observedEpoch).toBe(Date.UTC(2025, 0, 1) / 1000);
  });

  it('rejects a body for another gateway and keeps nothing', () => {
    const { src, sink } = ingestSource('0123456789ABCDEF0123456789ABCDEF');
    const err = rejection(() => src.ingest(HP3500, 'application/x-www-form-urlencoded'));
    expect(err.code).toBe('ingest_passkey_mismatch');
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([]);
  });

  it('rejects garbage as ingest_unparseable', () => {
    const { src, sink } = ingestSource(HP3500_KEY);
    const garbage: [unknown, string | undefined][] = [
      ['hello world', 'text/plain'],
      ['', 'application/x-www-form-urlencoded'],
      ['{not json', 'application/json'],
      [42, undefined],
      [null, undefined],
      [['PASSKEY', HP3500_KEY], undefined],
      ['tempf=70&humidity=30', 'application/x-www-form-urlencoded'], // no PASSKEY
      [{ tempf: 70 }, undefined],
    ];
    for (const [body, type] of garbage) {
      expect(rejection(() => src.ingest(body, type)).code).toBe('ingest_unparseable');
    }
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([]);
  });

  it('rejects its own gateway when the upload carries no usable value, and says so', () => {
    const { src, sink } = ingestSource(HP3500_KEY);
    const body = `PASSKEY=${HP3500_KEY}&stationtype=EasyWeatherV1.4.9&tempf=-9999&humidity=&freq=915M`;
    expect(rejection(() => src.ingest(body, undefined)).code).toBe('ingest_unparseable');
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([{ ok: false, note: 'gateway upload carried no usable value' }]);
  });

  it('derives per-interval lightning from consecutive uploads and forwards a strike once', () => {
    const { src, sink } = ingestSource('x'.repeat(32), (GW2000A_EPOCH + 600) * 1000);
    src.ingest(GW2000A, undefined);
    const later = GW2000A.replace(
      'dateutc=2022-04-20+19%3A14%3A47',
      'dateutc=2022-04-20+19%3A15%3A03',
    ).replace('lightning_num=13', 'lightning_num=15');
    src.ingest(later, undefined);
    const [first, second] = sink.batches;
    expect(readingOf(first!, 'lightning_count_last_min')).toBeUndefined();
    expect(first!.strikes).toEqual([
      { epoch: 1650475037, distanceMi: expect.closeTo(0.6214, 4), energy: null },
    ]);
    expect(readingOf(second!, 'lightning_count_last_min')).toEqual({
      field: 'lightning_count_last_min',
      value: 2,
      observedEpoch: GW2000A_EPOCH + 16,
    });
    expect(valueOf(second!, 'lightning_avg_dist_mi')).toBeCloseTo(0.6214, 4);
    expect(second!.strikes).toBeUndefined();
    expect(extraOf(second!, 'soil_moisture_pct:4')?.value).toBe(49);
  });

  it("answers today's rain as unknown after local midnight until the next upload", () => {
    const midnight = Date.UTC(2022, 3, 21, 5, 0, 0) / 1000; // 00:00 CDT on 2022-04-21
    const { src, sink, clock } = ingestSource('x'.repeat(32), (GW2000A_EPOCH + 60) * 1000);
    src.ingest(GW2000A, undefined); // 14:14 CDT on 2022-04-20
    expect(src.readingsAt(GW2000A_EPOCH + 3600)).toEqual([]);
    expect(src.readingsAt(midnight - 1)).toEqual([]);
    expect(src.readingsAt(midnight + 1)).toEqual([
      { field: 'rain_in_today', value: null, observedEpoch: GW2000A_EPOCH },
    ]);
    clock.set((midnight + 120) * 1000);
    src.ingest(
      GW2000A.replace('dateutc=2022-04-20+19%3A14%3A47', 'dateutc=2022-04-21+05%3A01%3A00'),
      undefined,
    );
    expect(readingOf(sink.batches[1]!, 'rain_in_today')?.observedEpoch).toBe(midnight + 60);
    expect(src.readingsAt(midnight + 180)).toEqual([]);
  });
});

describe('ecowitt_ingest config', () => {
  it('requires a non-empty passkey and defaults the rain gauge', () => {
    expect(ecowittIngestConfigSchema.parse({ passkey: 'abc' })).toEqual({
      passkey: 'abc',
      rain_gauge: 'auto',
    });
    expect(ecowittIngestConfigSchema.safeParse({}).success).toBe(false);
    expect(ecowittIngestConfigSchema.safeParse({ passkey: '' }).success).toBe(false);
    expect(ecowittIngestConfigSchema.safeParse({ passkey: 'abc', rain_gauge: 'tipping' }).success).toBe(true);
    expect(() => ecowittIngestKind.create(makeContext({}).ctx)).toThrow();
  });

  it('reads bodies of every accepted shape', () => {
    expect(readUploadFields('PASSKEY=a&tempf=1')).toEqual({ PASSKEY: 'a', tempf: '1' });
    expect(readUploadFields({ PASSKEY: ['a', 'b'], tempf: 1, junk: { x: 1 } })).toEqual({
      PASSKEY: 'a',
      tempf: '1',
    });
    expect(readUploadFields('{"PASSKEY":"a","tempf":"1"}', 'application/json')).toEqual({
      PASSKEY: 'a',
      tempf: '1',
    });
    expect(readUploadFields('   ')).toBeNull();
    expect(readUploadFields([])).toBeNull();
  });
});
