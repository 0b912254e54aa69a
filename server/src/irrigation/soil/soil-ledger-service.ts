import { compareText } from '../../core/compare';
import type { Et0Method } from '../../agronomy/et0';
import type { AppliedConfig } from '../../config/config-types';
import type { EventBus } from '../../core/bus';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { SoilStateDeclaration } from '../../store/soil-states';
import type { Store } from '../../store/store';
import type { DailyWeather } from '../../store/weather-days';
import { resolveZones, type CompleteZone } from '../engine/zone-inputs';
import { localCalendar, type LocalCalendar } from '../skip/local-days';
import { type RecordEt0 } from './et0-of-day';
import { bandedEt0OfRecord, RECENT_DAYS } from './et0-bridge';
import { dailyIrrigation } from './irrigation-evidence';
import { stateOfRow, unknownState, type LedgerDayInput, type SoilState } from './ledger-day';
import { replayLedger } from './ledger-replay';
import { probeChannel, probeDeclarations } from './probe-state';
import type { ProbeCalibration } from './probe-calibration';
import { storedChannel } from './probe-evidence';
import { refillWetPoint } from './probe-refill';

/**
 * The soil water ledger's module: keeps one row per zone and closed local
 * day (soil_ledger), each computed from the daily weather record, the run
 * ledger (through `runContribution`, the one evidence rule) and declared
 * states, starting from the previous day's stored closing state.
 *
 * - Tomorrow starts from tonight's closing state: a day is computed once its
 *   local day is over, from the stored row before it.
 * - Revisable: every update recomputes the last LEDGER_REVISION_DAYS days
 *   (late gauge data, a reconciled run, a corrected model day) and rewrites
 *   the days from the earliest one that changed; older days are final. A
 *   declared state replays from its date, however old.
 * - A zone whose soil parameters changed (species, soil, root depth, MAD, rain
 *   cap, sun, rate, area (metered depth), capture efficiency, ET0 method,
 *   site) is replayed whole from the record's first day, from an unknown start.
 * - Idempotent and crash-safe: rows are recomputed from evidence, never
 *   incremented, and a zone's rewrite is one transaction.
 *
 * Work happens when asked (`current`, before each engine run) and only when
 * the date rolled over, evidence may have changed (runs, forecast, config, a
 * declaration) or an hour passed.
 */

export const LEDGER_REVISION_DAYS = 4;
/** Days of ledger the engine gets per zone (snapshot summaries, trace, the zone page's 30 days). */
export const LEDGER_VIEW_DAYS = 31;
const REFRESH_EVERY_S = 3600;
const PARAMS_KEY = (slug: string) => `soil_ledger.params:${slug}`;

export interface ZoneSoil {
  /** The last closed day the ledger holds for the zone; null when it has none. */
  through: string | null;
  closing: SoilState | null;
  /** The last LEDGER_VIEW_DAYS rows, oldest first. */
  rows: SoilLedgerRow[];
  /** Declarations dated today (they set today's start: the engine applies them). */
  today_declarations: SoilStateDeclaration[];
}

export interface SoilView {
  zones: Map<string, ZoneSoil>;
  /** The record's last 14 closed days, oldest first (dormancy means, trailing rain). */
  weather: DailyWeather[];
}

export interface WeatherRecordView {
  refresh(nowEpoch: number): void;
  days(from: string, to: string): DailyWeather[];
  firstDate(): string | null;
  timezone(): string;
}

export interface SoilLedgerDeps {
  bus: EventBus;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store;
  record: WeatherRecordView;
  /** A probe's dry/wet calibration (probe-calibration-store.ts); absent: no probe is calibrated. */
  probeCalibration?: (sensorId: string) => ProbeCalibration | null;
  /** Records a wet point learnt from a refill (probe-refill.ts); absent: nothing is learnt. */
  learnWetPoint?: (sensorId: string, rawPct: number, epoch: number) => void;
}

export class SoilLedgerService implements Module {
  readonly name = 'soil-ledger';
  private readonly log: Logger;
  private generation = 0;
  private lastKey = '';
  private lastUpdateEpoch = 0;
  private view: SoilView | null = null;
  /** Per zone: the earliest date a declaration asks to replay from. */
  private readonly replayFrom = new Map<string, string>();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: SoilLedgerDeps) {
    this.log = deps.logger.child({ module: 'soil-ledger' });
  }

  async start(): Promise<void> {
    for (const event of ['runs.changed', 'forecast.snapshot', 'config.changed', 'weather.record'] as const) {
      this.unsubscribers.push(this.deps.bus.on(event, () => (this.generation += 1)));
    }
  }

  async stop(): Promise<void> {
    for (const off of this.unsubscribers.splice(0)) off();
  }

  /** The ledger as the engine reads it, brought up to date first when something may have changed. */
  current(nowEpoch: number): SoilView {
    const applied = this.deps.config();
    if (!applied) return { zones: new Map(), weather: [] };
    const cal = localCalendar(this.deps.record.timezone(), nowEpoch);
    const key = `${cal.today}|${cal.timezone}|${this.generation}`;
    if (this.view && key === this.lastKey && nowEpoch - this.lastUpdateEpoch < REFRESH_EVERY_S) {
      return this.withToday(this.view, cal);
    }
    try {
      this.update(applied, cal, nowEpoch);
    } catch (err) {
      this.log.error({ err }, 'the soil ledger could not be updated; serving what is stored');
    }
    this.lastKey = key;
    this.lastUpdateEpoch = nowEpoch;
    this.view = this.read(applied, cal);
    return this.withToday(this.view, cal);
  }

  /** Records a declared state and replays the zone from its date at the next update. */
  declare(declaration: SoilStateDeclaration): void {
    this.deps.store.soilStates.insert(declaration);
    const pending = this.replayFrom.get(declaration.zone);
    if (!pending || declaration.date_local < pending)
      this.replayFrom.set(declaration.zone, declaration.date_local);
    this.generation += 1;
  }

  /** Evidence outside the bus changed (a probe's calibration): the next read brings the ledger up to date. */
  invalidate(): void {
    this.generation += 1;
  }

  /** Stored rows of one zone, `from`..`to` inclusive, oldest first. */
  rows(zone: string, from: string, to: string): SoilLedgerRow[] {
    return this.deps.store.soilLedger.range(zone, from, to);
  }

  private update(applied: AppliedConfig, cal: LocalCalendar, nowEpoch: number): void {
    this.deps.record.refresh(nowEpoch);
    const first = this.deps.record.firstDate();
    const yesterday = cal.addDays(cal.today, -1);
    if (first === null || first > yesterday) return;
    const et0 = new Map<string, RecordEt0>();
    for (const zone of resolveZones(applied.config)) {
      if (zone.complete) this.updateZone(zone, applied, cal, first, et0, nowEpoch);
    }
  }

  private updateZone(
    zone: CompleteZone,
    applied: AppliedConfig,
    cal: LocalCalendar,
    first: string,
    et0: Map<string, RecordEt0>,
    nowEpoch: number,
  ): void {
    const store = this.deps.store;
    const yesterday = cal.addDays(cal.today, -1);
    const signature = paramsSignature(zone, applied, this.calibrationOf(zone));
    const zoneFirst = store.soilLedger.firstDate(zone.slug);
    const full =
      store.controls.get(PARAMS_KEY(zone.slug)) !== signature || zoneFirst === null || first < zoneFirst;
    let from = first;
    if (!full) {
      const last = store.soilLedger.lastBefore(zone.slug, cal.today);
      const candidates = [cal.addDays(cal.today, -LEDGER_REVISION_DAYS)];
      candidates.push(last ? cal.addDays(last.date_local, 1) : first);
      const declared = this.replayFrom.get(zone.slug);
      if (declared) candidates.push(declared);
      from = candidates.sort()[0] as string;
      if (from < first) from = first;
    }
    if (from <= yesterday) {
      const before = full ? null : store.soilLedger.lastBefore(zone.slug, from);
      const start =
        before && before.date_local === cal.addDays(from, -1)
          ? stateOfRow(before)
          : unknownState(zone.capacity.taw_mm, from);
      const days = this.dayInputs(zone, applied, cal, from, yesterday, et0);
      const { rows } = replayLedger(zone, start, days, {
        lat: applied.config.deployment.location.lat,
        capture_efficiency: applied.config.engine.capture_efficiency,
      });
      const stored = full ? [] : store.soilLedger.range(zone.slug, from, yesterday);
      const changedAt = rows.findIndex((row, i) => !sameRow(row, stored[i]));
      if (changedAt >= 0)
        store.soilLedger.write(zone.slug, rows.slice(changedAt), nowEpoch, full ? first : null);
    }
    store.controls.set(PARAMS_KEY(zone.slug), signature);
    this.replayFrom.delete(zone.slug);
    this.learnFromRefill(zone, cal, nowEpoch);
  }

  /** A refill the ledger saw gives an uncalibrated (or refill-calibrated) probe its wet point. */
  private learnFromRefill(zone: CompleteZone, cal: LocalCalendar, nowEpoch: number): void {
    const sensorId = zone.config.soil_sensor_id ?? null;
    const channel = storedChannel(sensorId);
    if (!sensorId || !channel || !this.deps.learnWetPoint) return;
    const calibration = this.calibrationOf(zone);
    if (calibration?.wet_origin === 'owner') return;
    const from = cal.addDays(cal.today, -LEDGER_REVISION_DAYS - 1);
    const rows = this.deps.store.soilLedger.range(zone.slug, from, cal.addDays(cal.today, -1));
    const hours = Math.ceil((nowEpoch - cal.dayStart(from)) / 3600);
    const readings = this.deps.store.readings
      .listRecent(nowEpoch, hours, channel.field)
      .filter((r) => r.source_id === channel.source_id);
    const found = refillWetPoint(
      rows,
      readings,
      (date) => cal.dayStart(cal.addDays(date, 1)),
      calibration?.updated_epoch ?? 0,
    );
    const dry = calibration?.dry_raw_pct ?? null;
    if (!found || (dry !== null && found.raw_pct <= dry)) return;
    this.deps.learnWetPoint(sensorId, found.raw_pct, Math.max(nowEpoch, found.epoch));
    this.log.info(
      { zone: zone.slug, sensor: sensorId, wet: found.raw_pct, refill: found.date_local },
      'probe wet point learnt from a refill',
    );
    this.generation += 1;
  }

  private dayInputs(
    zone: CompleteZone,
    applied: AppliedConfig,
    cal: LocalCalendar,
    from: string,
    to: string,
    et0: Map<string, RecordEt0>,
  ): LedgerDayInput[] {
    const store = this.deps.store;
    const dates: string[] = [];
    for (let d = from; d <= to; d = cal.addDays(d, 1)) dates.push(d);
    // The days before `from` too: a day's ET0 band looks back at them (et0-bridge.ts).
    const weather = new Map(
      this.deps.record.days(cal.addDays(from, -RECENT_DAYS), to).map((w) => [w.date_local, w]),
    );
    const runs = store.runs.listWindow(cal.dayStart(from), cal.dayEnd(to), zone.slug);
    const demoYard = applied.config.features.demo_mode;
    const irrigation = dailyIrrigation(zone.slug, runs, cal, zone.config.area_sqft ?? null, demoYard);
    const declarations = latestByDate([
      ...store.soilStates.range(zone.slug, from, to),
      ...this.probeStates(zone, cal, dates),
    ]);
    const site = {
      lat: applied.config.deployment.location.lat,
      elevation_m: applied.config.deployment.location.elevation_m ?? null,
    };
    const method = applied.config.engine.et0_method as Et0Method;
    return dates.map((date) => {
      let dayEt0 = et0.get(date);
      if (!dayEt0) {
        dayEt0 = bandedEt0OfRecord(
          date,
          (d) => weather.get(d),
          (d, n) => cal.addDays(d, n),
          method,
          site,
        );
        et0.set(date, dayEt0);
      }
      return {
        date,
        weather: weather.get(date),
        et0: dayEt0,
        irrigation: irrigation.get(date),
        declaration: declarations.get(date) ?? null,
      };
    });
  }

  private probeStates(zone: CompleteZone, cal: LocalCalendar, dates: string[]): SoilStateDeclaration[] {
    const calibration = this.calibrationOf(zone);
    const channel = probeChannel(zone, calibration);
    if (!channel || dates.length === 0) return [];
    const to = cal.dayEnd(dates.at(-1) as string);
    const hours = Math.ceil((to - cal.dayStart(dates[0] as string)) / 3600);
    const readings = this.deps.store.readings
      .listRecent(to, hours, channel.field)
      .filter((r) => r.source_id === channel.source_id);
    return probeDeclarations(
      zone,
      readings,
      dates.map((date) => ({ date, start: cal.dayStart(date) })),
      calibration,
    );
  }

  /** The bound probe's calibration; null without a probe or a calibration. */
  private calibrationOf(zone: CompleteZone): ProbeCalibration | null {
    const sensorId = zone.config.soil_sensor_id ?? null;
    return sensorId && this.deps.probeCalibration ? this.deps.probeCalibration(sensorId) : null;
  }

  private read(applied: AppliedConfig, cal: LocalCalendar): SoilView {
    const store = this.deps.store;
    const yesterday = cal.addDays(cal.today, -1);
    const from = cal.addDays(cal.today, -LEDGER_VIEW_DAYS);
    const zones = new Map<string, ZoneSoil>();
    for (const zone of resolveZones(applied.config)) {
      const rows = store.soilLedger.range(zone.slug, from, yesterday);
      const last = rows.at(-1) ?? store.soilLedger.lastBefore(zone.slug, cal.today);
      zones.set(zone.slug, {
        through: last?.date_local ?? null,
        closing: last ? stateOfRow(last) : null,
        rows,
        today_declarations: [],
      });
    }
    return { zones, weather: this.deps.record.days(cal.addDays(cal.today, -14), yesterday) };
  }

  /** Today's declarations are read fresh: the owner may have just declared one. */
  private withToday(view: SoilView, cal: LocalCalendar): SoilView {
    const zones = new Map<string, ZoneSoil>();
    for (const [slug, soil] of view.zones) {
      zones.set(slug, {
        ...soil,
        today_declarations: this.deps.store.soilStates.range(slug, cal.today, cal.today),
      });
    }
    return { zones, weather: view.weather };
  }
}

/** Per date, the newest declaration (owner or probe). */
function latestByDate(list: SoilStateDeclaration[]): Map<string, SoilStateDeclaration> {
  const out = new Map<string, SoilStateDeclaration>();
  for (const d of [...list].sort((a, b) => a.epoch - b.epoch)) out.set(d.date_local, d);
  return out;
}

function sameRow(a: SoilLedgerRow, b: SoilLedgerRow | undefined): boolean {
  return b !== undefined && canonical(a) === canonical(b);
}

/** JSON with object keys sorted: a stored row and a recomputed one compare by content, not key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareText(a, b)))
      : v,
  );
}

/** What the zone's rows depend on besides evidence: a change replays the zone whole. */
function paramsSignature(
  zone: CompleteZone,
  applied: AppliedConfig,
  calibration: ProbeCalibration | null,
): string {
  const { location } = applied.config.deployment;
  return JSON.stringify([
    zone.species,
    zone.soil_texture,
    zone.capacity.taw_mm,
    zone.capacity.raw_mm,
    zone.rain_cap_mm,
    zone.sun_factor,
    zone.precip_rate_mm_hr,
    zone.config.area_sqft ?? null,
    applied.config.engine.capture_efficiency,
    applied.config.engine.et0_method,
    location.lat,
    location.elevation_m ?? null,
    // The demo's simulated water counts only under a demo config: a switch either way replays the
    // ledger (only demo configs add the entry, so a real install's signature is unchanged).
    ...(applied.config.features.demo_mode ? ['demo_yard'] : []),
    // A probe (re)calibrated reads every stored day differently: the zone replays whole.
    ...(calibration ? [zone.config.soil_sensor_id, calibration.dry_raw_pct, calibration.wet_raw_pct] : []),
  ]);
}
