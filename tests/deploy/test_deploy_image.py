"""The container images (Dockerfile, Dockerfile.cuda, .dockerignore), tested without building them (base images
cannot be pulled here): the entrypoint is the package's console script, the HEALTHCHECK asks a public path the
admin API serves, the build context holds what the wheel is built from, and the wheel holds every data file
the code reads at run time — found by reading the code, not from a list."""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from aiohttp.test_utils import make_mocked_request

from broadcaster.admin import _public, create_app
from broadcaster.config import AdminConfig
from tests.deploy.deploy_support import ROOT, final_stage, healthcheck_command, instructions

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
IMAGES = ["Dockerfile", "Dockerfile.cuda"]


def _exec_form(name: str, word: str) -> list[str]:
    found = [rest for w, rest in final_stage(name) if w == word]
    assert found, f"{name} has no {word}"
    value = json.loads(found[-1])
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), f"{word} must be exec form"
    return value


# --------------------------------------------------------------------------------------- the Dockerfiles


@pytest.mark.parametrize("name", IMAGES)
def test_the_entrypoint_is_the_packages_console_script(name: str) -> None:
    entry = _exec_form(name, "ENTRYPOINT")
    scripts = PYPROJECT["project"]["scripts"]
    assert entry == ["virtual-anchor"] and entry[0] in scripts
    module, func = scripts[entry[0]].split(":")
    target = getattr(__import__(module, fromlist=[func]), func)
    assert callable(target)
    # The default command is one the CLI accepts, and it is what the Kubernetes pods run.
    cmd = _exec_form(name, "CMD")
    from broadcaster.cli import build_parser

    args = build_parser().parse_args(cmd)
    assert args.command == "run" and args.config == "/etc/virtual-anchor/config.yaml"
    assert (ROOT / "Dockerfile").exists() and (Path(sys.executable).parent / entry[0]).exists()


@pytest.mark.parametrize("name", IMAGES)
def test_the_image_runs_as_a_numeric_non_root_user(name: str) -> None:
    users = [rest for w, rest in final_stage(name) if w == "USER"]
    assert users, f"{name} runs as root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) > 0, "numeric, so that runAsNonRoot can verify it"
    # The same user as the pods' securityContext (and the face DaemonSet's).
    manifests = (ROOT / "deploy" / "kustomize" / "base" / "statefulset.yaml").read_text(encoding="utf-8")
    assert f"runAsUser: {uid}" in manifests


@pytest.mark.parametrize("name", IMAGES)
def test_the_healthcheck_asks_a_public_path_the_admin_api_serves(name: str) -> None:
    cmd = healthcheck_command(name)
    assert cmd[:2] == ["python", "-c"]
    code = cmd[2]
    ast.parse(code)  # valid Python
    m = re.search(r"'http://127\.0\.0\.1:' \+ os\.environ\.get\('VA_ADMIN_PORT', '(\d+)'\) \+ '(/\w+)'", code)
    assert m, code
    port, path = int(m.group(1)), m.group(2)
    assert port == AdminConfig().port
    app = create_app(SimpleNamespace(rooms={}, config=None), AdminConfig(), token="t")
    assert path in {r.resource.canonical for r in app.router.routes() if r.method == "GET"}
    assert _public(make_mocked_request("GET", path, app=app)), f"{path} would need the admin token"


def test_the_cpu_image_is_small_and_installs_no_extras() -> None:
    froms = [rest.split()[0] for w, rest in instructions("Dockerfile") if w == "FROM"]
    args = dict(re.findall(r"^ARG (\w+)=(\S+)", (ROOT / "Dockerfile").read_text(encoding="utf-8"), re.M))
    images = {args.get(f.strip("${}"), f) for f in froms if not f.islower() or "$" in f}
    assert images == {"python:3.11-slim-bookworm"}, images
    installs = [rest for w, rest in final_stage("Dockerfile") if w == "RUN" and "pip install" in rest]
    assert installs and not any("[" in r for r in installs), "no test, ml or face extra in the CPU image"


def test_the_cuda_image_has_torch_for_cuda_and_the_face_extra() -> None:
    text = (ROOT / "Dockerfile.cuda").read_text(encoding="utf-8")
    args = dict(re.findall(r"^ARG (\w+)=(\S+)", text, re.M))
    assert re.fullmatch(r"nvidia/cuda:[\d.]+-(cudnn-)?runtime-ubuntu[\d.]+", args["CUDA_IMAGE"]), args
    cuda = re.search(r":(\d+)\.(\d+)", args["CUDA_IMAGE"])
    assert args["TORCH_INDEX"] == f"https://download.pytorch.org/whl/cu{cuda.group(1)}{cuda.group(2)}"
    runs = " ".join(rest for w, rest in final_stage("Dockerfile.cuda") if w == "RUN")
    assert "--index-url ${TORCH_INDEX} torch" in runs
    assert "face" in PYPROJECT["project"]["optional-dependencies"]
    assert "[face]" in runs and "[test]" not in runs and ",test" not in runs


# ------------------------------------------------------------------------------------ the build context


def _excluded(rel: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore rule: the last pattern matching the path or one of its parent folders wins."""
    parts = rel.split("/")
    excluded = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern.removeprefix("!").strip("/").split("/")
        for n in range(1, len(parts) + 1):
            if _match(pat, parts[:n]):
                excluded = not negate
                break
    return excluded


def _match(pat: list[str], parts: list[str]) -> bool:
    if not pat:
        return not parts
    if pat[0] == "**":
        return any(_match(pat[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pat[0]) and _match(pat[1:], parts[1:])


def _dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def _sources() -> list[str]:
    """What `pip wheel .` reads: pyproject.toml, its readme, and every file of the packages it finds."""
    found = {"pyproject.toml", PYPROJECT["project"]["readme"]}
    for pattern in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]:
        top = pattern.split(".")[0].rstrip("*")
        prefix = pattern.rstrip("*").replace(".", "/")
        for path in (ROOT / top).rglob("*"):
            rel = path.relative_to(ROOT).as_posix()
            if path.is_file() and "__pycache__" not in rel and rel.startswith(prefix):
                found.add(rel)
    return sorted(found)


def test_the_build_context_has_the_sources_and_nothing_else() -> None:
    patterns = _dockerignore()
    sources = _sources()
    assert len(sources) > 50
    missing = [s for s in sources if _excluded(s, patterns)]
    assert not missing, f".dockerignore leaves out what the wheel is built from: {missing[:10]}"
    for heavy in (".venv/bin/python", ".git/HEAD", "tests/conftest.py", "bench/soak.py", "out/demo.flv",
                  "broadcaster/__pycache__/cli.cpython-311.pyc", "configs/anchor.yaml"):
        assert _excluded(heavy, patterns), f"{heavy} would be sent to the builder"


# ------------------------------------------------------------------------------------ the wheel's data


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # From a copy: setuptools builds in the source tree's build/, whose leftovers (a file since deleted) would
    # end up in the wheel and hide a missing one.
    src = out / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "out", "*.egg-info",
                                                             "__pycache__", ".pytest_cache", ".ruff_cache"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(out), str(src)], capture_output=True, text=True, timeout=300,
                           cwd=out, env={**os.environ, "PIP_NO_INDEX": "1"})
    assert build.returncode == 0, build.stderr
    (path,) = out.glob("virtual_anchor-*.whl")
    return zipfile.ZipFile(path)


def _file_relative_paths() -> dict[str, Path]:
    """Every value the packages compute from their own `__file__` (DEMO_DIR, CONSOLE_DIR, MODEL_DIR, …), as
    the path it names in this checkout; "module:line" -> path."""
    found: dict[str, Path] = {}
    for pattern in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]:
        for src in (ROOT / pattern.split(".")[0].rstrip("*")).rglob("*.py"):
            tree = ast.parse(src.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                    continue
                if not any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node.value)):
                    continue
                names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                attrs = {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)}
                if not names <= {"Path", "os", "__file__"} or attrs & {"environ", "getenv"}:
                    continue  # built from more than __file__ (an argument, the environment): not a fixed place
                try:
                    value = eval(compile(ast.Expression(node.value), str(src), "eval"),
                                 {"Path": Path, "os": os, "__file__": str(src)})
                except Exception:
                    continue
                if not isinstance(value, str | os.PathLike):
                    continue
                path = Path(value).resolve()
                # The checkout's root is site-packages once installed (a worker's sys.path), not a data place.
                if path not in (src.resolve(), ROOT) and path.is_relative_to(ROOT):
                    found[f"{src.relative_to(ROOT)}:{node.lineno}"] = path
    return found


def test_the_wheel_has_every_data_file_the_code_reads(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    places = _file_relative_paths()
    # Not vacuous: the console page, the demo room and the face-landmark models are found this way.
    assert {p.name for p in places.values()} >= {"console", "demo", "models"}, places
    missing = {}
    for where, place in places.items():
        files = [place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()]
        assert files, f"{where}: {place} holds no file"
        for f in files:
            rel = f.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel and not rel.endswith(".py") and rel not in names:
                missing.setdefault(where, []).append(rel)
    assert not missing, f"the wheel lacks files the code reads (pyproject.toml package-data): {str(missing)[:3000]}"
    # And every non-Python file inside the packages ships (READMEs and licences included).
    data = [s for s in _sources() if not s.endswith(".py") and s not in ("pyproject.toml", "README.md")]
    assert data and not [d for d in data if d not in names], [d for d in data if d not in names]
    entry = wheel.read("virtual_anchor-0.1.0.dist-info/entry_points.txt").decode()
    assert re.search(r"^virtual-anchor = broadcaster\.cli:main$", entry, re.M), entry


def test_the_demo_room_works_from_the_installed_wheel(wheel: zipfile.ZipFile, tmp_path: Path) -> None:
    """The wheel unpacked as site-packages would hold it, imported ahead of this checkout: the demo config
    (its talk track, knowledge base and replayed chat must exist) and the console page load from it."""
    site = tmp_path / "site"
    wheel.extractall(site)
    code = (
        "import sys, pathlib, broadcaster, broadcaster.demo as d, broadcaster.admin as a\n"
        "from broadcaster.config import parse_config\n"
        "assert pathlib.Path(broadcaster.__file__).is_relative_to(sys.argv[1]), broadcaster.__file__\n"
        "parse_config(d.demo_config(pathlib.Path(sys.argv[2])), '<demo>')\n"
        "html, _ = a._console()\n"
        "assert b'<html' in html.lower()\n"
        "from renderer import landmarks\n"
        "assert pathlib.Path(landmarks.MODEL_DIR).is_relative_to(sys.argv[1])\n"
        "assert sorted(p.name for p in pathlib.Path(landmarks.MODEL_DIR).glob('*.tflite'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", code, str(site), str(tmp_path)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
