"""Writes the companion integration's brand images (custom_components/raincheck/brand/)
from the web app's icon (web/icon-512.png). Home Assistant 2026.3+ serves a custom
integration's own brand/ images; HACS reads brand/icon.png. Needs Pillow (the HA test
venv has it): `~/.cache/raincheck/ha-venv-*/bin/python scripts/ha-brand-images.py`."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "web" / "icon-512.png"
BRAND = ROOT / "custom_components" / "raincheck" / "brand"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
NAME = "Raincheck"
# The icon's own blues: the name in the darker one on light themes, white on dark ones.
TEXT_LIGHT = (21, 101, 192, 255)
TEXT_DARK = (255, 255, 255, 255)


def trimmed_icon() -> Image.Image:
    icon = Image.open(SOURCE).convert("RGBA")
    return icon.crop(icon.getchannel("A").getbbox())


def square(icon: Image.Image, size: int) -> Image.Image:
    return icon.resize((size, size), Image.LANCZOS)


def logo(icon: Image.Image, height: int, color: tuple[int, int, int, int]) -> Image.Image:
    """The icon and the name beside it, trimmed, `height` pixels high."""
    font = ImageFont.truetype(str(FONT), int(height * 0.5))
    left, top, right, bottom = font.getbbox(NAME)
    gap = height // 5
    canvas = Image.new("RGBA", (height + gap + right - left, height), (0, 0, 0, 0))
    canvas.paste(square(icon, height), (0, 0))
    ImageDraw.Draw(canvas).text(
        (height + gap - left, (height - (bottom - top)) // 2 - top), NAME, font=font, fill=color
    )
    return canvas.crop(canvas.getchannel("A").getbbox())


def main() -> None:
    BRAND.mkdir(exist_ok=True)
    icon = trimmed_icon()
    square(icon, 256).save(BRAND / "icon.png", optimize=True)
    square(icon, 512).save(BRAND / "icon@2x.png", optimize=True)
    for prefix, color in (("", TEXT_LIGHT), ("dark_", TEXT_DARK)):
        logo(icon, 128, color).save(BRAND / f"{prefix}logo.png", optimize=True)
        logo(icon, 256, color).save(BRAND / f"{prefix}logo@2x.png", optimize=True)


if __name__ == "__main__":
    main()
