import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback stand-ins for the radar providers.
 *
 * Open-Meteo (`GET /v1/forecast`): with comma lists in `latitude` and
 * `longitude` it answers a JSON LIST with one result object per coordinate,
 * in request order (fixtures/open-meteo.md: "multiple coordinates -> the JSON
 * becomes a list of result objects"). Each object has the grid-cell
 * `latitude`/`longitude` actually used (snapped here to a 0.05 degree model
 * grid, as the real service answers a cell centre, not the request), the
 * usual timing and zone keys, and `current` + `current_units` or
 * `minutely_15` + `minutely_15_units` blocks, with `timeformat=unixtime`
 * epochs and the unit labels the real API returns (`m/s`, `°`, `mm`,
 * `unixtime`, `seconds`). Values are synthetic.
 */

export interface SeenRequest {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** What one test wants answered; `null` answers with the default behaviour of the fake. */
export type Override = (req: SeenRequest) => { status: number; body: string; hang?: boolean } | null;

export class LoopbackUpstream {
  readonly requests: SeenRequest[] = [];
  baseUrl = '';
  override: Override | null = null;
  private server: http.Server | null = null;

  constructor(private readonly answer: (req: SeenRequest) => { status: number; body: string }) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      const seen: SeenRequest = { path: url.pathname, query: url.searchParams, headers: req.headers };
      this.requests.push(seen);
      const reply = this.override?.(seen) ?? this.answer(seen);
      if ('hang' in reply && reply.hang) return;
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }
}

/** The coordinates of one request, in order. */
export function requestedPoints(query: URLSearchParams): { lat: number; lon: number }[] {
  const lats = (query.get('latitude') ?? '').split(',').map(Number);
  const lons = (query.get('longitude') ?? '').split(',').map(Number);
  return lats.map((lat, i) => ({ lat, lon: lons[i] ?? NaN }));
}

export interface FakeWeather {
  /** Wind at a point (m/s and degrees FROM), by point index; null fields are sent as JSON null. */
  wind: (index: number) => { speed: number | null; dir: number | null };
  windSpeedUnit: string;
  /** Current-conditions time (epoch seconds). */
  currentTime: number;
  /** First quarter-hour of the minutely_15 series (epoch seconds). */
  minutelyStart: number;
  /** Precipitation series at a point, by point index (mm per quarter-hour). */
  precip: (index: number) => (number | null)[];
  precipUnit: string;
}

export function defaultWeather(): FakeWeather {
  return {
    wind: () => ({ speed: 3, dir: 45 }),
    windSpeedUnit: 'm/s',
    currentTime: 1_752_500_700,
    minutelyStart: 1_752_500_700,
    precip: () => [0, 0, 0.1, 0.2, 0, 0, 0, 0],
    precipUnit: 'mm',
  };
}

const cell = (n: number) => Number((Math.round(n / 0.05) * 0.05).toFixed(4));

/** An Open-Meteo multi-location answer to one `/v1/forecast` request. */
export function openMeteoAnswer(req: SeenRequest, weather: FakeWeather): { status: number; body: string } {
  if (req.path !== '/v1/forecast') {
    return { status: 404, body: JSON.stringify({ error: true, reason: 'Not Found' }) };
  }
  const points = requestedPoints(req.query);
  const wantsCurrent = req.query.get('current') === 'wind_speed_10m,wind_direction_10m';
  const wantsMinutely = req.query.get('minutely_15') === 'precipitation';
  const steps = Number(req.query.get('forecast_minutely_15') ?? '0');
  const results = points.map((p, i) => {
    const result: Record<string, unknown> = {
      latitude: cell(p.lat),
      longitude: cell(p.lon),
      generationtime_ms: 0.0629425048828125,
      utc_offset_seconds: 0,
      timezone: 'GMT',
      timezone_abbreviation: 'GMT',
      elevation: 12.0,
    };
    if (wantsCurrent) {
      const { speed, dir } = weather.wind(i);
      result.current_units = {
        time: 'unixtime',
        interval: 'seconds',
        wind_speed_10m: weather.windSpeedUnit,
        wind_direction_10m: '°',
      };
      result.current = {
        time: weather.currentTime,
        interval: 900,
        wind_speed_10m: speed,
        wind_direction_10m: dir,
      };
    }
    if (wantsMinutely) {
      const values = weather.precip(i).slice(0, steps);
      result.minutely_15_units = { time: 'unixtime', precipitation: weather.precipUnit };
      result.minutely_15 = {
        time: values.map((_, k) => weather.minutelyStart + k * 900),
        precipitation: values,
      };
    }
    return result;
  });
  return { status: 200, body: JSON.stringify(results) };
}

/**
 * An NHC `CurrentStorms.json` document. Shape and field names follow the
 * feed at https://www.nhc.noaa.gov/CurrentStorms.json (NHC's published
 * CurrentStorms.json reference; the same names are read by several public
 * open-source clients, which were used to confirm them): `activeStorms[]` with
 * `id`, `binNumber`, `name`, `classification`, `intensity` (kt, a string),
 * `pressure` (mb, a string), `latitude`/`longitude` (text) and
 * `latitudeNumeric`/`longitudeNumeric`, `movementDir`, `movementSpeed`,
 * `lastUpdate`, and product objects with `advNum`, `issuance`,
 * `fileUpdateTime` and `url` / `kmzFile` / `zipFile`. RECONSTRUCTED: the
 * values are synthetic, not a capture.
 */
export function nhcCurrentStorms(): unknown {
  const product = (advNum: string, fields: Record<string, string>) => ({
    advNum,
    issuance: '2026-07-07T15:00:00.000Z',
    fileUpdateTime: '2026-07-07T15:04:12.000Z',
    ...fields,
  });
  return {
    activeStorms: [
      {
        id: 'al052026',
        binNumber: 'AT5',
        name: 'Ernesto',
        classification: 'HU',
        intensity: '85',
        pressure: '970',
        latitude: '24.5N',
        longitude: '70.1W',
        latitudeNumeric: 24.5,
        longitudeNumeric: -70.1,
        movementDir: 315,
        movementSpeed: 12,
        lastUpdate: '2026-07-07T15:00:00.000Z',
        publicAdvisory: product('014', {
          url: 'https://www.nhc.noaa.gov/text/refresh/MIATCPAT5+shtml/071500.shtml',
        }),
        forecastAdvisory: product('014', {
          url: 'https://www.nhc.noaa.gov/text/refresh/MIATCMAT5+shtml/071500.shtml',
        }),
        forecastGraphics: product('014', { url: 'https://www.nhc.noaa.gov/graphics_at5.shtml' }),
        forecastTrack: product('014', {
          zipFile: 'https://www.nhc.noaa.gov/gis/forecast/archive/al052026_5day_014.zip',
          kmzFile: 'https://www.nhc.noaa.gov/storm_graphics/api/AL052026_014adv_TRACK.kmz',
        }),
        trackCone: product('014', {
          zipFile: 'https://www.nhc.noaa.gov/gis/forecast/archive/al052026_5day_014.zip',
          kmzFile: 'https://www.nhc.noaa.gov/storm_graphics/api/AL052026_014adv_CONE.kmz',
        }),
        windWatchesWarnings: product('014', {
          kmzFile: 'javascript:alert(1)',
        }),
        bestTrackGIS: product('014', {
          zipFile: 'https://www.nhc.noaa.gov/gis/best_track/al052026_best_track.zip',
          kmzFile: 'https://www.nhc.noaa.gov/storm_graphics/api/AL052026_TRACK.kmz',
        }),
      },
      {
        id: 'ep022026',
        binNumber: 'EP2',
        name: 'Blas',
        classification: 'TS',
        intensity: '45',
        pressure: '',
        latitude: '15.0N',
        longitude: '105.2W',
        latitudeNumeric: 15.0,
        longitudeNumeric: -105.2,
        movementDir: null,
        movementSpeed: 0,
        lastUpdate: '2026-07-07T15:00:00.000Z',
      },
      {
        // No numeric position yet: cannot be drawn, left out.
        id: 'al062026',
        name: 'Six',
        classification: 'PTC',
        intensity: '30',
        lastUpdate: '2026-07-07T15:00:00.000Z',
      },
    ],
  };
}
