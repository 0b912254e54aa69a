/**
 * What a zone can physically achieve under a weekday restriction, in the
 * scorer's own terms (score/unstressed.ts: the measured rain the engine
 * credited, the unstressed demand Kc x sun factor x ET0 by the scorer's
 * Penman-Monteith, a day stressed when it starts beyond RAW + 0.5 mm, from
 * the engine's depletion on the first line given, as the scorer starts). An
 * ideal waterer that knows the weather refills on every allowed day, before
 * the day's demand:
 *
 * - `floor`: to field capacity of the root zone as the FAO-56 water
 *   balance holds it (its own bucket, drawn at Ks x the unstressed demand,
 *   Ks by eq. 84 on the depletion after the day's water, as the soil ledger
 *   draws): the rule "up to field capacity" the engine obeys. Its water is
 *   then scored in the unstressed bucket like the engine's;
 * - `floor_past_field_capacity`: refilling the unstressed bucket itself. A
 *   crop held past RAW draws less than the unstressed demand and the rest
 *   stays in the soil, so this refill waters past field capacity by what
 *   the stressed crop left (it would drain): lower than any honest
 *   scheduler's figure, kept as the most optimistic bound;
 * - `floor_one_session`: as `floor`, at most one session of the zone's run
 *   ceiling (max_run_minutes at its net rate) each allowed day;
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
  const first = lines[0];
  // The scorer's start (unstressed.ts): the engine's depletion on the first line, a range's lower bound.
  const start = first ? (first.start_depletion_mm ?? first.start_depletion_range_mm?.[0] ?? 0) : 0;
  const stressDays = (perDayCapMm, toFieldCapacity) => {
    let scored = start; // the unstressed bucket the stress is counted in
    let soil = start; // the root zone as the FAO-56 balance holds it (Ks past RAW)
    let stress = 0;
    days.forEach(({ l, demand, rain, allowed: ok }, i) => {
      if (i >= skipDays && scored > l.raw_mm + 0.5) stress += 1;
      const deficit = toFieldCapacity ? soil : scored;
      const irrigation = ok ? Math.min(deficit, perDayCapMm) : 0;
      scored = Math.min(l.taw_mm, Math.max(0, scored - irrigation - rain) + demand);
      const afterWater = Math.max(0, soil - irrigation - rain);
      soil = Math.min(l.taw_mm, afterWater + stressCoefficient(afterWater, l) * demand);
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
  return {
    floor: stressDays(Infinity, true),
    floor_past_field_capacity: stressDays(Infinity, false),
    floor_one_session: stressDays(netPerSessionMm ?? Infinity, true),
    peak_gap_demand_mm: Math.round(peak * 10) / 10,
    taw_mm: first?.taw_mm ?? null,
    raw_mm: first?.raw_mm ?? null,
  };
}

/** FAO-56 eq. 84, as the soil ledger's (agronomy/soil/root-zone-day.ts waterStressCoefficient). */
function stressCoefficient(depletionMm, { taw_mm: taw, raw_mm: raw }) {
  if (depletionMm >= taw) return 0;
  if (depletionMm <= raw || taw <= raw) return 1;
  return (taw - depletionMm) / (taw - raw);
}
