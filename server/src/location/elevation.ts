/**
 * Ground elevation for a point from the Open-Meteo elevation API (90 m DEM,
 * the same model its forecasts downscale with). `{"elevation":[38.0]}`.
 */

export const OPEN_METEO_ELEVATION_URL = 'https://api.open-meteo.com/v1/elevation';

export class ElevationUnavailable extends Error {}

export interface ElevationClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

export class ElevationClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ElevationClientOptions = {}) {
    this.baseUrl = options.baseUrl ?? OPEN_METEO_ELEVATION_URL;
    this.timeoutMs = options.timeoutMs ?? 8000;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  async elevationM(lat: number, lon: number): Promise<number> {
    const url = `${this.baseUrl}?latitude=${lat}&longitude=${lon}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new ElevationUnavailable(`elevation service unreachable: ${(err as Error).message}`);
    }
    if (!response.ok) throw new ElevationUnavailable(`elevation service answered HTTP ${response.status}`);
    const body: unknown = await response.json().catch(() => null);
    const value = (body as { elevation?: unknown } | null)?.elevation;
    const first = Array.isArray(value) ? value[0] : undefined;
    if (typeof first !== 'number' || !Number.isFinite(first)) {
      throw new ElevationUnavailable('elevation service answered without a usable elevation');
    }
    return first;
  }
}
