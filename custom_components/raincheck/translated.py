"""Manifest entities whose names (and enum states) the integration translates.

Keyed by manifest key; the rest (a zone's entities, named after the zone) keep the
service's name. test_static checks this table against strings.json."""

from __future__ import annotations

from typing import Final

TRANSLATED_KEYS: Final[dict[str, frozenset[str]]] = {
    "datetime": frozenset(
        {
            "pause_until",
        }
    ),
    "number": frozenset(
        {
            "threshold_max_wind_mph",
            "threshold_min_temp_f",
            "threshold_rain_skip_in",
        }
    ),
    "select": frozenset(
        {
            "global_override",
            "override_tomorrow",
        }
    ),
    "sensor": frozenset(
        {
            "flow_rate",
            "next_run",
            "reason",
            "verdict",
            "water_level",
            "weather_air_temp_f",
            "weather_battery_pct",
            "weather_battery_v",
            "weather_illuminance_lx",
            "weather_leaf_wetness_pct",
            "weather_lightning_avg_dist_mi",
            "weather_lightning_strikes_last_hour",
            "weather_pop_pct",
            "weather_pressure_inhg",
            "weather_rain_in_today",
            "weather_rain_intensity_in_hr",
            "weather_rh_pct",
            "weather_solar_w_m2",
            "weather_uv_index",
            "weather_wind_avg_mph",
            "weather_wind_dir_deg",
            "weather_wind_gust_mph",
            "weather_wind_lull_mph",
        }
    ),
    "switch": frozenset(
        {
            "pause",
        }
    ),
    "update": frozenset(
        {
            "update",
        }
    ),
}


# A zone's entities: `zone_<slug>_<kind>`, named "<zone name><suffix>" by the service.
# Translated as "zone_<kind>" with the zone name as the {zone} placeholder.
ZONE_KINDS: Final[dict[str, tuple[str, str]]] = {
    "bucket": ("sensor", " soil deficit"),
    "planned": ("sensor", " planned run"),
    "last_run": ("sensor", " last run"),
    "run": ("button", " run now"),
    "override": ("select", " override"),
    "flow": ("sensor", " flow"),
    "flow_baseline": ("sensor", " usual flow"),
    "soil_moisture": ("sensor", " soil moisture"),
    "probe_state": ("sensor", " soil probe"),
}

# A fixed schedule's switch: `schedule_<slug>`, named "Schedule <name>" by the service.
# Translated as "schedule" with the schedule's name as the {schedule} placeholder.
SCHEDULE_PREFIX: Final = "Schedule "


# Entities that start disabled (entity-disabled-by-default): less used or noisy, on the
# device page for whoever enables them. Fixed keys, and a zone's kinds.
DISABLED_BY_DEFAULT_KEYS: Final = frozenset(
    {
        # Diagnostic: the level (where the station reports one) is what users watch.
        "weather_battery_v",
        # The minute's lowest wind: noisy, and the speed and gust say what matters.
        "weather_wind_lull_mph",
    }
)
DISABLED_BY_DEFAULT_ZONE_KINDS: Final = frozenset(
    {
        # Diagnostic: the learnt baseline the flow state is judged against.
        "flow_baseline",
    }
)
