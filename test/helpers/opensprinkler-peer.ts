import { epochSeconds, type Clock } from '../../server/src/core/clock';
import { json, LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback OpenSprinkler for adapter and dispatch tests, written from what
 * the firmware source says (OpenSprinkler-Firmware 2.2.1, opensprinkler_server.cpp
 * and main.cpp, read through the search tools; our own TypeScript, none of its
 * code). It starts as the fw-221 demo device of the shared fixture
 * opensprinkler-ja-sample.json (8 stations S01..S08, one sequential group,
 * wl 100, password "opendoor") and answers path by path as 2.2.1 does:
 *
 * - Firmware style `otf` (every board but the old ATmega, default): a command's
 *   result is `{"result":N,"item":""}` with HTTP 200; an unknown path is HTTP
 *   404 text/plain (OpenThings Framework's missing-page answer). Style `avr`:
 *   `{"result":N}`, and an unknown path `{"result":32}`.
 * - Password: a wrong or missing `pw` on `/ja` and `/jo` answers HTTP 200 with
 *   a body holding only `{"fwv":221}`; on every other path `result` 2. `/su`
 *   and `/db` need none; option `ipas` 1 skips the check everywhere.
 * - `/cm` parses like the firmware (atoi: `sid=abc` is station 0): sid missing
 *   16, out of range 17; en missing 16; opening needs `t` (missing 16, 0 or
 *   above 64800 after the firmware's 16-bit cast 17), refuses a master station
 *   (`mas`/`mas2`, 1-based) and a station already queued with 48; closing a
 *   station with no queue entry answers 17.
 * - `/cv`: `rsn` resets every station, `rrsn` the running ones, `en=0/1`
 *   disables / enables operation (manual runs still run, as in the firmware),
 *   `rbt=1` answers success and reboots.
 * - Station timers: a manual run (pid 99) opens now or after the last entry of
 *   its sequential group and closes itself when its time runs out on the
 *   injected clock; a master station's output is on while any station bound to
 *   it (`masop` / `masop2` bits) is on. Closing a started station records `lrun`.
 * - Reboot (`reboot()` or `/cv?rbt=1`): the queue (held in RAM) is lost, every
 *   output is off, `lupt` is the boot time and `lrbtc` the cause.
 * - Flow: with sensor 1 of type flow (`sn1t` 2), `/jc` carries `flcrt` and
 *   `flwrt` (1000): clicks per second of the open stations (`flowClicksPerSecond`)
 *   scaled by the window, as the firmware's real-time flow count is.
 * - Device times (`devt`, `lupt`, `ps` start, `lrun` end) are local time
 *   (UTC + the `tz` option), as on the device.
 * - Log (`/jl`): a station that had started and closes (its time ran out, `/cm
 *   en=0`, `/cv rsn`) writes `[pid, sid, seconds open, end (local)]` while the
 *   `lg` option is 1, as the firmware's turn_off_station does; a reboot
 *   writes nothing for the runs it cut. `/jl?start=&end=` (device local epochs)
 *   answers every station row of the whole days `start / 86400` through
 *   `end / 86400`; `hist=n` the last n days; a missing start or end is result
 *   16, start after end or more than 365 days 17.
 *
 * Faults: `fault = 'hang' | 'http500'`, and `close()` takes it off the network.
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
/** The firmware's real-time flow window (FLOWCOUNT_RT_WINDOW). */
const FLOW_WINDOW = 1000;
const SENSOR_TYPE_FLOW = 2;
/** Reboot causes the firmware reports in `lrbtc`. */
export const REBOOT_CAUSE = { web: 3, power: 99 } as const;

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

/** One station queue entry; times in UTC epoch seconds (shown in device local time). */
export interface QueueEntry {
  sid: number;
  pid: number;
  start: number;
  duration: number;
  gid: number;
}

export type PeerFault = 'none' | 'hang' | 'http500';
export type FirmwareStyle = 'otf' | 'avr';

export interface OpenSprinklerPeerOptions {
  clock: Clock;
  passwordMd5?: string;
  /** `otf` (default, 2.2.1 on OSPi / ESP8266 boards) or `avr` (the old ATmega server). */
  style?: FirmwareStyle;
}

export class OpenSprinklerPeer {
  readonly http: LoopbackPeer;
  /** The device's stored documents; tests edit names, stn_dis, wl, mas, sensor types... Live fields are derived. */
  readonly device: OpenSprinklerDocument = structuredClone(JA_SAMPLE);
  fault: PeerFault = 'none';
  /** False: the firmware predates `/ja`, which then answers like any unknown path. */
  hasJa = true;
  /** Flow sensor clicks per second while each station (0-based sid) is open. */
  flowClicksPerSecond: Record<number, number> = {};
  readonly style: FirmwareStyle;
  private queue: QueueEntry[] = [];
  /** The device's log: `[pid, sid, seconds, end (local)]` rows, oldest first. */
  readonly log: [number, number, number, number][] = [];
  private rebootAt: number | null = null;
  private readonly clock: Clock;
  private readonly passwordMd5: string;

  constructor(options: OpenSprinklerPeerOptions) {
    this.clock = options.clock;
    this.passwordMd5 = options.passwordMd5 ?? OPENDOOR_MD5;
    this.style = options.style ?? 'otf';
    this.http = new LoopbackPeer((req) => this.answer(req));
    this.device.settings.lupt = this.local(this.now());
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

  /** True when station `sid` (0-based) has its output on (a master follows its stations). */
  isOpen(sid: number): boolean {
    this.expire();
    return this.outputOn(sid);
  }

  /**
   * Closes a station at the device (its app, its button, another automation):
   * as `/cm?en=0`, recording `lrun`. False when it had no queue entry.
   */
  closeAtDevice(sid: number): boolean {
    this.expire();
    return this.closeStation(sid) === RESULT.ok;
  }

  /** A restart (power cut, watchdog, `/cv?rbt=1`): the RAM queue is lost and the boot time recorded. */
  reboot(cause: number = REBOOT_CAUSE.power): void {
    this.queue = [];
    this.device.settings.lupt = this.local(this.now());
    this.device.settings.lrbtc = cause;
  }

  private get stationCount(): number {
    return this.device.settings.nbrd * 8;
  }

  private now(): number {
    return epochSeconds(this.clock);
  }

  /** Device local time: UTC plus the `tz` option ((tz - 48) quarter hours). */
  private local(utc: number): number {
    return utc + ((this.device.options.tz - 48) / 4) * 3600;
  }

  private answer(req: SeenRequest): PeerReply {
    if (this.fault === 'hang') return { status: 0, body: '', hang: true };
    if (this.fault === 'http500')
      return { status: 500, body: 'Internal Server Error', contentType: 'text/plain' };
    this.expire();
    const handler = this.handlerFor(req.path);
    if (!handler) return this.missingPage();
    if (!handler.open && !this.passwordOk(req.query)) {
      return handler.fwvOnFail
        ? json(200, { fwv: this.device.options.fwv })
        : this.result(RESULT.unauthorized);
    }
    return handler.run(req.query);
  }

  private handlerFor(
    path: string,
  ): { run: (q: URLSearchParams) => PeerReply; fwvOnFail?: boolean; open?: boolean } | null {
    switch (path) {
      case '/ja':
        return this.hasJa ? { run: () => json(200, this.ja()), fwvOnFail: true } : null;
      case '/jo':
        return { run: () => json(200, this.device.options), fwvOnFail: true };
      case '/jc':
        return { run: () => json(200, this.settings()) };
      case '/jn':
        return { run: () => json(200, this.device.stations) };
      case '/js':
        return { run: () => json(200, this.status()) };
      case '/jp':
        return { run: () => json(200, this.device.programs) };
      case '/jl':
        return { run: (q) => this.logRows(q) };
      case '/cm':
        return { run: (q) => this.result(this.manualRun(q)) };
      case '/cv':
        return { run: (q) => this.result(this.changeVariables(q)) };
      case '/db':
        return { run: () => json(200, { date: 'n/a' }), open: true };
      default:
        return null;
    }
  }

  private passwordOk(query: URLSearchParams): boolean {
    return this.device.options.ipas === 1 || query.get('pw') === this.passwordMd5;
  }

  private result(code: number): PeerReply {
    return json(200, this.style === 'otf' ? { result: code, item: '' } : { result: code });
  }

  private missingPage(): PeerReply {
    if (this.style === 'avr') return this.result(RESULT.pageNotFound);
    return { status: 404, body: 'The requested page does not exist', contentType: 'text/plain' };
  }

  private ja(): OpenSprinklerDocument {
    return { ...this.device, settings: this.settings(), status: this.status() };
  }

  private settings(): OpenSprinklerDocument['settings'] & { flwrt?: number; flcrt?: number } {
    const stored = this.device.settings;
    const sbits = Array.from({ length: stored.nbrd + 1 }, () => 0);
    for (let sid = 0; sid < this.stationCount; sid++) {
      if (this.outputOn(sid)) sbits[Math.floor(sid / 8)]! |= 1 << (sid % 8);
    }
    const ps = Array.from({ length: this.stationCount }, (_, sid) => this.psEntry(sid));
    const flow =
      this.device.options.sn1t === SENSOR_TYPE_FLOW ? { flcrt: this.flowCount(), flwrt: FLOW_WINDOW } : {};
    return { ...stored, devt: this.local(this.now()), nq: this.queue.length, ...flow, sbits, ps };
  }

  private status(): OpenSprinklerDocument['status'] {
    const sn = Array.from({ length: this.stationCount }, (_, sid) => (this.outputOn(sid) ? 1 : 0));
    return { sn, nstations: this.stationCount };
  }

  /** `[pid, rem, start (device local time), gid]`; rem counts down once the entry runs. */
  private psEntry(sid: number): number[] {
    const gid = this.device.stations.stn_grp[sid] ?? 0;
    const entry = this.queue.find((candidate) => candidate.sid === sid);
    if (!entry) return [0, 0, 0, gid];
    const rem = this.isRunning(entry) ? entry.start + entry.duration - this.now() : entry.duration;
    return [entry.pid, rem, this.local(entry.start), gid];
  }

  /** `/cm`: open (`en=1&t=`) or close (`en=0`) one station. */
  private manualRun(query: URLSearchParams): number {
    const sidText = query.get('sid');
    if (sidText === null) return RESULT.dataMissing;
    const sid = atoi(sidText);
    if (sid < 0 || sid >= this.stationCount) return RESULT.outOfRange;
    const enText = query.get('en');
    if (enText === null) return RESULT.dataMissing;
    if (atoi(enText) === 0) return this.closeStation(sid);
    const t = query.get('t');
    if (t === null) return RESULT.dataMissing;
    // The firmware keeps the timer in 16 bits: (uint16_t)atol(t).
    const seconds = atoi(t) & 0xffff;
    if (seconds === 0 || seconds > RUN_SECONDS_MAX) return RESULT.outOfRange;
    if (this.isMaster(sid)) return RESULT.notPermitted;
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
    const entry = this.queue.find((candidate) => candidate.sid === sid);
    if (!entry) return RESULT.outOfRange;
    this.queue = this.queue.filter((candidate) => candidate !== entry);
    const now = this.now();
    if (now >= entry.start) this.recordLastRun(entry, now);
    return RESULT.ok;
  }

  /** `lrun`: [sid, pid, seconds open, end (local)], and the log row, for non-master stations that had started. */
  private recordLastRun(entry: QueueEntry, end: number): void {
    if (this.isMaster(entry.sid)) return;
    this.device.settings.lrun = [entry.sid, entry.pid, end - entry.start, this.local(end)];
    if (this.device.options.lg === 1)
      this.log.push([entry.pid, entry.sid, end - entry.start, this.local(end)]);
  }

  /** `/jl`: the station rows of whole (local) days, by `start`/`end` or `hist`. */
  private logRows(query: URLSearchParams): PeerReply {
    let first: number;
    let last: number;
    const hist = query.get('hist');
    if (hist !== null) {
      const days = atoi(hist);
      if (days < 0 || days > 365) return this.result(RESULT.outOfRange);
      last = Math.floor(this.local(this.now()) / 86400);
      first = last - days;
    } else {
      const start = query.get('start');
      const end = query.get('end');
      if (start === null || end === null) return this.result(RESULT.dataMissing);
      first = Math.floor(atoi(start) / 86400);
      last = Math.floor(atoi(end) / 86400);
      if (first > last || last - first > 365) return this.result(RESULT.outOfRange);
    }
    const rows = this.log.filter(([, , , end]) => {
      const day = Math.floor(end / 86400);
      return day >= first && day <= last;
    });
    return json(200, rows);
  }

  /** `/cv`: rsn / rrsn reset stations, en toggles operation, rbt reboots; others are accepted. */
  private changeVariables(query: URLSearchParams): number {
    const now = this.now();
    if (atoi(query.get('rsn') ?? '0') > 0) this.resetStations(now, false);
    if (atoi(query.get('rrsn') ?? '0') > 0) this.resetStations(now, true);
    if (atoi(query.get('rbt') ?? '0') > 0) {
      // OTF firmware answers success and reboots a second later.
      this.rebootAt = now + 1;
      return RESULT.ok;
    }
    const en = query.get('en');
    if (en?.startsWith('1')) this.device.settings.en = 1;
    if (en?.startsWith('0')) this.device.settings.en = 0;
    return RESULT.ok;
  }

  private resetStations(now: number, runningOnly: boolean): void {
    for (const entry of [...this.queue]) {
      if (runningOnly && !this.isRunning(entry)) continue;
      this.queue = this.queue.filter((candidate) => candidate !== entry);
      if (now >= entry.start) this.recordLastRun(entry, now);
    }
  }

  private isMaster(sid: number): boolean {
    const { mas, mas2 } = this.device.options;
    return mas === sid + 1 || mas2 === sid + 1;
  }

  /** A station's output: its own run, or (for a master) any running station bound to it. */
  private outputOn(sid: number): boolean {
    if (this.queue.some((entry) => entry.sid === sid && this.isRunning(entry))) return true;
    const { mas, mas2 } = this.device.options;
    const bits =
      mas === sid + 1 ? this.device.stations.masop : mas2 === sid + 1 ? this.device.stations.masop2 : null;
    if (!bits) return false;
    return this.queue.some((entry) => this.isRunning(entry) && bitSet(bits, entry.sid));
  }

  private flowCount(): number {
    const open = this.queue.filter((entry) => this.isRunning(entry));
    const clicks = open.reduce((sum, entry) => sum + (this.flowClicksPerSecond[entry.sid] ?? 0), 0);
    return Math.round(clicks * FLOW_WINDOW);
  }

  private isRunning(entry: QueueEntry): boolean {
    const now = this.now();
    return entry.start <= now && now < entry.start + entry.duration;
  }

  /** Entries whose time ran out close themselves, recording `lrun` as the firmware does. */
  private expire(): void {
    const now = this.now();
    if (this.rebootAt !== null && now >= this.rebootAt) {
      this.rebootAt = null;
      this.reboot(REBOOT_CAUSE.web);
    }
    for (const entry of [...this.queue]) {
      const end = entry.start + entry.duration;
      if (end > now) continue;
      this.queue = this.queue.filter((candidate) => candidate !== entry);
      this.recordLastRun(entry, end);
    }
  }
}

/** C's atoi: leading whitespace, an optional sign, then digits; anything else stops it (0 when none). */
function atoi(text: string): number {
  const match = /^\s*([+-]?\d+)/.exec(text);
  return match ? Number.parseInt(match[1] ?? '0', 10) : 0;
}

function bitSet(boards: readonly number[], sid: number): boolean {
  return ((boards[Math.floor(sid / 8)] ?? 0) & (1 << (sid % 8))) !== 0;
}
