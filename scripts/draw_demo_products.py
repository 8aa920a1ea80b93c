"""Draws the demo room's product pictures (configs/demo/products/*/image.png) with PIL: a tumbler, a kettle, towels.

The pictures are the project's own work, drawn by this script (no photo, font or clip art of anyone else's), under
the project's own terms like the rest of the repository. Run it again after changing a drawing:

    .venv/bin/python scripts/draw_demo_products.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

SIZE = 512
SS = 2  # drawn at twice the size, reduced with a good filter: smooth edges
OUT = Path(__file__).resolve().parents[1] / "configs" / "demo" / "products"


def _canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (SIZE * SS, SIZE * SS), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img)


def _s(*v: float) -> list[float]:
    return [x * SS for x in v]


def _shadow(img: Image.Image, box: tuple[float, float, float, float]) -> Image.Image:
    """A soft floor shadow under the object."""
    shadow = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(shadow).ellipse(_s(*box), fill=(40, 30, 30, 90))
    return Image.alpha_composite(shadow.filter(ImageFilter.GaussianBlur(14 * SS)), img)


def _done(img: Image.Image, name: str) -> None:
    out = OUT / name / "image.png"
    img.resize((SIZE, SIZE), Image.Resampling.LANCZOS).save(out, optimize=True)
    print(f"wrote {out}")


def cup() -> None:
    img, d = _canvas()
    body = (176, 120, 336, 440)
    d.rounded_rectangle(_s(*body), radius=34 * SS, fill=(236, 214, 196, 255))  # cream white
    for i, x in enumerate(range(186, 330, 6)):  # a soft vertical shading, darker to the right
        shade = max(0, i - 12) * 3
        d.line(_s(x, 150, x, 420), fill=(236 - shade, 214 - shade, 196 - shade, 255), width=6 * SS)
    d.rounded_rectangle(_s(176, 120, 336, 440), radius=34 * SS, outline=(200, 172, 150, 255), width=3 * SS)
    d.rounded_rectangle(_s(168, 84, 344, 136), radius=18 * SS, fill=(90, 86, 96, 255))  # lid
    d.rounded_rectangle(_s(214, 64, 298, 92), radius=10 * SS, fill=(70, 66, 76, 255))  # button
    d.rounded_rectangle(_s(196, 150, 212, 400), radius=8 * SS, fill=(255, 250, 244, 200))  # highlight
    d.ellipse(_s(226, 250, 286, 310), outline=(226, 110, 120, 255), width=5 * SS)  # a heart-ish badge
    d.polygon(_s(256, 298, 236, 272, 246, 262, 256, 272, 266, 262, 276, 272), fill=(226, 110, 120, 255))
    _done(_shadow(img, (160, 430, 352, 470)), "cup")


def kettle() -> None:
    img, d = _canvas()
    d.ellipse(_s(120, 410, 392, 460), fill=(70, 80, 96, 255))  # base
    d.polygon(_s(150, 420, 362, 420, 340, 170, 172, 170), fill=(174, 196, 220, 255))  # body, misty blue
    d.polygon(_s(160, 410, 190, 410, 200, 185, 180, 185), fill=(214, 230, 244, 200))  # highlight
    d.ellipse(_s(168, 150, 344, 196), fill=(150, 172, 198, 255))  # shoulder
    d.rounded_rectangle(_s(206, 118, 306, 160), radius=14 * SS, fill=(90, 100, 118, 255))  # lid
    d.polygon(_s(172, 200, 96, 150, 84, 160, 160, 236), fill=(150, 172, 198, 255))  # spout
    d.rounded_rectangle(_s(338, 190, 410, 380), radius=36 * SS, outline=(90, 100, 118, 255), width=22 * SS)  # handle
    d.ellipse(_s(236, 300, 276, 340), fill=(120, 220, 170, 255))  # the switch light
    _done(_shadow(img, (110, 440, 402, 482)), "kettle")


def towel() -> None:
    img, d = _canvas()
    colours = [((222, 204, 180, 255), (206, 186, 160, 255)), ((236, 196, 200, 255), (220, 176, 182, 255)),
               ((200, 202, 206, 255), (182, 184, 190, 255))]  # oat, misty pink, light grey
    for i, (face, edge) in enumerate(colours):
        top = 300 - i * 92
        d.rounded_rectangle(_s(96, top, 416, top + 96), radius=30 * SS, fill=face)
        d.rounded_rectangle(_s(96, top + 60, 416, top + 96), radius=30 * SS, fill=edge)  # the fold
        for x in range(124, 400, 22):  # terry loops
            d.line(_s(x, top + 16, x, top + 52), fill=edge, width=3 * SS)
        d.rectangle(_s(96, top + 34, 416, top + 42), fill=(255, 255, 255, 140))  # woven stripe
    _done(_shadow(img, (90, 390, 422, 428)), "towel")


if __name__ == "__main__":
    cup()
    kettle()
    towel()
