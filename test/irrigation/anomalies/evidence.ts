import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import type { AnomalyEvidence } from '../../../server/src/irrigation/anomalies/anomaly';
import type { Reading } from '../../../server/src/store/readings';
import type { RunRecord } from '../../../server/src/store/runs';

/**
 * Clean evidence for the anomaly detectors: a day of plausible, moving
 * readings from a station and a model source that agree, a gauge and a model
 * that agree on a week of rain, an active station, ET0 in season, watered
 * zones. Each test breaks one thing.
 */

export const TZ = 'America/New_York';
export const TODAY = '2025-07-20';
export const NOW = DateTime.fromISO(`${TODAY}T14:00`, { zone: zoneFor(TZ) }).toSeconds();

export function localEpoch(date: string, hour: number, minute = 0): number {
  return DateTime.fromISO(date, { zone: zoneFor(TZ) })
    .set({ hour, minute })
    .toSeconds();
}

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: zoneFor(TZ) })
    .plus({ days })
    .toISODate() as string;
}

/** A diurnal temperature wave and humidity that moves against it, every 5 minutes for 24 h. */
export function dayOfReadings(source: string, offset = 0): Reading[] {
  const rows: Reading[] = [];
  for (let t = NOW - 86_400 + 300; t <= NOW; t += 300) {
    const phase = ((t % 86_400) / 86_400) * 2 * Math.PI;
    rows.push({ epoch: t, source_id: source, field: 'air_temp_f', value: 80 + 8 * Math.sin(phase) + offset });
    rows.push({ epoch: t, source_id: source, field: 'rh_pct', value: 60 - 15 * Math.sin(phase) });
    rows.push({
      epoch: t,
      source_id: source,
      field: 'pressure_inhg',
      value: 30 + 0.05 * Math.sin(phase / 2),
    });
  }
  return rows;
}

/** A gauge's `rain_in_today` through each of the last 8 days, reporting into each day's last hour. */
export function gaugeWeek(source: string, rainByDate: Record<string, number>): Reading[] {
  const rows: Reading[] = [];
  for (let back = 8; back >= 1; back -= 1) {
    const date = addDays(TODAY, -back);
    const total = rainByDate[date] ?? 0;
    for (let hour = 0; hour < 24; hour += 1) {
      rows.push({
        epoch: localEpoch(date, hour, 30),
        source_id: source,
        field: 'rain_in_today',
        value: (total * (hour + 1)) / 24,
      });
    }
  }
  return rows;
}

export function run(zone: string, date: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    session_id: `sched-${date}-${zone}`,
    zone,
    start_epoch: localEpoch(date, 5),
    duration_s: 1200,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    controller_id: 'os1',
    applied_mm: null,
    volume_gal: null,
    note: null,
    cycle_index: null,
    cycle_count: null,
    ...overrides,
  };
}

const WET: Record<string, number> = { [addDays(TODAY, -5)]: 0.8, [addDays(TODAY, -2)]: 0.3 };

export function cleanEvidence(): AnomalyEvidence {
  const pastDaily = Array.from({ length: 7 }, (_, i) => {
    const date = addDays(TODAY, i - 7);
    return {
      date_local: date,
      time_epoch: localEpoch(date, 0),
      temp_max_f: 90,
      temp_min_f: 72,
      precip_sum_in: WET[date] ?? 0,
    };
  });
  const hourly = Array.from({ length: 8 }, (_, i) => {
    const t = Math.floor(NOW / 3600) * 3600 - i * 3600;
    const phase = ((t % 86_400) / 86_400) * 2 * Math.PI;
    return { time_epoch: t, temp_f: 80 + 8 * Math.sin(phase), humidity_pct: 60 - 15 * Math.sin(phase) };
  });
  return {
    nowEpoch: NOW,
    timezone: TZ,
    lat: 40.7,
    elevationM: 10,
    readings: [...dayOfReadings('station'), ...dayOfReadings('open_meteo', 1)],
    rainReadings: gaugeWeek('station', WET),
    modelledSources: new Set(['open_meteo']),
    sources: [
      {
        id: 'station',
        kind: 'tempest_udp',
        enabled: true,
        last_seen_epoch: NOW - 60,
        stale_for_s: 60,
        status: 'active',
        note: null,
      },
      {
        id: 'open_meteo',
        kind: 'open_meteo',
        enabled: true,
        last_seen_epoch: NOW - 600,
        stale_for_s: 600,
        status: 'standby',
        note: null,
      },
    ],
    forecast: { past_daily: pastDaily, daily: [], hourly } as never,
    irrigation: {
      restart_required: false,
      restart_reasons: [],
      decision_trace: {
        et0_days: pastDaily.map((d) => ({
          date_local: d.date_local,
          et0_mm: 5.2,
          method: 'penman_monteith',
        })),
      },
    } as never,
    runs: [run('front', addDays(TODAY, -3)), run('front', addDays(TODAY, -1))],
    sessions: [],
    decisions: [],
    controllerFailures: [],
    restartPendingSince: null,
    flowAlarms: null,
    recordEt0: recordedClimate(40, (i) => 4 + (i % 5) * 0.6),
    zoneLedgers: [],
  };
}

/** The weather record's ET0 on the `days` days before the judged week (the newest first). */
export function recordedClimate(days: number, et0: (i: number) => number) {
  return Array.from({ length: days }, (_, i) => ({ date_local: addDays(TODAY, -8 - i), et0_mm: et0(i) }));
}
