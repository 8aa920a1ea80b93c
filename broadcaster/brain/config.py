"""Config of a room's brain (answer sources) and director (triage, talk track)."""

from __future__ import annotations

from broadcaster.configbase import Model


class BrainConfig(Model):
    pass
