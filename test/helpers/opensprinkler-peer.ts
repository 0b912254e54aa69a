import { epochSeconds, type Clock } from '../../server/src/core/clock';
import { json, LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback OpenSprinkler for adapter tests. It starts as the fw-221 demo
 * device of the shared fixture opensprinkler-ja-sample.json (8 stations,
 * S01..S08, one sequential group, wl 100, password "opendoor") and keeps a
 * station queue the way the firmware documents it (opensprinkler-api.md):
 * `/cm` appends a manual run (pid 99); a station whose sequential group is
 * busy waits (pid set, output bit off); entries close when their time runs
 * out on the injected clock. Refusals are `{"result":N}` bodies with HTTP 200,
 * as on the device. Faults: `fault = 'hang' | 'http500'`, and `close()` takes
 * it off the network.
 */

/** MD5 of the factory password "opendoor" (lower-case, as the firmware compares it). */
export const OPENDOOR_MD5 = 'a6d82bced638de3def1e9bbb4983225c';

export const RESULT = {
  ok: 1,
  unauthorized: 2,
  dataMissing: 16,
  outOfRange: 17,
  pageNotFound: 32,
  notPermitted: 48,
} as const;

const MANUAL_PID = 99;
const PARALLEL_GROUP = 255;
const RUN_SECONDS_MAX = 64800;

/** opensprinkler-ja-sample.json, verbatim. */
const JA_SAMPLE = {
  settings: {
    devt: 1732789106,
    nbrd: 1,
    en: 1,
    sn1: 0,
    sn2: 0,
    rd: 0,
    rdst: 0,
    sunrise: 412,
    sunset: 975,
    eip: 2728304343,
    lwc: 1732784441,
    lswc: 1732784441,
    lupt: 0,
    lrbtc: 1,
    lrun: [0, 0, 0, 0],
    pq: 0,
    pt: 0,
    nq: 0,
    otc: {},
    otcs: 0,
    mac: '02:42:AC:12:00:02',
    loc: '42.36,-71.06',
    jsp: 'https://ui.opensprinkler.com/js',
    wsp: 'weather.opensprinkler.com',
    wto: {},
    ifkey: '',
    mqtt: {},
    wtdata: { wp: 'Manual' },
    wterr: 0,
    dname: 'My OpenSprinkler',
    email: {},
    sbits: [0, 0],
    ps: [
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ],
    gpio: [],
  },
  options: {
    fwv: 221,
    tz: 28,
    hp0: 144,
    hp1: 31,
    hwv: 255,
    ext: 0,
    sdt: 0,
    mas: 0,
    mton: 0,
    mtof: 0,
    wl: 100,
    den: 1,
    ipas: 0,
    devid: 0,
    uwt: 0,
    ntp1: 0,
    ntp2: 0,
    ntp3: 0,
    ntp4: 0,
    lg: 1,
    mas2: 0,
    mton2: 0,
    mtof2: 0,
    fwm: 0,
    fpr0: 100,
    fpr1: 0,
    re: 0,
    sar: 0,
    ife: 0,
    sn1t: 0,
    sn1o: 1,
    sn2t: 0,
    sn2o: 1,
    sn1on: 0,
    sn1of: 0,
    sn2on: 0,
    sn2of: 0,
    resv1: 0,
    resv2: 0,
    resv3: 0,
    resv4: 0,
    resv5: 0,
    resv6: 0,
    resv7: 0,
    resv8: 0,
    wimod: 169,
    reset: 0,
    dexp: -1,
    mexp: 24,
    hwt: 255,
    ms: [0, 0, 0, 0, 0, 0],
  },
  stations: {
    masop: [255],
    masop2: [0],
    ignore_rain: [0],
    ignore_sn1: [0],
    ignore_sn2: [0],
    stn_dis: [0],
    stn_spe: [0],
    stn_grp: [0, 0, 0, 0, 0, 0, 0, 0],
    snames: ['S01', 'S02', 'S03', 'S04', 'S05', 'S06', 'S07', 'S08'],
    maxlen: 32,
  },
  status: { sn: [0, 0, 0, 0, 0, 0, 0, 0], nstations: 8 },
  programs: { nprogs: 0, nboards: 1, mnp: 40, mnst: 4, pnsize: 32, pd: [] as unknown[] },
};

export type OpenSprinklerDocument = typeof JA_SAMPLE;

/** One station queue entry (`ps[i] = [pid, rem, start, gid]`); times in UTC epoch seconds. */
export interface QueueEntry {
  sid: number;
  pid: number;
  start: number;
  duration: number;
  gid: number;
}

export type PeerFault = 'none' | 'hang' | 'http500';

export interface OpenSprinklerPeerOptions {
  clock: Clock;
  passwordMd5?: string;
}

export class OpenSprinklerPeer {
  readonly http: LoopbackPeer;
  /** The device's stored documents; tests edit names, stn_dis, wl, sensor types... Live fields are derived. */
  readonly device: OpenSprinklerDocument = structuredClone(JA_SAMPLE);
  fault: PeerFault = 'none';
  /** False: `/ja` answers 32 like firmware that predates it. */
  hasJa = true;
  /** The flow sensor's counting window (`flwrt` s, `flcrt` clicks), shown when a sensor type is flow. */
  flowWindow = { flwrt: 30, flcrt: 0 };
  private queue: QueueEntry[] = [];
  private readonly clock: Clock;
  private readonly passwordMd5: string;

  constructor(options: OpenSprinklerPeerOptions) {
    this.clock = options.clock;
    this.passwordMd5 = options.passwordMd5 ?? OPENDOOR_MD5;
    this.http = new LoopbackPeer((req) => this.answer(req));
  }

  async start(): Promise<this> {
    await this.http.start();
    return this;
  }

  /** Takes the device off the network (offline). */
  async close(): Promise<void> {
    await this.http.close();
  }

  /** `127.0.0.1:<port>`, as a config `host`. */
  get host(): string {
    return new URL(this.http.baseUrl).host;
  }

  get requests(): SeenRequest[] {
    return this.http.requests;
  }

  /** The queue as the device holds it now (elapsed runs dropped). */
  entries(): readonly QueueEntry[] {
    this.expire();
    return [...this.queue];
  }

  /** True when station `sid` (0-based) has its output on. */
  isOpen(sid: number): boolean {
    return this.entries().some((entry) => entry.sid === sid && this.isRunning(entry));
  }

  private get stationCount(): number {
    return this.device.settings.nbrd * 8;
  }

  private now(): number {
    return epochSeconds(this.clock);
  }

  private answer(req: SeenRequest): PeerReply {
    if (this.fault === 'hang') return { status: 0, body: '', hang: true };
    if (this.fault === 'http500')
      return { status: 500, body: 'Internal Server Error', contentType: 'text/plain' };
    if (req.query.get('pw') !== this.passwordMd5) return result(RESULT.unauthorized);
    this.expire();
    return this.route(req.path, req.query);
  }

  private route(path: string, query: URLSearchParams): PeerReply {
    switch (path) {
      case '/ja':
        return this.hasJa ? json(200, this.ja()) : result(RESULT.pageNotFound);
      case '/jc':
        return json(200, this.settings());
      case '/jo':
        return json(200, this.device.options);
      case '/jn':
        return json(200, this.device.stations);
      case '/js':
        return json(200, this.status());
      case '/cm':
        return result(this.manualRun(query));
      case '/cv':
        return result(this.changeVariables(query));
      default:
        return result(RESULT.pageNotFound);
    }
  }

  private ja(): OpenSprinklerDocument {
    return { ...this.device, settings: this.settings(), status: this.status() };
  }

  private settings(): OpenSprinklerDocument['settings'] & { flwrt?: number; flcrt?: number } {
    const stored = this.device.settings;
    const offsetS = ((this.device.options.tz - 48) / 4) * 3600;
    const sbits = Array.from({ length: stored.nbrd + 1 }, () => 0);
    for (let sid = 0; sid < this.stationCount; sid++) {
      if (this.isOpen(sid)) sbits[Math.floor(sid / 8)]! |= 1 << (sid % 8);
    }
    const ps = Array.from({ length: this.stationCount }, (_, sid) => this.psEntry(sid, offsetS));
    const flow = this.hasFlowSensor() ? this.flowWindow : {};
    return { ...stored, devt: this.now() + offsetS, nq: this.queue.length, sbits, ps, ...flow };
  }

  private status(): OpenSprinklerDocument['status'] {
    const sn = Array.from({ length: this.stationCount }, (_, sid) => (this.isOpen(sid) ? 1 : 0));
    return { sn, nstations: this.stationCount };
  }

  /** `[pid, rem, start (device local time), gid]`; rem counts down once the entry runs. */
  private psEntry(sid: number, offsetS: number): number[] {
    const entry = this.queue.find((candidate) => candidate.sid === sid);
    if (!entry) return [0, 0, 0, 0];
    const rem = this.isRunning(entry) ? entry.start + entry.duration - this.now() : entry.duration;
    return [entry.pid, rem, entry.start + offsetS, entry.gid];
  }

  /** `/cm`: open (`en=1&t=`) or close (`en=0`) one station. */
  private manualRun(query: URLSearchParams): number {
    const sid = integer(query.get('sid'));
    const enable = integer(query.get('en'));
    if (sid === undefined || enable === undefined) return RESULT.dataMissing;
    if (sid === null || sid < 0 || sid >= this.stationCount) return RESULT.outOfRange;
    return enable === 1 ? this.open(sid, integer(query.get('t'))) : this.closeStation(sid);
  }

  private open(sid: number, seconds: number | null | undefined): number {
    if (seconds === undefined) return RESULT.dataMissing;
    if (seconds === null || seconds < 1 || seconds > RUN_SECONDS_MAX) return RESULT.outOfRange;
    if (this.queue.some((entry) => entry.sid === sid)) return RESULT.notPermitted;
    const gid = this.device.stations.stn_grp[sid] ?? 0;
    this.queue.push({ sid, pid: MANUAL_PID, start: this.startFor(gid), duration: seconds, gid });
    return RESULT.ok;
  }

  /** Now, or after the last entry of the same sequential group (parallel stations start now). */
  private startFor(gid: number): number {
    if (gid === PARALLEL_GROUP) return this.now();
    const ends = this.queue.filter((entry) => entry.gid === gid).map((entry) => entry.start + entry.duration);
    return Math.max(this.now(), ...ends);
  }

  private closeStation(sid: number): number {
    const before = this.queue.length;
    this.queue = this.queue.filter((entry) => entry.sid !== sid);
    return this.queue.length < before ? RESULT.ok : RESULT.outOfRange;
  }

  /** `/cv`: rsn=1 resets every station, rrsn=1 only the running ones; other variables are accepted. */
  private changeVariables(query: URLSearchParams): number {
    if (query.get('rsn') === '1') this.queue = [];
    if (query.get('rrsn') === '1') this.queue = this.queue.filter((entry) => !this.isRunning(entry));
    return RESULT.ok;
  }

  private isRunning(entry: QueueEntry): boolean {
    const now = this.now();
    return entry.start <= now && now < entry.start + entry.duration;
  }

  private expire(): void {
    const now = this.now();
    this.queue = this.queue.filter((entry) => entry.start + entry.duration > now);
  }

  private hasFlowSensor(): boolean {
    return this.device.options.sn1t === 2 || this.device.options.sn2t === 2;
  }
}

function result(code: number): PeerReply {
  return json(200, { result: code });
}

/** undefined when absent, null when not an integer. */
function integer(raw: string | null): number | null | undefined {
  if (raw === null || raw === '') return undefined;
  return /^-?\d+$/.test(raw) ? Number(raw) : null;
}
