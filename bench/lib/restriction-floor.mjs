/**
 * What a zone can physically achieve under a weekday restriction, in the
 * scorer's own terms (score/unstressed.ts: the measured rain the engine
 * credited, the unstressed demand Kc x sun factor x ET0 by the scorer's
 * Penman-Monteith, a day stressed when it starts beyond RAW + 0.5 mm). An
 * ideal waterer refills on every allowed day, before the day's demand:
 *
 * - `floor_unlimited`: to field capacity each allowed day (no run ceiling):
 *   the stress no scheduler can avoid under the rule;
 * - `floor_one_session`: at most one session of the zone's run ceiling
 *   (max_run_minutes at its net rate) each allowed day;
 * - `peak_gap_demand_mm`: the most demand between two allowed days' runs
 *   (what the root zone must hold from field capacity), beside TAW and RAW.
 *
 * Uses the replay's lines for each day's Kc, sun factor, root zone and rain,
 * so it shares the scorer's inputs, not the engine's decisions.
 */
export function restrictionFloor({
  lines,
  truth,
  site,
  penmanMonteith,
  weekdays,
  netPerSessionMm,
  skipDays,
}) {
  const allowed = new Set(weekdays);
  const weekdayOf = (date) => new Date(`${date}T12:00:00Z`).getUTCDay();
  const days = lines.map((l) => {
    const measured = truth.get(l.date);
    const et0 = (measured ? penmanMonteith(measured, l.date, site) : null) ?? l.et0_mm ?? 0;
    const trueRain = measured?.rain_mm ?? null;
    const rain =
      l.rain_mm !== null && l.rain_credited_mm !== null && (trueRain === null || l.rain_mm === trueRain)
        ? l.rain_credited_mm
        : (trueRain ?? 0);
    return { l, demand: l.kc * l.sun_factor * et0, rain, allowed: allowed.has(weekdayOf(l.date)) };
  });
  const stressDays = (perDayCapMm) => {
    let d = 0; // the ideal waterer starts the scored span at field capacity
    let stress = 0;
    days.forEach(({ l, demand, rain, allowed: ok }, i) => {
      if (i >= skipDays && d > l.raw_mm + 0.5) stress += 1;
      if (ok) d = Math.max(0, d - Math.min(d, perDayCapMm));
      d = Math.max(0, d - rain);
      d = Math.min(l.taw_mm, d + demand);
    });
    return stress;
  };
  let peak = 0;
  let run = 0;
  days.forEach(({ demand, allowed: ok }, i) => {
    if (ok) run = 0;
    run += demand;
    const next = days[i + 1];
    if (i >= skipDays && (!next || next.allowed)) peak = Math.max(peak, run);
  });
  const first = lines[0];
  return {
    floor_unlimited: stressDays(Infinity),
    floor_one_session: stressDays(netPerSessionMm ?? Infinity),
    peak_gap_demand_mm: Math.round(peak * 10) / 10,
    taw_mm: first?.taw_mm ?? null,
    raw_mm: first?.raw_mm ?? null,
  };
}
