import { browserZone, differsFromBrowser } from '../lib/yard-time';

/** Says whose clock the page's times follow when it is not the browser's. */
export function YardTimeNote({ zone }: { zone: string | undefined }) {
  if (!zone || !differsFromBrowser(zone)) return null;
  const name = new Intl.DateTimeFormat(undefined, { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(new Date())
    .find((part) => part.type === 'timeZoneName')?.value;
  return (
    <p class="muted small yard-time" data-testid="yard-time">
      Times are the yard’s local time ({zone.replace(/_/g, ' ')}
      {name ? `, ${name}` : ''}); this device is set to {browserZone().replace(/_/g, ' ')}.
    </p>
  );
}
