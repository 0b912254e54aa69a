import { ErrorNotice } from '../components/error-notice';
import { Link } from '../components/link';
import { YardTimeNote } from '../components/yard-time-note';
import { useLiveSnapshot } from '../lib/stream';
import { localizeUnits, useUnits } from '../lib/units';
import { useYardZone } from '../lib/yard-time';
import { useApi } from '../lib/use-api';
import { LiveIndicator, useNow } from './dashboard/live';
import type { IrrigationSnapshot, Zone, ZoneConfigs } from './zones/irrigation-types';
import { BucketGauge, StateBadge, ZoneControls, ZonePhoto } from './zones/zone-parts';
import { zoneStandingOf } from './zones/zone-standing';
import { lastRunText, overrideOf, plannedText, zoneReason } from './zones/zone-model';

/** /zones: a card per zone with its live state, soil bucket, plan, last run and quick controls. */

function ZoneCard({
  zone,
  snapshot,
  photoUrl,
  now,
  onChanged,
  onPhotoSaved,
}: {
  zone: Zone;
  snapshot: IrrigationSnapshot;
  photoUrl: string | null;
  now: number;
  onChanged: () => void;
  onPhotoSaved: () => void;
}) {
  const units = useUnits();
  const timeZone = useYardZone(snapshot.timezone);
  const reason = zoneReason(snapshot, zone.slug);
  return (
    <article class="card zone-card" aria-label={zone.name} data-zone={zone.slug}>
      <div class="zone-card-head">
        <ZonePhoto url={photoUrl} name={zone.name} />
        <div class="zone-card-title">
          <h2>
            <Link to={`zones/${encodeURIComponent(zone.slug)}`}>{zone.name}</Link>
          </h2>
          <StateBadge zone={zone} />
        </div>
      </div>
      <BucketGauge zone={zone} standing={zoneStandingOf(snapshot, zone.slug)} />
      <dl class="facts">
        <div>
          <dt>Planned</dt>
          <dd>{plannedText(zone.planned_run_seconds)}</dd>
        </div>
        <div>
          <dt>Last run</dt>
          <dd>{lastRunText(zone.last_run_epoch, now, timeZone)}</dd>
        </div>
      </dl>
      {reason && <p class="zone-reason muted">{localizeUnits(reason, units)}</p>}
      <ZoneControls
        zone={zone}
        override={overrideOf(snapshot, zone.slug)}
        onChanged={onChanged}
        onPhotoSaved={onPhotoSaved}
      />
    </article>
  );
}

export default function ZonesPage() {
  const irrigation = useLiveSnapshot<IrrigationSnapshot>('irrigation');
  const config = useApi<ZoneConfigs>('config');
  const now = useNow();
  const snapshot = irrigation.data;
  const yardZone = useYardZone(snapshot?.timezone);

  return (
    <section class="zones-page" aria-labelledby="zones-title">
      <div class="spread page-head">
        <h1 id="zones-title">Zones</h1>
        <LiveIndicator live={irrigation.live} />
      </div>
      <YardTimeNote zone={yardZone} />
      {irrigation.error?.code === 'config_absent' ? (
        <p class="notice notice-warn">
          Raincheck is not set up yet, so there are no zones. <Link to="setup">Finish setting up</Link>.
        </p>
      ) : (
        irrigation.error && <ErrorNotice error={irrigation.error} title="Zones could not be loaded" />
      )}
      {!snapshot && !irrigation.error && (
        <p class="loading" aria-busy="true">
          Loading…
        </p>
      )}
      {snapshot && snapshot.zones.length === 0 && (
        <p class="notice">
          No zones are configured yet. <Link to="setup">Add zones in the setup</Link>.
        </p>
      )}
      {snapshot && snapshot.zones.length > 0 && (
        <div class="grid zone-grid">
          {snapshot.zones.map((zone) => (
            <ZoneCard
              key={zone.slug}
              zone={zone}
              snapshot={snapshot}
              photoUrl={config.data?.zones?.[zone.slug]?.photo_url ?? null}
              now={now}
              onChanged={irrigation.refresh}
              onPhotoSaved={config.reload}
            />
          ))}
        </div>
      )}
    </section>
  );
}
