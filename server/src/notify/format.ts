import { sentenceQuantity, type Quantity, type UnitSystem } from '../core/units/quantities';

/**
 * Plain-text quantities for notices, in the owner's display units (the one
 * definition per quantity in core/units, as the reasons and the app use);
 * unknown stays unsaid, never 0.
 */

export type { UnitSystem };

export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function said(quantity: Quantity, value: number | null, units: UnitSystem): string | null {
  return value === null || !Number.isFinite(value) ? null : sentenceQuantity(quantity, value, units);
}

export function depth(mm: number | null, units: UnitSystem): string | null {
  return said('depth_mm', mm, units);
}

export function volume(gallons: number | null, units: UnitSystem): string | null {
  return said('volume_gal', gallons, units);
}

export function flowRate(gpm: number | null, units: UnitSystem): string | null {
  return said('flow_gpm', gpm, units);
}

/** Items joined as prose: "a", "a and b", "a, b and c". */
export function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
