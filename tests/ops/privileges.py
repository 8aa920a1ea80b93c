"""Commands run as root and as an unprivileged user: CI runs as root, so the unprivileged runs drop to `nobody`."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.programs import missing, require_program

ROOT = Path(__file__).resolve().parents[2]
USERS = ("root", "unprivileged")


@dataclass(frozen=True)
class User:
    name: str  # "root" or "unprivileged"
    uid: int
    gid: int
    drop: bool  # a root test process runs the command as this user

    def own(self, *paths: Path) -> None:
        """Gives the folders (and what is in them) to this user, so its commands may write there."""
        if self.drop:
            for path in paths:
                for p in [path, *path.rglob("*")]:
                    os.chown(p, self.uid, self.gid)

    def run(self, args: list[str], home: Path, timeout: float = 60, **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(args), cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              env=environment(home), **kwargs)

    def argv(self, args: list[str]) -> list[str]:
        """`args` as this user: through setpriv (util-linux) when the test runs as root."""
        if not self.drop:
            return args
        drop = [require_program("setpriv"), f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups"]
        if not _others_reach(Path(sys.executable).resolve(), Path(sys.base_prefix)):
            # The interpreter lives where only root may look (pyenv under /root, mode 0700): keep the one
            # capability that lets a process read and search any folder, never write one, so every write the
            # daemon makes is still judged as nobody's.
            drop += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
        return [*drop, "--", *args]


def user(name: str) -> User:
    if name == "root":
        if os.geteuid() != 0:
            missing("this case runs as root (CI does); run the tests as root to cover it")
        return User("root", 0, 0, drop=False)
    if os.geteuid() == 0:
        pw = pwd.getpwnam("nobody")
        return User("unprivileged", pw.pw_uid, pw.pw_gid, drop=True)
    return User("unprivileged", os.getuid(), os.getgid(), drop=False)


def _others_reach(*paths: Path) -> bool:
    """Whether a user who is neither owner nor in the group may search every folder down to each path."""
    for path in paths:
        for folder in [*reversed(path.parents), path] if path.is_dir() else reversed(path.parents):
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
    return True


def environment(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1",
            "LANG": "C.UTF-8"}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "broadcaster.cli", *args]


@contextlib.contextmanager
def open_folder() -> Iterator[Path]:
    """A temp folder every user may enter (pytest's tmp_path is root's own, mode 0700); removed afterwards."""
    d = Path(tempfile.mkdtemp(prefix="va-paths-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        for p in [d, *d.rglob("*")]:
            if p.is_dir() and not p.is_symlink():
                with contextlib.suppress(OSError):
                    p.chmod(0o755)
        shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def tmpfs(path: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at `path` (root only: `mount -t tmpfs -o <options>`), unmounted afterwards."""
    if os.geteuid() != 0:
        missing("mounting a tmpfs needs root (CI runs as root)")
    path.mkdir(parents=True, exist_ok=True)
    mount, umount = require_program("mount"), require_program("umount")
    res = subprocess.run([mount, "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True, text=True)
    if res.returncode != 0:
        missing(f"cannot mount a tmpfs here: {res.stderr.strip()}")
    try:
        yield path
    finally:
        if subprocess.run([umount, str(path)], capture_output=True).returncode != 0:
            subprocess.run([umount, "-l", str(path)], capture_output=True)
