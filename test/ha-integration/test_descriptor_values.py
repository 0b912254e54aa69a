"""How descriptor values a given Home Assistant does not know are read (pure functions)."""

from __future__ import annotations

from homeassistant.components.sensor import SensorDeviceClass, SensorStateClass

from custom_components.raincheck.sensor import device_class, state_class


def test_measurement_angle_is_measurement_where_home_assistant_lacks_it() -> None:
    expected = (
        SensorStateClass("measurement_angle")
        if "measurement_angle" in {c.value for c in SensorStateClass}
        else SensorStateClass.MEASUREMENT
    )
    assert state_class("measurement_angle") == expected
    assert state_class("total_increasing") is SensorStateClass.TOTAL_INCREASING
    assert state_class("not_a_state_class") is None
    assert state_class(None) is None


def test_an_unknown_device_class_is_none_not_an_error() -> None:
    assert device_class("volume_flow_rate") is SensorDeviceClass.VOLUME_FLOW_RATE
    assert device_class("not_a_device_class") is None
    assert device_class(None) is None
