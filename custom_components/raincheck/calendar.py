"""A calendar of the planned runs from the irrigation snapshot's `water_plan`.

One event per plan day that waters: from the day's `start_epoch` to its
`finish_epoch` (or start + the planned seconds when no finish is known),
listing each zone with its minutes and reason. A plan is a forecast scenario,
not a command: the calendar says what Raincheck expects to do.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from homeassistant.components.calendar import CalendarEntity, CalendarEvent
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util import dt as dt_util

from .const import OPT_CALENDAR
from .coordinator import RaincheckCoordinator
from .entity import remove_unwanted, RaincheckEntity, device_info

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    if not entry.options.get(OPT_CALENDAR, True):
        remove_unwanted(hass, entry, "calendar", "water_plan")
        return
    async_add_entities([RaincheckPlanCalendar(entry.runtime_data.coordinator)])


def planned_events(irrigation: dict[str, Any] | None) -> list[CalendarEvent]:
    events: list[CalendarEvent] = []
    for day in (irrigation or {}).get("water_plan") or []:
        zones = [z for z in day.get("zones") or [] if (z.get("planned_seconds") or 0) > 0]
        start_epoch = day.get("start_epoch")
        if not zones or not isinstance(start_epoch, int):
            continue
        total = sum(z["planned_seconds"] for z in zones)
        finish_epoch = day.get("finish_epoch")
        start = datetime.fromtimestamp(start_epoch, UTC)
        end = (
            datetime.fromtimestamp(finish_epoch, UTC)
            if isinstance(finish_epoch, int) and finish_epoch > start_epoch
            else start + timedelta(seconds=total)
        )
        lines = [f"{z['name']}: {round(z['planned_seconds'] / 60)} min ({z['reason']})" for z in zones]
        events.append(
            CalendarEvent(
                start=start,
                end=end,
                summary=f"Watering {len(zones)} zone{'s' if len(zones) != 1 else ''}, {round(total / 60)} min",
                description="\n".join(lines),
                uid=f"raincheck-plan-{day.get('date_local')}",
            )
        )
    return events


class RaincheckPlanCalendar(RaincheckEntity, CalendarEntity):
    _attr_translation_key = "water_plan"

    def __init__(self, coordinator: RaincheckCoordinator) -> None:
        super().__init__(coordinator, "water_plan")
        self._attr_device_info = device_info(coordinator, {"kind": "service"})

    @property
    def event(self) -> CalendarEvent | None:
        now = dt_util.utcnow()
        upcoming = [e for e in planned_events(self.coordinator.data.irrigation) if e.end > now]
        return min(upcoming, key=lambda e: e.start) if upcoming else None

    async def async_get_events(
        self, hass: HomeAssistant, start_date: datetime, end_date: datetime
    ) -> list[CalendarEvent]:
        return [
            e
            for e in planned_events(self.coordinator.data.irrigation)
            if e.end > start_date and e.start < end_date
        ]
