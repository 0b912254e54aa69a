import type { Et0Method } from '../../agronomy/et0';
import type { Wording } from '../../core/units/quantities';
import type { DailyEntry } from '../../forecast/types';
import type { SkipRules } from '../skip/rules';
import type { LocalCalendar } from '../skip/local-days';
import type { Et0Day } from './et0-days';
import type { RainEvidence } from './soil-model';
import type { EngineInput } from './types';
import type { DailyWeather } from '../../store/weather-days';
import type { RecordEt0 } from '../soil/et0-of-day';
import type { DayCaps } from '../schedule/restriction-calendar';
import type { WindowChoice } from '../schedule/window-choice';
import type { FixedSchedules } from '../schedule/fixed-schedule-plan';
import type { ForecastSkill } from '../policy/forecast-policy';

/** Everything the per-zone planner reads, derived once from the EngineInput. */
export interface EngineContext {
  input: EngineInput;
  cal: LocalCalendar;
  now: number;
  timezone: string;
  lat: number;
  lon: number;
  elevation_m: number | null;
  et0_method: Et0Method;
  capture_efficiency: number;
  soak_minutes: number;
  rules: SkipRules;
  /** The reasons' numbers in `deployment.units` (machine fields keep their own units). */
  say: Wording;
  /** Today and the 6 days after it. */
  dates: string[];
  /** Past local dates with forecast-archive or gauge evidence, oldest first, before today. */
  past_dates: string[];
  daily: ReadonlyMap<string, DailyEntry>;
  past_daily: ReadonlyMap<string, DailyEntry>;
  /**
   * The daily weather record of past days: the persisted record first, then
   * the forecast's past days and the gauge (what an install without a
   * database has).
   */
  weather_days: Map<string, DailyWeather>;
  et0_by_date: Map<string, Et0Day>;
  /** Past days' ET0 from the record with the inputs' origins (computed once, shared by every zone). */
  record_et0: Map<string, RecordEt0>;
  /** Plan dates watering restrictions allow. */
  allowed_dates: Set<string>;
  /** Observed rain of past days (gauge, else model archive, else unknown). */
  past_rain: Map<string, RainEvidence>;
  /** Bias-scaled forecast rain per plan day, mm (null when the forecast has no amount). */
  forecast_rain_mm: Map<string, number | null>;
  /** Next-24-hour forecast rain, mm, unscaled; null when any hour lacks an amount. */
  next24h_rain_mm: number | null;
  bias: { multiplier: number; sample_count: number; trained: boolean };
  /** The forecast's recorded day-ahead hit rate: the weight on its rain in credit and bets. */
  skill: ForecastSkill;
  /** Whether any forecast reached the service (else the forward rules do not apply). */
  forecast_present: boolean;
  /** Weekdays of the allowed plan dates (spec `restriction_allowed_days`); [] when none is allowed. */
  allowed_days: number[];
  /** Why each forbidden plan date is forbidden (the rule and its words). */
  restriction_why: Map<string, string>;
  /** The fixed `[[schedules]]` over the plan days (override suppression, their runs). */
  fixed: FixedSchedules;
  /** `[deployment.run_window]` and the forbidden hours the night's window keeps out of. */
  run_window: WindowChoice;
  /** Zones with their own `run_window` table (schedule/zone-windows.ts). */
  zone_windows: Map<string, WindowChoice>;
  /** Today's per-zone minute caps from the restrictions. */
  restriction_caps_today: DayCaps;
}
