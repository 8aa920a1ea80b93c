"""The house plan holds in the code: no import cycle, the lower packages never import the daemon, and a
comment reaches the RTMP packet through a short chain of named contracts."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("broadcaster", "danmaku", "renderer", "cache", "common")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an import names (a name imported from a package may be a submodule)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> Iterator[tuple[str, int]]:
    """Every project module `module` imports — at the top, inside functions and under TYPE_CHECKING alike:
    a lazy import is still a dependency, and a cycle through one is still a cycle."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (target := _resolve(alias.name)) is not None:
                    yield target, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}") if base else None
                target = target or _resolve(base)
                if target is not None and target != module:
                    yield target, node.lineno


GRAPH = {m: {t for t, _ in _imports(m)} - {m} for m in MODULES}


def _package_edges() -> set[tuple[str, str]]:
    return {(a.split(".")[0], b.split(".")[0]) for a, targets in GRAPH.items() for b in targets}


def test_no_import_cycle_between_modules() -> None:
    # A package's __init__ re-exporting its own modules is not a cycle of design: leave those edges out.
    graph = {m: {t for t in ts if not (MODULES[t].name == "__init__.py" and m.startswith(t + "."))
                 and not (MODULES[m].name == "__init__.py" and t.startswith(m + "."))}
             for m, ts in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append([*stack[stack.index(t):], t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


@pytest.mark.parametrize("lower,forbidden", [
    ("danmaku", {"broadcaster", "renderer"}),
    ("renderer", {"broadcaster", "danmaku"}),
    ("cache", {"broadcaster", "danmaku", "renderer"}),
    ("common", {"broadcaster", "danmaku", "renderer", "cache"}),
])
def test_lower_packages_never_import_the_daemon(lower: str, forbidden: set[str]) -> None:
    bad = sorted(f"{a} → {b}" for a, targets in GRAPH.items() if a.split(".")[0] == lower
                 for b in targets if b.split(".")[0] in forbidden)
    assert not bad, f"{lower}/ must not import {sorted(forbidden)}: {bad}"


def test_package_layers_have_no_cycle() -> None:
    edges = {(a, b) for a, b in _package_edges() if a != b}
    assert not {(a, b) for a, b in edges if (b, a) in edges}, sorted(edges)


# A comment's way from the platform's bytes to the RTMP packet: each step, the contract it hands on, and where
# that contract is defined. The Show is the pipe that connects the content steps (it never enters twice:
# director → brain → voice → stage is one loop of `_speaker`), the stage and the clock are the media path.
COMMENT_PATH = [
    ("danmaku.bilibili.commands", "Event", "danmaku.event"),  # wire frames → Event
    ("broadcaster.director.director", "Line", "broadcaster.lines"),  # triage: Event → Line
    ("broadcaster.brain.core", "Sentence", "broadcaster.brain.answer_state"),  # answer: Line → Sentences
    ("broadcaster.voice.voice", "Utterance", "broadcaster.lines"),  # speech: sentences → Utterances
    ("broadcaster.stage", "StageEvent", "broadcaster.stage"),  # frame n: state + exactly spf samples
    ("broadcaster.clock", "EncodedPacket", "broadcaster.output.encoder"),  # rendered and encoded once
    ("broadcaster.output.sinks", "EncodedPacket", "broadcaster.output.encoder"),  # muxed onto RTMP
]


def test_a_comment_reaches_the_rtmp_packet_through_seven_modules_and_named_contracts() -> None:
    assert len(COMMENT_PATH) <= 7
    for module, contract, home in COMMENT_PATH:
        assert module in MODULES, f"{module} is gone: update COMMENT_PATH and the README"
        tree = ast.parse(MODULES[home].read_text(encoding="utf-8"))
        assert any(isinstance(n, ast.ClassDef) and n.name == contract for n in tree.body), \
            f"{contract} is not defined in {home}"
        assert home == module or home in GRAPH[module], f"{module} hands on {contract} without importing {home}"
    # The Show alone connects the content steps, and reaches the media path only through the StagePort.
    show = GRAPH["broadcaster.show"]
    assert {"broadcaster.director", "broadcaster.stage_port", "broadcaster.lines"} <= show, sorted(show)
    assert not show & {"broadcaster.room", "broadcaster.clock", "broadcaster.output.sinks"}, sorted(show)
    assert "broadcaster.output.rtmp" in GRAPH["broadcaster.output.sinks"]
