"""The built-in demo room: the demo product's knowledge base and talk track, a replayed chat, no set-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_DIR = Path(__file__).resolve().parents[1] / "configs" / "demo"


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
                "sources": [{"type": "replay", "path": str(DEMO_DIR / "chat.jsonl"), "loop": True}],
                "director": {"talk": {"file": str(DEMO_DIR / "talk.yaml")}},
                "brain": {"kb": {"dir": str(DEMO_DIR / "kb")}},
                "audit": {"path": str(out_dir / "audit-{room}.jsonl")},
            }
        ],
    }
