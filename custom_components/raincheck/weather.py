"""A weather entity: current conditions from the station, hourly and daily forecasts
from `/forecast/snapshot` (pushed by the forecast feed, never polled)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from homeassistant.components.weather import Forecast, SingleCoordinatorWeatherEntity
from homeassistant.components.weather.const import WeatherEntityFeature
from homeassistant.const import PRECISION_TENTHS, UnitOfLength, UnitOfPressure, UnitOfSpeed, UnitOfTemperature
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .const import OPT_WEATHER
from .coordinator import RaincheckCoordinator
from .entity import remove_unwanted, device_info

if TYPE_CHECKING:
    from . import RaincheckConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant, entry: RaincheckConfigEntry, async_add_entities: AddEntitiesCallback
) -> None:
    if not entry.options.get(OPT_WEATHER, True):
        remove_unwanted(hass, entry, "weather", "weather")
        return
    async_add_entities([RaincheckWeather(entry.runtime_data.coordinator)])


def _at(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def daily_forecast(snapshot: dict[str, Any] | None) -> list[Forecast]:
    """Each `daily` entry; null stays null (never a fake 0)."""
    days = (snapshot or {}).get("daily") or []
    return [
        Forecast(
            datetime=_at(day["time_epoch"]),
            native_temperature=day.get("temp_max_f"),
            native_templow=day.get("temp_min_f"),
            native_precipitation=day.get("precip_sum_in"),
            precipitation_probability=day.get("precip_probability_max"),
            native_wind_speed=day.get("wind_max_mph"),
            humidity=day.get("humidity_pct"),
        )
        for day in days
        if isinstance(day.get("time_epoch"), int)
    ]


def hourly_forecast(snapshot: dict[str, Any] | None) -> list[Forecast]:
    hours = (snapshot or {}).get("hourly") or []
    return [
        Forecast(
            datetime=_at(hour["time_epoch"]),
            native_temperature=hour.get("temp_f"),
            native_precipitation=hour.get("precip_in"),
            precipitation_probability=hour.get("precip_probability"),
            native_wind_speed=hour.get("wind_mph"),
            humidity=hour.get("humidity_pct"),
        )
        for hour in hours
        if isinstance(hour.get("time_epoch"), int)
    ]


class RaincheckWeather(SingleCoordinatorWeatherEntity[RaincheckCoordinator]):
    _attr_has_entity_name = True
    _attr_name = None
    _attr_translation_key = "weather"
    _attr_precision = PRECISION_TENTHS  # the forecast's own precision, not whole degrees
    _attr_native_temperature_unit = UnitOfTemperature.FAHRENHEIT
    _attr_native_precipitation_unit = UnitOfLength.INCHES
    _attr_native_wind_speed_unit = UnitOfSpeed.MILES_PER_HOUR
    _attr_native_pressure_unit = UnitOfPressure.INHG
    _attr_supported_features = WeatherEntityFeature.FORECAST_DAILY | WeatherEntityFeature.FORECAST_HOURLY

    def __init__(self, coordinator: RaincheckCoordinator) -> None:
        super().__init__(coordinator)
        self._attr_unique_id = f"{coordinator.config_entry.unique_id}_weather"
        self._attr_device_info = device_info(coordinator, {"kind": "service"})

    def _reading(self, field: str) -> float | None:
        descriptor = self.coordinator.data.entities.get(f"weather_{field}") or {}
        try:
            return float(descriptor["state"]) if descriptor.get("state") is not None else None
        except ValueError:
            return None

    @property
    def condition(self) -> str | None:
        # The service reports no sky condition; HA shows none rather than a guess.
        return None

    @property
    def native_temperature(self) -> float | None:
        return self._reading("air_temp_f")

    @property
    def humidity(self) -> float | None:
        return self._reading("rh_pct")

    @property
    def native_pressure(self) -> float | None:
        return self._reading("pressure_inhg")

    @property
    def native_wind_speed(self) -> float | None:
        return self._reading("wind_avg_mph")

    @property
    def native_wind_gust_speed(self) -> float | None:
        return self._reading("wind_gust_mph")

    @property
    def wind_bearing(self) -> float | None:
        return self._reading("wind_dir_deg")

    @property
    def uv_index(self) -> float | None:
        return self._reading("uv_index")

    @callback
    def _async_forecast_daily(self) -> list[Forecast] | None:
        return daily_forecast(self.coordinator.data.forecast)

    @callback
    def _async_forecast_hourly(self) -> list[Forecast] | None:
        return hourly_forecast(self.coordinator.data.forecast)
