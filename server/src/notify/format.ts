/** Plain-text quantities for notices, in the owner's display units; unknown stays unsaid, never 0. */

export type UnitSystem = 'imperial' | 'metric';

export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

export function depth(mm: number | null, units: UnitSystem): string | null {
  if (mm === null || !Number.isFinite(mm)) return null;
  return units === 'metric' ? `${mm.toFixed(1)} mm` : `${(mm / 25.4).toFixed(2)} in`;
}

export function volume(gallons: number | null, units: UnitSystem): string | null {
  if (gallons === null || !Number.isFinite(gallons)) return null;
  return units === 'metric' ? `${Math.round(gallons * 3.785411784)} L` : `${Math.round(gallons)} gal`;
}

export function flowRate(gpm: number | null, units: UnitSystem): string | null {
  if (gpm === null || !Number.isFinite(gpm)) return null;
  return units === 'metric' ? `${(gpm * 3.785411784).toFixed(1)} L/min` : `${gpm.toFixed(1)} gal/min`;
}

/** Items joined as prose: "a", "a and b", "a, b and c". */
export function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
