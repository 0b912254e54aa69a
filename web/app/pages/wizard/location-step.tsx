import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api, ApiFailure } from '../../lib/api';
import { describe, UNITS_TEXT } from './catalog';
import { SelectField, TextField } from './fields';
import { formatLatLon, roundCoord } from './geo';
import { parseNumber, type FieldErrors, type LocationForm } from './model';
import { WorldMap } from './world-map';

interface Candidate {
  display_name: string;
  lat: string;
  lon: string;
}

type Lookup = { state: 'idle' } | { state: 'busy'; previous: Settled | null } | Settled;
type Settled = { state: 'ok'; note: string } | { state: 'failed'; error: unknown };

/** A new lookup keeps the last answer on screen until it is replaced: no layout jump under the pointer. */
const busyAfter = (prev: Lookup): Lookup => ({
  state: 'busy',
  previous: prev.state === 'busy' ? prev.previous : prev.state === 'idle' ? null : prev,
});

const ZONES: string[] = (() => {
  try {
    return (
      (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ??
      []
    );
  } catch {
    return [];
  }
})();

export function LocationStep(props: {
  location: LocationForm;
  units: string[];
  errors: FieldErrors;
  onChange: (next: LocationForm) => void;
}) {
  const { location } = props;
  const [query, setQuery] = useState('');
  const [searching, setSearching] = useState(false);
  const [candidates, setCandidates] = useState<Candidate[] | null>(null);
  const [searchError, setSearchError] = useState<unknown>(null);
  const [timezoneLookup, setTimezoneLookup] = useState<Lookup>({ state: 'idle' });
  const [elevationLookup, setElevationLookup] = useState<Lookup>({ state: 'idle' });
  const [geoError, setGeoError] = useState<string | null>(null);
  const [locating, setLocating] = useState(false);
  const looked = useRef<string>(`${location.lat},${location.lon}`);
  // Latest form for the async lookups (they finish after further edits).
  const latest = useRef(location);
  latest.current = location;

  const lat = parseNumber(location.lat);
  const lon = parseNumber(location.lon);
  const point =
    lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { lat, lon } : null;

  const lookUp = (la: number, lo: number, which = { timezone: true, elevation: true }) => {
    looked.current = `${la},${lo}`;
    const query = `lat=${encodeURIComponent(la)}&lon=${encodeURIComponent(lo)}`;
    if (which.timezone) lookUpTimezone(la, lo, query);
    if (which.elevation) lookUpElevation(la, lo, query);
  };

  const lookUpTimezone = (la: number, lo: number, query: string) => {
    setTimezoneLookup(busyAfter);
    api<{ timezone: string | null }>(`location/timezone?${query}`)
      .then((r) => {
        if (looked.current !== `${la},${lo}`) return;
        if (r.timezone) {
          props.onChange({ ...latest.current, timezone: r.timezone });
          setTimezoneLookup({ state: 'ok', note: `Looked up for ${formatLatLon(la, lo)}.` });
        } else {
          setTimezoneLookup({ state: 'ok', note: 'No time zone is known for this point; type one in.' });
        }
      })
      .catch((error: unknown) => setTimezoneLookup({ state: 'failed', error }));
  };

  const lookUpElevation = (la: number, lo: number, query: string) => {
    setElevationLookup(busyAfter);
    api<{ elevation_m: number | null }>(`location/elevation?${query}`)
      .then((r) => {
        if (looked.current !== `${la},${lo}`) return;
        if (typeof r.elevation_m === 'number') {
          props.onChange({ ...latest.current, elevation: String(Math.round(r.elevation_m)) });
          setElevationLookup({ state: 'ok', note: 'Looked up from a 90 m terrain model.' });
        } else {
          props.onChange({ ...latest.current, elevation: '' });
          setElevationLookup({
            state: 'ok',
            note: 'Not known for this point; type it in or leave it empty.',
          });
        }
      })
      .catch((error: unknown) => {
        // Never a guessed 0: the field stays empty and says why.
        if (looked.current === `${la},${lo}`) props.onChange({ ...latest.current, elevation: '' });
        setElevationLookup({ state: 'failed', error });
      });
  };

  // A point without a time zone or elevation yet (the environment's location): look them up once.
  useEffect(() => {
    if (!point) return;
    const timezone = location.timezone.trim() === '';
    const elevation = location.elevation.trim() === '';
    if (timezone || elevation) lookUp(point.lat, point.lon, { timezone, elevation });
  }, []);

  const place = (la: number, lo: number) => {
    const next = { ...latest.current, lat: String(la), lon: String(lo) };
    latest.current = next;
    props.onChange(next);
    lookUp(la, lo);
  };

  const search = (event: Event) => {
    event.preventDefault();
    const q = query.trim();
    if (q === '') return;
    setSearching(true);
    setSearchError(null);
    setCandidates(null);
    api<Candidate[]>(`wizard/geocode?q=${encodeURIComponent(q)}`)
      .then(setCandidates)
      .catch(setSearchError)
      .finally(() => setSearching(false));
  };

  const useMyLocation = () => {
    setGeoError(null);
    setLocating(true);
    navigator.geolocation.getCurrentPosition(
      (position) => {
        setLocating(false);
        place(roundCoord(position.coords.latitude), roundCoord(position.coords.longitude));
      },
      (error) => {
        setLocating(false);
        setGeoError(
          error.code === error.PERMISSION_DENIED
            ? 'The browser was not allowed to share its location (it also needs an https:// address). Search an address or click the map instead.'
            : `The browser could not tell its location: ${error.message || 'no position'}.`,
        );
      },
      { enableHighAccuracy: false, timeout: 15_000, maximumAge: 600_000 },
    );
  };

  const typedBlur = () => {
    if (point && looked.current !== `${point.lat},${point.lon}`) lookUp(point.lat, point.lon);
  };

  return (
    <div class="wz-location">
      <p class="muted">
        Where the garden is: the weather, sunrise, time zone and forecasts all come from this point.
      </p>
      <div class="wz-two">
        <div>
          <form class="wz-search" onSubmit={search} role="search">
            <div class="field">
              <label for="wz-search">Search address</label>
              <div class="row wz-search-row">
                <input
                  id="wz-search"
                  type="search"
                  value={query}
                  autoComplete="street-address"
                  placeholder="Street, town or postcode"
                  onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
                />
                <button type="submit" disabled={searching || query.trim() === ''}>
                  Search
                </button>
              </div>
            </div>
          </form>
          <div aria-live="polite" class="wz-candidates">
            {searching && <p class="muted">Searching…</p>}
            {searchError && <ErrorNotice error={searchError} title="The address search failed" />}
            {candidates && candidates.length === 0 && (
              <p class="muted">Nothing matched. Try fewer words, or click the map.</p>
            )}
            {candidates && candidates.length > 0 && (
              <ul class="wz-candidate-list">
                {candidates.map((c) => (
                  <li key={`${c.lat},${c.lon},${c.display_name}`}>
                    <button
                      type="button"
                      class="wz-candidate"
                      onClick={() => {
                        const la = parseNumber(c.lat);
                        const lo = parseNumber(c.lon);
                        if (la === null || lo === null) return;
                        setCandidates(null);
                        setQuery(c.display_name);
                        place(roundCoord(la), roundCoord(lo));
                      }}
                    >
                      {c.display_name}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
          {'geolocation' in navigator && (
            <div class="field">
              <button type="button" onClick={useMyLocation} disabled={locating}>
                {locating ? 'Locating…' : 'Use my location'}
              </button>
              {geoError && (
                <p class="field-error" role="alert">
                  {geoError}
                </p>
              )}
            </div>
          )}
          <div class="wz-pair">
            <TextField
              id="lat"
              label="Latitude"
              value={location.lat}
              inputMode="decimal"
              placeholder="e.g. 40.7128"
              error={props.errors.lat}
              onValue={(v) => props.onChange({ ...location, lat: v })}
              onBlur={typedBlur}
            />
            <TextField
              id="lon"
              label="Longitude"
              value={location.lon}
              inputMode="decimal"
              placeholder="e.g. -74.0060"
              error={props.errors.lon}
              onValue={(v) => props.onChange({ ...location, lon: v })}
              onBlur={typedBlur}
            />
          </div>
          <p class="help wz-coords" aria-live="polite">
            {point ? formatLatLon(point.lat, point.lon) : 'No point chosen yet.'}
          </p>
          <div class="wz-pair">
            <div>
              <TextField
                id="timezone"
                label="Time zone"
                value={location.timezone}
                list={ZONES.length > 0 ? 'wz-timezones' : undefined}
                placeholder="e.g. America/New_York"
                help={<LookupNote lookup={timezoneLookup} fallback="Empty: derived from the location." />}
                error={props.errors.timezone}
                onValue={(v) => props.onChange({ ...location, timezone: v })}
              />
              {ZONES.length > 0 && (
                <datalist id="wz-timezones">
                  {ZONES.map((z) => (
                    <option key={z} value={z} />
                  ))}
                </datalist>
              )}
            </div>
            <TextField
              id="elevation"
              label="Elevation (m)"
              value={location.elevation}
              inputMode="decimal"
              placeholder="unknown"
              help={
                <LookupNote
                  lookup={elevationLookup}
                  fallback="Optional: sharpens evaporation estimates. Empty means unknown, never 0."
                  failed="The elevation could not be looked up, so it is left empty (unknown). Type it in if you know it."
                />
              }
              error={props.errors.elevation}
              onValue={(v) => props.onChange({ ...location, elevation: v })}
            />
          </div>
          {props.units.length > 0 && (
            <SelectField
              id="units"
              label="Units"
              value={location.units}
              options={props.units.map((u) => ({ value: u, label: describe(UNITS_TEXT, u).label }))}
              onValue={(v) => props.onChange({ ...location, units: v })}
              help="How the app shows temperatures, rain and wind. Display only."
            />
          )}
        </div>
        <WorldMap point={point} onPick={place} />
      </div>
    </div>
  );
}

function LookupNote(props: { lookup: Lookup; fallback: string; failed?: string }) {
  const { lookup } = props;
  if (lookup.state === 'busy') {
    if (!lookup.previous) return <span>Looking up…</span>;
    return (
      <span aria-busy="true">
        <LookupNote lookup={lookup.previous} fallback={props.fallback} failed={props.failed} />
      </span>
    );
  }
  if (lookup.state === 'ok') return <span>{lookup.note}</span>;
  if (lookup.state === 'failed') {
    const failure = lookup.error instanceof ApiFailure ? lookup.error : null;
    return (
      <span class="wz-lookup-failed">
        {props.failed ?? 'The lookup failed; type it in.'}{' '}
        {failure && (
          <small>
            ({failure.message}
            {failure.requestId ? `, request id ${failure.requestId}` : ''})
          </small>
        )}
      </span>
    );
  }
  return <span>{props.fallback}</span>;
}
