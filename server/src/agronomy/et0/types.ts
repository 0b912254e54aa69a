/**
 * Shared types of the reference evapotranspiration (ET0) domain.
 */

/** The concrete methods that produce an ET0 value. */
export type Et0MethodId = 'penman_monteith' | 'asce_simplified' | 'hargreaves_samani' | 'source_native';

/** What `et0()` may be asked for: a concrete method, or `auto` to pick the best the inputs support. */
export type Et0Method = 'auto' | Et0MethodId;

export type Et0Timestep = 'daily' | 'hourly';

/**
 * An input that was missing and replaced by an estimation procedure the paper
 * prescribes (FAO-56 chapter 3, "Missing data"; chapter 4 for the night-time
 * cloudiness of hourly periods):
 * - `humidity`: ea from Tmin (eq. 48);
 * - `radiation`: Rs from the temperature range (eq. 50);
 * - `wind`: u2 = 2 m/s;
 * - `night_cloudiness`: Rs/Rso of a night or low-sun hour from the climate class.
 */
export type EstimatedInput = 'humidity' | 'radiation' | 'wind' | 'night_cloudiness';

/** One ET0 value with how it was obtained. */
export interface Et0Result<S> {
  /** Reference evapotranspiration, mm per period (day or hour). Not rounded, not clipped at zero. */
  et0_mm: number;
  method: Et0MethodId;
  timestep: Et0Timestep;
  /** Inputs replaced by an estimation procedure; empty when every input was measured. */
  estimated: EstimatedInput[];
  /** Intermediate values, for the decision trace and for checking against the paper. */
  steps: S;
}

/** Where the actual vapour pressure ea came from. */
export type VapourPressureSource =
  | 'measured' // supplied directly
  | 'dewpoint_eq14'
  | 'rh_max_min_eq17'
  | 'rh_max_eq18'
  | 'rh_mean_eq19'
  | 'rh_hourly_eq54'
  | 'tmin_eq48'; // estimated

/** Where the wind speed at 2 m came from. */
export type WindSource = 'measured_2m' | 'adjusted_eq47' | 'default_2ms';

/** Where the solar radiation Rs came from. */
export type SolarRadiationSource = 'measured' | 'sunshine_eq35' | 'temperature_eq50';
