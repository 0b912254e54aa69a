import { differsFromBrowser } from './zone-clock';

/** Times as the user reads them: the yard's clock times, relative ages and durations. */

export function formatAge(epochSeconds: number | null | undefined, nowMs = Date.now()): string {
  if (epochSeconds === null || epochSeconds === undefined) return 'unknown age';
  const seconds = Math.max(0, Math.round(nowMs / 1000 - epochSeconds));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/**
 * A moment in the yard's zone (lib/yard-time.ts); when that zone is not the
 * browser's, the zone's short name follows ("Wed, Nov 26, 06:00 AM EST").
 */
export function formatDateTime(epochSeconds: number | null | undefined, timeZone?: string): string {
  if (epochSeconds === null || epochSeconds === undefined) return '—';
  return new Date(epochSeconds * 1000).toLocaleString(undefined, {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    ...(differsFromBrowser(timeZone) ? { timeZoneName: 'short' } : {}),
  });
}

/** A clock time in the yard's zone ("06:40 AM", plus the zone's name when it is not the browser's). */
export function formatTime(epochSeconds: number | null | undefined, timeZone?: string): string {
  if (epochSeconds === null || epochSeconds === undefined) return '—';
  return new Date(epochSeconds * 1000).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    ...(differsFromBrowser(timeZone) ? { timeZoneName: 'short' } : {}),
  });
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
