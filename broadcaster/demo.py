"""The built-in demo room: three fictional products presented in turn (each with its facts, talk, picture and
offers: configs/demo/products.yaml), the shop's shared facts, a replayed chat, no set-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DEMO_DIR = Path(__file__).resolve().parents[1] / "configs" / "demo"


def demo_products() -> dict[str, Any]:
    """The demo's `director.products` section, its paths made absolute (they are written relative to DEMO_DIR)."""
    section = yaml.safe_load((DEMO_DIR / "products.yaml").read_text(encoding="utf-8"))
    for item in section["items"]:
        for key in ("facts", "image", "talk"):
            if key in item:
                item[key] = str(DEMO_DIR / item[key])
    return section


def demo_config(out_dir: Path, rtmp_url: str | None = None, width: int = 1280, height: int = 720,
                admin_port: int = 8717) -> dict[str, Any]:
    outputs: list[dict[str, Any]] = [{"type": "record", "path": str(out_dir / "demo.flv")}]
    if rtmp_url:
        outputs.append({"type": "rtmp", "url": rtmp_url})
    return {
        "daemon": {"log_format": "text", "state_dir": str(out_dir / "state"),
                   "admin": {"port": admin_port}},
        "rooms": [
            {
                "id": "demo",
                "name": "virtual-anchor demo",
                "video": {"width": width, "height": height, "fps": 25},
                "outputs": outputs,
                "sources": [{"type": "replay", "path": str(DEMO_DIR / "chat_products.jsonl"), "loop": True}],
                "director": {"talk": {"file": str(DEMO_DIR / "room_talk.yaml")}, "products": demo_products()},
                "brain": {"kb": {"dir": str(DEMO_DIR / "shop")}},
                "audit": {"path": str(out_dir / "audit-{room}.jsonl")},
            }
        ],
    }
