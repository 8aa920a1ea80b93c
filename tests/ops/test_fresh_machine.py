"""A fresh machine: setup installs every program a test requires, and Chinese subtitles need no system font.

The first tests read the test sources: every `require_program("X")` / `require_file(PATH)` must name a
package that scripts/setup.sh --test installs, and a test may run only programs it requires that way.
The last ones hide every system font and draw the demo's subtitles with the font a Python dependency ships.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from renderer import text
from renderer.base import FrameState
from renderer.config import AvatarConfig
from renderer.factory import build_avatar
from tests.support.programs import FILES, PROGRAMS, require_file, require_program

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"
# Calls that run or look up a program, by module: subprocess.run([...]), asyncio.create_subprocess_exec(...), ...
_RUNNERS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "os": {"system", "popen", "execv", "execvp", "execl", "execlp", "spawnv", "spawnvp", "posix_spawn"},
    "shutil": {"which"},
}


def _test_sources(root: Path) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted((root / "tests").rglob("*.py")):
        yield path.relative_to(root), ast.parse(path.read_text(encoding="utf-8"), str(path))


def _calls(tree: ast.Module) -> Iterator[tuple[str, str, ast.Call]]:
    """(module or "", function name, call) for every call: `subprocess.run(...)` is ("subprocess", "run")."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                yield (f.value.id if isinstance(f.value, ast.Name) else ""), f.attr, node
            elif isinstance(f, ast.Name):
                yield "", f.id, node


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def requirements(root: Path = ROOT) -> dict[str, set[str]]:
    """{"program": {...}, "file": {...}} named by require_program / require_file anywhere in tests/."""
    found: dict[str, set[str]] = {"program": set(), "file": set()}
    for path, tree in _test_sources(root):
        for _, name, call in _calls(tree):
            if name not in ("require_program", "require_file") or path.name == "programs.py":
                continue
            arg = _literal(call.args[0]) if call.args else None
            assert arg is not None, f"{path}:{call.lineno}: {name} takes a literal name, so that this test sees it"
            found["program" if name == "require_program" else "file"].add(arg)
    return found


def programs_run(root: Path = ROOT) -> dict[str, str]:
    """Program -> where: every literal program name a test runs (subprocess, asyncio) or looks up (which)."""
    out: dict[str, str] = {}
    for path, tree in _test_sources(root):
        for module, name, call in _calls(tree):
            if not call.args or name not in _RUNNERS.get(module, ()):
                continue
            first = call.args[0]
            if isinstance(first, ast.List | ast.Tuple) and first.elts:
                first = first.elts[0]
            program = _literal(first)
            if program:
                out.setdefault(Path(program.split()[0]).name, f"{path}:{call.lineno}")
    return out


def setup_packages() -> set[str]:
    """The Debian packages in scripts/setup.sh's TEST_APT_PACKAGES=( ... ) list (comments dropped)."""
    m = re.search(r"^\s*TEST_APT_PACKAGES=\((.*?)^\s*\)", SETUP.read_text(encoding="utf-8"), re.S | re.M)
    assert m, "scripts/setup.sh has no TEST_APT_PACKAGES=( ... ) list"
    return {w for line in m.group(1).splitlines() for w in line.split("#", 1)[0].split()}


def test_setup_installs_every_program_and_file_a_test_requires() -> None:
    req = requirements()
    # The helpers themselves are required somewhere: a scan that finds nothing proves nothing.
    assert {"nginx", "chromium", "promtool"} <= req["program"], req
    unknown = sorted((req["program"] - PROGRAMS.keys()) | (req["file"] - FILES.keys()))
    assert not unknown, f"add these to tests/support/programs.py with their Debian package: {unknown}"
    packages = setup_packages()
    need = {PROGRAMS[p] for p in req["program"]} | {FILES[f] for f in req["file"]}
    missing = sorted(need - packages)
    assert not missing, f"scripts/setup.sh --test does not install {missing} (add to TEST_APT_PACKAGES)"


def test_tests_run_only_programs_they_require() -> None:
    required = requirements()["program"]
    ad_hoc = {p: where for p, where in programs_run().items() if p not in required}
    assert not ad_hoc, f"programs run without require_program (so setup may not install them): {ad_hoc}"


def test_the_scan_sees_programs_run_ad_hoc(tmp_path: Path) -> None:
    """The checks above are not vacuous: a test that runs a new program is caught."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_new.py").write_text(
        "import shutil, subprocess\n"
        "def test_x():\n"
        "    subprocess.run(['ffmpeg', '-version'])\n"
        "    shutil.which('espeak-ng')\n"
        "    require_program('nginx')\n",
        encoding="utf-8",
    )
    assert set(programs_run(tmp_path)) == {"ffmpeg", "espeak-ng"}
    assert requirements(tmp_path)["program"] == {"nginx"}


def test_the_test_command_runs_setup_with_test_packages() -> None:
    assert "scripts/setup.sh --test" in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _owners(dpkg_query: str, path: str) -> set[str]:
    """The Debian packages that own a file, as dpkg knows them."""
    # Under merged /usr, dpkg knows a file by the path its package shipped (/bin/kill, not /usr/bin/kill).
    real = str(Path(path).resolve())
    owners: set[str] = set()
    for p in {path, real} | {q.removeprefix("/usr") for q in (path, real)}:
        out = subprocess.run([dpkg_query, "-S", p], capture_output=True, text=True).stdout
        for line in out.splitlines():
            names = line.split(": ", 1)[0]
            owners |= {n.strip().split(":")[0] for n in names.split(",")}  # "pkg:amd64, other: /path"
    return owners


def test_each_package_named_really_provides_its_program() -> None:
    """Guards the mapping itself: what is installed here belongs to the package named for it."""
    dpkg_query = require_program("dpkg-query")
    wrong = {}
    for name, package in PROGRAMS.items():
        path = shutil.which(name)
        if path and package not in (owners := _owners(dpkg_query, path)):
            wrong[name] = (package, owners)
    for path, package in FILES.items():
        if Path(path).is_file() and package not in (owners := _owners(dpkg_query, path)):
            wrong[path] = (package, owners)
    assert not wrong, f"program or file: (package named in tests/support/programs.py, real owners): {wrong}"


# ------------------------------------------------------------------ Chinese with no system font


@pytest.fixture
def no_system_fonts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """fontconfig sees an empty configuration (no font directories) and no well-known path is tried."""
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<fontconfig></fontconfig>\n', encoding="utf-8")
    monkeypatch.setenv("FONTCONFIG_FILE", str(conf))
    monkeypatch.setattr(text, "_KNOWN_CJK", ())
    text.find_cjk_font.cache_clear()
    yield
    text.find_cjk_font.cache_clear()


def _ink(av, subtitle: str) -> np.ndarray:
    base = av.render(FrameState(n=0, fps=25))
    frame = av.render(FrameState(n=0, fps=25, subtitle=subtitle))
    return np.abs(frame.astype(np.int16) - base).max(axis=2) > 40


def test_demo_subtitles_are_chinese_glyphs_with_no_system_font(no_system_fonts, tmp_path: Path) -> None:
    from broadcaster.config import parse_config
    from broadcaster.demo import demo_config

    packaged = text.packaged_cjk_font()
    assert packaged is not None, "the CJK font package (a core dependency in pyproject.toml) is not installed"
    # The empty configuration really hides the system's fonts.
    assert subprocess.run([require_program("fc-list")], capture_output=True, text=True).stdout.strip() == ""
    room = parse_config(demo_config(tmp_path), "<demo>").rooms[0]
    av = build_avatar(room.avatar, room.video.width, room.video.height, room.video.fps)
    assert text.find_cjk_font() == packaged
    # U+10FFFD (private use) is in no font: it draws the .notdef box, which is what tofu looks like.
    inks = {s: _ink(av, s) for s in ("一", "田", "口", "欢迎来到直播间", "\U0010fffd")}
    assert all(m.any() for m in inks.values()), {s: int(m.sum()) for s, m in inks.items()}
    names = list(inks)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not np.array_equal(inks[a], inks[b]), (a, b)


def test_the_tofu_check_sees_boxes(tmp_path: Path) -> None:
    """The check above is not vacuous: with a Latin-only font, 一, 田 and U+10FFFD are the same box."""
    font = require_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    av = build_avatar(AvatarConfig(overlays={"subtitle": {"font": str(font)}}), 1280, 720, 25)
    inks = [_ink(av, s) for s in ("一", "田", "\U0010fffd")]
    assert inks[0].any() and all(np.array_equal(inks[0], m) for m in inks[1:])
