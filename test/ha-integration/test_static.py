"""What hassfest and the HACS action would check, since neither runs here."""

from __future__ import annotations

import json
from pathlib import Path
import re
import string

import yaml

from homeassistant.const import Platform

from custom_components.raincheck import PLATFORMS
from custom_components.raincheck.config_flow import RaincheckConfigFlow
from custom_components.raincheck.services import ACTIONS
from custom_components.raincheck.translated import TRANSLATED_KEYS, ZONE_KINDS

ROOT = Path(__file__).resolve().parents[2]
COMPONENT = ROOT / "custom_components" / "raincheck"
LANGUAGES = ["en", "de", "es", "fr"]

# Rule names of HA's quality scale (script/hassfest/quality_scale.py).
QUALITY_RULES = {
    "action-setup",
    "appropriate-polling",
    "brands",
    "common-modules",
    "config-flow-test-coverage",
    "config-flow",
    "dependency-transparency",
    "docs-actions",
    "docs-high-level-description",
    "docs-installation-instructions",
    "docs-removal-instructions",
    "entity-event-setup",
    "entity-unique-id",
    "has-entity-name",
    "runtime-data",
    "test-before-configure",
    "test-before-setup",
    "unique-config-entry",
    "action-exceptions",
    "config-entry-unloading",
    "docs-configuration-parameters",
    "docs-installation-parameters",
    "entity-unavailable",
    "integration-owner",
    "log-when-unavailable",
    "parallel-updates",
    "reauthentication-flow",
    "test-coverage",
    "devices",
    "diagnostics",
    "discovery-update-info",
    "discovery",
    "docs-data-update",
    "docs-examples",
    "docs-known-limitations",
    "docs-supported-devices",
    "docs-supported-functions",
    "docs-troubleshooting",
    "docs-use-cases",
    "dynamic-devices",
    "entity-category",
    "entity-device-class",
    "entity-disabled-by-default",
    "entity-translations",
    "exception-translations",
    "icon-translations",
    "reconfiguration-flow",
    "repair-issues",
    "stale-devices",
    "async-dependency",
    "inject-websession",
    "strict-typing",
}


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_manifest_has_the_keys_hassfest_and_hacs_require() -> None:
    manifest = load_json(COMPONENT / "manifest.json")
    for key in (
        "domain",
        "name",
        "codeowners",
        "documentation",
        "integration_type",
        "iot_class",
        "requirements",
        "version",
    ):
        assert key in manifest, key
    assert manifest["domain"] == "raincheck"
    assert manifest["config_flow"] is True
    assert manifest["iot_class"] == "local_push"
    assert manifest["integration_type"] == "hub"
    assert manifest["zeroconf"] == ["_raincheck._tcp.local."]
    # Add-on discovery needs no manifest key: the Supervisor's message names the service
    # "raincheck" (config.yaml), which HA routes to this domain's hassio step.
    assert hasattr(RaincheckConfigFlow, "async_step_hassio")
    known = {
        "domain",
        "name",
        "after_dependencies",
        "bluetooth",
        "codeowners",
        "config_flow",
        "dependencies",
        "dhcp",
        "documentation",
        "homekit",
        "integration_type",
        "iot_class",
        "issue_tracker",
        "loggers",
        "mqtt",
        "quality_scale",
        "requirements",
        "single_config_entry",
        "ssdp",
        "usb",
        "version",
        "zeroconf",
    }
    assert set(manifest) <= known, set(manifest) - known
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    # hassfest: domain and name first, then the other keys sorted.
    keys = list(manifest)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])


def test_hacs_json_and_the_hacs_layout() -> None:
    hacs = load_json(ROOT / "hacs.json")
    assert hacs["name"] == "Raincheck"
    assert set(hacs) <= {
        "name",
        "homeassistant",
        "render_readme",
        "content_in_root",
        "zip_release",
        "filename",
        "hide_default_branch",
        "country",
        "persistent_directory",
        "hacs",
    }
    assert hacs.get("content_in_root", False) is False
    # HACS wants exactly one integration under custom_components/.
    assert [
        p.name for p in (ROOT / "custom_components").iterdir() if p.is_dir() and p.name != "__pycache__"
    ] == ["raincheck"]


def test_repository_yaml_is_a_valid_add_on_repository() -> None:
    repository = yaml.safe_load((ROOT / "repository.yaml").read_text())
    assert set(repository) == {"name", "url", "maintainer"}
    assert all(isinstance(v, str) and v for v in repository.values())
    assert repository["url"].startswith("https://")


def test_the_only_add_on_config_is_the_root_one_and_it_lists_the_discovery() -> None:
    # The Supervisor takes any config.yaml|json|yml in the repository for an add-on.
    names = {"config.yaml", "config.yml", "config.json"}
    found = [
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("config.*")
        if p.name in names and "node_modules" not in p.parts and ".git" not in p.parts
    ]
    assert found == ["config.yaml"]
    addon = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert addon["discovery"] == ["raincheck"]


def test_translations_match_strings_json_key_for_key_with_the_same_placeholders() -> None:
    strings = flatten(load_json(COMPONENT / "strings.json"))
    assert load_json(COMPONENT / "translations" / "en.json") == load_json(COMPONENT / "strings.json")
    for language in LANGUAGES:
        translated = flatten(load_json(COMPONENT / "translations" / f"{language}.json"))
        assert set(translated) == set(strings), language
        for key, text in strings.items():
            assert placeholders(translated[key]) == placeholders(text), (language, key)
            assert translated[key].strip(), (language, key)


def test_every_action_is_described_in_services_yaml_strings_and_icons() -> None:
    services = {
        k: v
        for k, v in yaml.safe_load((COMPONENT / "services.yaml").read_text()).items()
        if not k.startswith(".")
    }
    strings = load_json(COMPONENT / "strings.json")["services"]
    icons = load_json(COMPONENT / "icons.json")["services"]
    assert set(services) == set(ACTIONS) == set(strings) == set(icons)
    for name, (fields, _) in ACTIONS.items():
        schema_fields = {"config_entry_id", *(str(field) for field in fields)}
        assert set(services[name]["fields"]) == schema_fields, name
        assert set(strings[name]["fields"]) == schema_fields, name


def test_every_translation_key_used_by_the_code_exists() -> None:
    strings = load_json(COMPONENT / "strings.json")
    source = "\n".join(p.read_text() for p in COMPONENT.glob("*.py"))
    for key in set(re.findall(r'translation_key="([a-z_]+)"', source)):
        assert key in strings["exceptions"] or key in strings["issues"], key
    for key in set(re.findall(r'errors\["base"\] = "([a-z_]+)"', source)):
        assert key in strings["config"]["error"], key
    for key in set(re.findall(r'async_abort\(reason="([a-z_]+)"\)', source)) | {"wrong_install"}:
        assert key in strings["config"]["abort"], key
    for platform, entities in strings["entity"].items():
        assert Platform(platform) in PLATFORMS
        for key in entities:
            assert (
                f'_attr_translation_key = "{key}"' in source
                or key in TRANSLATED_KEYS.get(platform, frozenset())
                or ZONE_KINDS.get(key.removeprefix("zone_"), ("",))[0] == platform
            ), key
    for platform, keys in TRANSLATED_KEYS.items():
        assert keys <= set(strings["entity"][platform]), platform
    for kind, (platform, _) in ZONE_KINDS.items():
        assert "{zone}" in strings["entity"][platform][f"zone_{kind}"]["name"], kind


def test_quality_scale_names_every_rule_with_an_honest_status() -> None:
    rules = yaml.safe_load((COMPONENT / "quality_scale.yaml").read_text())["rules"]
    assert set(rules) == QUALITY_RULES
    for name, rule in rules.items():
        status = rule if isinstance(rule, str) else rule["status"]
        assert status in {"done", "exempt", "todo"}, name
        if status != "done":
            assert isinstance(rule, dict) and rule.get("comment"), f"{name}: {status} needs a reason"
    for required in (
        "runtime-data",
        "has-entity-name",
        "entity-unique-id",
        "unique-config-entry",
        "test-before-configure",
        "test-before-setup",
        "config-entry-unloading",
        "reauthentication-flow",
        "reconfiguration-flow",
        "diagnostics",
        "dynamic-devices",
        "stale-devices",
    ):
        assert rules[required] == "done", required


def test_entity_icons_are_keyed_by_translation_keys_and_cover_the_service_icons() -> None:
    icons = load_json(COMPONENT / "icons.json")["entity"]
    strings = load_json(COMPONENT / "strings.json")["entity"]
    for platform, entities in icons.items():
        for key, icon in entities.items():
            # An icon for a key no entity carries would never show.
            assert key in strings.get(platform, {}), (platform, key)
            assert icon["default"].startswith("mdi:"), (platform, key)
            states = set(icon.get("state", {}))
            translated_states = set(strings[platform][key].get("state", {}))
            if translated_states:
                assert states <= translated_states, (platform, key)
    # Every icon the service's catalog names has its icon translation: a new one fails here
    # until icons.json (and a translation key) carries it.
    service = ROOT / "server" / "src" / "ha" / "entities"
    named = {m for p in service.glob("*.ts") for m in re.findall(r"icon: '(mdi:[a-z0-9-]+)'", p.read_text())}
    defaults = {icon["default"] for entities in icons.values() for icon in entities.values()}
    assert named and named <= defaults, named - defaults


def test_schedule_switches_and_probe_sensors_get_translation_keys_from_key_and_name() -> None:
    from custom_components.raincheck.entity import schedule_entity, zone_entity

    switch = {"key": "schedule_beds_by_hand", "platform": "switch", "name": "Schedule Beds by hand"}
    assert schedule_entity(switch) == "Beds by hand"
    assert schedule_entity({**switch, "name": "Beds by hand"}) is None
    assert schedule_entity({**switch, "platform": "sensor"}) is None
    probe = {"key": "zone_beds_probe_state", "platform": "sensor", "name": "Beds soil probe", "zone": "beds"}
    assert zone_entity(probe) == ("probe_state", "Beds")
    moisture = {**probe, "key": "zone_beds_soil_moisture", "name": "Beds soil moisture"}
    assert zone_entity(moisture) == ("soil_moisture", "Beds")


def test_brand_images_follow_the_brands_rules() -> None:
    # HA 2026.3+ serves a custom integration's own brand/ images; HACS reads brand/icon.png.
    from PIL import Image

    brand = COMPONENT / "brand"
    for name, size in (("icon.png", 256), ("icon@2x.png", 512)):
        with Image.open(brand / name) as image:
            assert (image.format, image.mode, image.size) == ("PNG", "RGBA", (size, size)), name
    for name, (low, high) in {
        "logo.png": (128, 256),
        "dark_logo.png": (128, 256),
        "logo@2x.png": (256, 512),
        "dark_logo@2x.png": (256, 512),
    }.items():
        with Image.open(brand / name) as image:
            assert (image.format, image.mode) == ("PNG", "RGBA"), name
            assert low <= min(image.size) <= high and image.width > image.height, name
            # Trimmed: the drawing touches every edge (the brands repository's rule).
            assert image.getchannel("A").getbbox() == (0, 0, *image.size), name
