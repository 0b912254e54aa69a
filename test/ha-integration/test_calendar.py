"""The calendar shows the planned runs of `water_plan`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from conftest import api
from ha_helpers import entity_id, eventually, setup_entry, unload
from raincheck_process import Raincheck


async def test_each_watering_day_of_the_plan_is_an_event(hass: HomeAssistant, demo: Raincheck) -> None:
    entry = await setup_entry(hass, demo)
    calendar = entity_id(hass, entry, "calendar", "water_plan")
    start, end = dt_util.utcnow() - timedelta(days=1), dt_util.utcnow() + timedelta(days=10)
    # A global "run" override makes the demo plan watering whatever its weather says.
    await api(demo, "POST", "/irrigation/action", {"kind": "set_global_override", "mode": "run"})
    coordinator = entry.runtime_data.coordinator
    await eventually(
        lambda: any(
            z["planned_seconds"] > 0 for d in coordinator.data.irrigation["water_plan"] for z in d["zones"]
        )
    )
    _, snapshot = await api(demo, "GET", "/irrigation/snapshot")
    watering = [
        day
        for day in snapshot["water_plan"]
        if day["start_epoch"] is not None and any(z["planned_seconds"] > 0 for z in day["zones"])
    ]
    assert watering, "the demo plans some watering in its week"

    response = await hass.services.async_call(
        "calendar",
        "get_events",
        {"entity_id": calendar, "start_date_time": start, "end_date_time": end},
        blocking=True,
        return_response=True,
    )
    events = response[calendar]["events"]
    assert [dt_util.parse_datetime(e["start"]) for e in events] == [
        datetime.fromtimestamp(day["start_epoch"], UTC) for day in watering
    ]
    for event, day in zip(events, watering, strict=True):
        assert dt_util.parse_datetime(event["end"]) == datetime.fromtimestamp(day["finish_epoch"], UTC)
        for zone in day["zones"]:
            assert (zone["name"] in event["description"]) == (zone["planned_seconds"] > 0)
    await api(demo, "POST", "/irrigation/action", {"kind": "set_global_override", "mode": "auto"})
    await unload(hass, entry)
