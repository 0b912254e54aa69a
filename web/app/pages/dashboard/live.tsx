import { useEffect, useState } from 'preact/hooks';

/** The live-feed indicator: a dot plus "Live" or "Reconnecting…", announced (politely) when it changes. */
export function LiveIndicator({ live }: { live: boolean }) {
  return (
    <span class="live-indicator" aria-live="polite">
      <span
        class={live ? 'live-dot on' : 'live-dot'}
        data-live={live ? 'true' : 'false'}
        aria-hidden="true"
      />{' '}
      <span class="live-text">{live ? 'Live' : 'Reconnecting…'}</span>
    </span>
  );
}

/** The clock for ages ("12 s ago"), ticking every `intervalMs`. */
export function useNow(intervalMs = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
