"""The built-in demo room: embedded defaults, no files needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_LINES = [
    "大家好，欢迎来到直播间！我是今天的虚拟主播。",
    "这是一场演示直播，画面和声音都由程序实时生成。",
    "有什么问题，欢迎在弹幕里问我。",
]


def demo_config(out_dir: Path, rtmp_url: str | None = None, width: int = 1280, height: int = 720) -> dict[str, Any]:
    outputs: list[dict[str, Any]] = [{"type": "record", "path": str(out_dir / "demo.flv")}]
    if rtmp_url:
        outputs.append({"type": "rtmp", "url": rtmp_url})
    return {
        "daemon": {"log_format": "text", "state_dir": str(out_dir / "state")},
        "rooms": [
            {
                "id": "demo",
                "name": "virtual-anchor demo",
                "video": {"width": width, "height": height, "fps": 25},
                "outputs": outputs,
                "lines": DEMO_LINES,
                "lines_gap_s": 2.0,
            }
        ],
    }
