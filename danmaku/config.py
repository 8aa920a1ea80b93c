"""Config of a room's chat sources."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from broadcaster.configbase import Model


class ReplaySource(Model):
    type: Literal["replay"]
    path: Path
    speed: float = 1.0
    loop: bool = False


SourceConfig = Annotated[ReplaySource, Field(discriminator="type")]
