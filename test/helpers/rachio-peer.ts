import { json, LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback Rachio public API v1 (shared/fixtures/cloud-controllers.md),
 * served under `/1/public` like api.rach.io: GET person/info, person/{id}
 * (devices with zones, shaped like the fixture's data objects), device/{id},
 * device/{id}/current_schedule; PUT zone/start and device/stop_water (204).
 * It checks the bearer key (401 otherwise), answers every response with the
 * X-RateLimit-Limit/Remaining/Reset headers while counting down a daily
 * budget (429 once it is spent), and can mark the device OFFLINE or hang.
 * The current_schedule shape is the one public clients read (zoneId,
 * zoneStartDate in epoch ms, zoneDuration in s; `{}` when idle).
 */

export const RACHIO_PEER_KEY = 'rachio-peer-key-7d41c2e9';
export const RACHIO_PERSON_ID = 'c8d10892-fd69-48ab-8492-2d3d6ff71ee6';
export const RACHIO_DEVICE_ID = '55e57aff-d8a2-4e3b-9836-25cf7f6839e7';
export const RACHIO_ZONES = {
  front: '108e23aa-4999-4da2-994a-62aa6e207221',
  back: '2e5a4d0b-7f3c-4d38-9f6e-3c1a5d2b9e11',
  /** Disabled in the app: a zone scan skips it. */
  side: '9b7e1c44-0a2f-4e6b-8d55-7f0c3a1e6d22',
};
const RESET = '2025-01-03T00:00:00Z';
const MAX_DURATION_S = 10_800;

export interface RachioPeerOptions {
  apiKey?: string;
  /** The daily call budget (X-RateLimit-Limit); default 3500. */
  limit?: number;
  /** Calls left before the first request; default `limit`. */
  remaining?: number;
  /** Epoch ms for run start times (pass the test's ManualClock); default Date.now. */
  nowMs?: () => number;
}

interface RunningZone {
  zoneId: string;
  startMs: number;
  durationS: number;
}

export class RachioPeer {
  readonly peer: LoopbackPeer;
  readonly apiKey: string;
  readonly limit: number;
  remaining: number;
  deviceStatus: 'ONLINE' | 'OFFLINE' = 'ONLINE';
  /** Hold every request open without answering (timeouts). */
  hang = false;
  running: RunningZone | null = null;
  private readonly nowMs: () => number;

  constructor(options: RachioPeerOptions = {}) {
    this.apiKey = options.apiKey ?? RACHIO_PEER_KEY;
    this.limit = options.limit ?? 3500;
    this.remaining = options.remaining ?? this.limit;
    this.nowMs = options.nowMs ?? Date.now;
    this.peer = new LoopbackPeer((req) => this.answer(req));
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  /** The base_url an adapter is configured with. */
  get baseUrl(): string {
    return `${this.peer.baseUrl}/1/public`;
  }

  get requests(): SeenRequest[] {
    return this.peer.requests;
  }

  private answer(req: SeenRequest): PeerReply {
    if (this.hang) return { status: 0, body: '', hang: true };
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return this.withBudget(json(401, { code: '401', error: 'Unauthorized' }));
    }
    if (this.remaining <= 0) return this.withBudget(json(429, { error: 'Too Many Requests' }));
    this.remaining -= 1;
    return this.withBudget(this.route(req));
  }

  private withBudget(reply: PeerReply): PeerReply {
    const headers = {
      'X-RateLimit-Limit': String(this.limit),
      'X-RateLimit-Remaining': String(this.remaining),
      'X-RateLimit-Reset': RESET,
    };
    return { ...reply, headers: { ...reply.headers, ...headers } };
  }

  private route(req: SeenRequest): PeerReply {
    const path = req.path.replace(/^\/1\/public/, '');
    if (req.method === 'GET') return this.get(path);
    if (req.method === 'PUT') return this.put(path, req);
    return json(405, { error: 'Method Not Allowed' });
  }

  private get(path: string): PeerReply {
    if (path === '/person/info') return json(200, { id: RACHIO_PERSON_ID });
    if (path === `/person/${RACHIO_PERSON_ID}`) return json(200, this.person());
    if (path === `/device/${RACHIO_DEVICE_ID}`) return json(200, this.device());
    if (path === `/device/${RACHIO_DEVICE_ID}/current_schedule`) return json(200, this.currentSchedule());
    return json(404, { error: 'Not Found' });
  }

  private put(path: string, req: SeenRequest): PeerReply {
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return json(400, { error: 'expected an application/json body' });
    }
    const body = parseBody(req.body);
    if (path === '/zone/start') return this.startZone(body);
    if (path === '/device/stop_water') return this.stopWater(body);
    return json(404, { error: 'Not Found' });
  }

  private startZone(body: Record<string, unknown>): PeerReply {
    const zoneId = body.id;
    const duration = body.duration;
    if (typeof zoneId !== 'string' || !Object.values(RACHIO_ZONES).includes(zoneId)) {
      return json(404, { error: 'zone not found' });
    }
    if (
      typeof duration !== 'number' ||
      !Number.isInteger(duration) ||
      duration < 0 ||
      duration > MAX_DURATION_S
    ) {
      return json(400, { error: 'duration must be 0..10800 seconds' });
    }
    this.running = { zoneId, startMs: this.nowMs(), durationS: duration };
    return { status: 204, body: '' };
  }

  private stopWater(body: Record<string, unknown>): PeerReply {
    if (body.id !== RACHIO_DEVICE_ID) return json(404, { error: 'device not found' });
    this.running = null;
    return { status: 204, body: '' };
  }

  private currentSchedule(): Record<string, unknown> {
    const run = this.running;
    if (!run) return {};
    return {
      deviceId: RACHIO_DEVICE_ID,
      scheduleId: 'ba8af494-bc32-4b34-8fa4-27bb00033477',
      type: 'MANUAL',
      status: 'PROCESSING',
      startDate: run.startMs,
      duration: run.durationS,
      zoneId: run.zoneId,
      zoneStartDate: run.startMs,
      zoneDuration: run.durationS,
      cycleCount: 1,
      totalCycleCount: 1,
      cycling: false,
      durationNoCycle: run.durationS,
    };
  }

  private person(): Record<string, unknown> {
    return {
      email: 'test@example.com',
      id: RACHIO_PERSON_ID,
      username: 'test',
      devices: [this.device()],
      createDate: 1520380702000,
      deleted: false,
      fullName: 'Testy McTest',
    };
  }

  private device(): Record<string, unknown> {
    return {
      id: RACHIO_DEVICE_ID,
      flexScheduleRules: [],
      serialNumber: 'VR1231212',
      homeKitCompatible: false,
      name: 'Rachio-E1323B',
      // Listed out of zone-number order: a scan sorts them.
      zones: [
        zone(RACHIO_ZONES.back, 2, 'Back Yard', true),
        zone(RACHIO_ZONES.front, 1, 'Front Lawn', true),
        zone(RACHIO_ZONES.side, 3, 'Side Strip', false),
      ],
      on: true,
      latitude: 39.739174,
      longitude: -105.04316,
      createDate: 1520381260000,
      status: this.deviceStatus,
      deleted: false,
      scheduleModeType: 'MANUAL',
      model: 'GENERATION2_8ZONE',
      macAddress: '80A589E1323B',
      scheduleRules: [],
    };
  }
}

/** A zone object like the fixture's (seconds for runtimes, epoch ms for dates). */
function zone(id: string, zoneNumber: number, name: string, enabled: boolean): Record<string, unknown> {
  return {
    zoneNumber,
    runtime: 1391,
    id,
    rootZoneDepth: 6,
    efficiency: 0.8,
    fixedRuntime: 0,
    scheduleDataModified: false,
    customShade: { name: 'LOTS_OF_SUN' },
    depthOfWater: 0.51,
    managementAllowedDepletion: 0.5,
    customCrop: { name: 'Cool Season Grass', coefficient: 0.8 },
    saturatedDepthOfWater: 0.56,
    customSoil: { name: 'LOAM' },
    customNozzle: { name: 'FIXED_SPRAY_HEAD', inchesPerHour: 1.5 },
    availableWater: 0.17,
    yardAreaSquareFeet: 500,
    runtimeNoMultiplier: 1391,
    maxRuntime: 10800,
    name,
    enabled,
    lastWateredDate: 1520343540000,
  };
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
