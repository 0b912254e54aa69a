import type { RaincheckConfig } from '../../config/schema';
import type { ForecastSnapshot } from '../../forecast/types';
import type { ArchiveSkill } from '../../forecast/skill';
import type { CurrentWeatherSample } from '../../weather/weather-service';
import type { WeatherSnapshot } from '../../weather/snapshot';
import type { ControlsState } from '../controls/types';
import type { RunRecord } from '../../store/runs';
import type { DailyDecision } from '../../store/decisions';
import type { IrrigationSnapshot } from '../snapshot-schema';
import type { SoilView } from '../soil/soil-ledger-service';
import type { ProbeEvidence } from '../soil/probe-evidence';

/**
 * Everything the irrigation engine decides from. The engine is a pure
 * function of this value: the IrrigationService gathers it (config, the two
 * snapshots, run evidence from the ledger, persisted controls, the clock) and
 * the simulate route builds one from a supplied scenario.
 */
export interface EngineInput {
  nowEpoch: number;
  config: RaincheckConfig;
  /** The deployment's IANA zone (configured, else derived from lat/lon). */
  timezone: string;
  weather: WeatherSnapshot;
  currentWeather: Record<string, CurrentWeatherSample> | null;
  forecast: ForecastSnapshot;
  /** This month's learned forecast rain bias. */
  bias: { multiplier: number; sample_count: number; trained: boolean };
  /** Run records of the last 15 days (ledger evidence; dry-run and skip rows included, flagged by source/status). */
  runs: readonly RunRecord[];
  /** Gauge rain totals by local date (`YYYY-MM-DD` -> inches) for the days the station measured. */
  gaugeDailyRain: ReadonlyMap<string, number>;
  controls: ControlsState;
  /**
   * The persisted soil water ledger (closing states, recent rows) and the daily
   * weather record; absent without a database, when the engine replays the
   * forecast's past days and the gauge in memory from an unknown start.
   */
  soil?: SoilView;
  /** Per zone slug: what its bound soil probe says now (soil/probe-reader.ts); absent = no probe evidence. */
  probes?: ReadonlyMap<string, ProbeEvidence>;
  /**
   * Daily decisions of the local dates SKILL_LOOKBACK_DAYS + 1 days back to
   * today (persisted): the forecast's day-ahead rain promises they recorded
   * judge its skill.
   */
  recentDecisions?: readonly DailyDecision[];
  /** The forecast's rain skill by lead time for this month, from the forecast archive (forecast/skill.ts). */
  archiveSkill?: ArchiveSkill;
  /** A persistence database is mounted (controls survive restarts). */
  controlsPersisted: boolean;
  /** Per zone: whether its controller reports a zone running (`running_known` false when it cannot tell). */
  zoneRunning?: ReadonlyMap<
    string,
    { running: boolean; running_known: boolean; observed_epoch: number | null }
  >;
}

/** The engine's answer: the irrigation snapshot (spec 2.5) and what it decided today per zone. */
export interface EngineOutput {
  snapshot: IrrigationSnapshot;
  /** Today's daily decision record (spec 2.5 "Daily decision"), for the history routes. */
  decision: {
    date_local: string;
    epoch: number;
    kind: string;
    zones: {
      zone: string;
      name: string;
      reason_code: string;
      reason: string;
      water_need: string;
      planned_seconds: number;
    }[];
  };
  /** The overall verdict, for verdict-transition records. */
  verdict: string;
  /**
   * Why the overall verdict is what it is: the control that decided (pause,
   * an override), the skip rule, the model or missing evidence. A verdict
   * change is recorded with this, never with the skip check's own code.
   */
  verdictReason: { reason_code: string; reason: string; deciding: string };
}
