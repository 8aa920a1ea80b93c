"""The folders the daemon will write (recordings, state, audit log, voice embeddings, service sockets), probed for real.

A folder must exist or be creatable, and must take a new file: `check`, `run` (before going on air) and a
reload that adds a room or hands its media over create what is missing and write a probe file there, then
remove the probe and every folder they created. Trying is the only honest test: os.access() says yes to root
in /proc and on a read-only mount. Read-only commands (status, tail, kb query…) never call this.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from broadcaster.config import Config, ConfigError, RecordOutput, RoomConfig


class UnwritablePaths(ConfigError):
    """Every written path that cannot be used, one ConfigError each in `problems`; str() is them all on one line
    (a reload result, systemd STATUS), and `check` prints each on a line of its own."""

    def __init__(self, problems: list[ConfigError]):
        first = problems[0]
        super().__init__(first.file, first.key, first.problem)
        self.problems = problems

    def __str__(self) -> str:
        return "; ".join(str(p) for p in self.problems)


def recording_file(pattern: Path, segment: int, now: datetime) -> Path:
    """A recording pattern's file for segment `segment` at `now`: strftime codes and {n} expanded."""
    return Path(now.strftime(str(pattern.expanduser())).replace("{n}", f"{segment:04d}"))


def _q(path: Path) -> str:
    return repr(str(path))


def probe_folder(folder: Path) -> str | None:
    """Why `folder` cannot take a new file, or None when it can. Missing folders are created for the try and
    removed again (the daemon makes them when it needs them), as is the probe file."""
    folder = Path(os.path.abspath(folder.expanduser()))
    missing: list[Path] = []
    at = folder
    while True:
        try:
            if stat.S_ISDIR(os.stat(at).st_mode):
                break
            if at == folder:
                return f"{_q(at)} is a file, not a directory"
            return f"directory {_q(folder)} does not exist and cannot be created: {_q(at)} is a file, not a directory"
        except (FileNotFoundError, NotADirectoryError):  # NotADirectory: an ancestor is a file (found further up)
            missing.append(at)
            at = at.parent
        except OSError as exc:  # an ancestor that may not be searched, a name too long, a loop of links
            return f"directory {_q(folder)} cannot be looked up: {exc.strerror or exc}"
    made: list[Path] = []
    try:
        for path in reversed(missing):
            try:
                os.mkdir(path)
            except OSError as exc:
                where = "" if path == folder else f" ({_q(path)})"
                return f"directory {_q(folder)} does not exist and cannot be created{where}: {exc.strerror or exc}"
            made.append(path)
        probe = folder / f".va-probe-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            return f"directory {_q(folder)} is not writable: {exc.strerror or exc}"
        try:
            os.write(fd, b"probe\n")  # a full disk lets the file be made and refuses its first byte
        except OSError as exc:
            return f"directory {_q(folder)} is not writable: {exc.strerror or exc}"
        finally:
            os.close(fd)
            os.unlink(probe)
        return None
    finally:
        for path in reversed(made):
            with contextlib.suppress(OSError):  # something else put a file there meanwhile: it is theirs now
                os.rmdir(path)


def _room_folders(room: RoomConfig, prefix: str, now: datetime) -> Iterator[tuple[str, Path]]:
    for j, out in enumerate(room.outputs):
        if isinstance(out, RecordOutput):
            yield f"{prefix}.outputs[{j}].path", recording_file(out.path, 0, now).parent
    if room.audit.path is not None:
        yield f"{prefix}.audit.path", room.audit.path.expanduser().parent
    if room.voice.embeddings_dir is not None:
        yield f"{prefix}.voice.embeddings_dir", room.voice.embeddings_dir
    elif room.voice.profile is not None:  # a cloned voice keeps its speaker embeddings in the per-user cache
        from broadcaster.voice.profiles import default_embeddings_dir

        yield f"{prefix}.voice.embeddings_dir", default_embeddings_dir()


def written_folders(config: Config, now: datetime | None = None) -> list[tuple[str, Path]]:
    """(key, folder) for every folder the config makes the daemon write, recording patterns expanded at `now`."""
    now = now or datetime.now()
    d = config.daemon
    out = [("daemon.state_dir", d.state_dir)]
    if d.services.socket_dir is not None:
        out.append(("daemon.services.socket_dir", d.services.socket_dir))
    for i, room in enumerate(config.rooms):
        out += _room_folders(room, f"rooms[{i}]", now)
    return out


def _problems(folders: list[tuple[str, Path]], file: str | os.PathLike[str]) -> list[ConfigError]:
    seen: dict[Path, str | None] = {}  # a folder shared by several keys is probed once, reported for each
    problems = []
    for key, folder in folders:
        if folder not in seen:
            seen[folder] = probe_folder(folder)
        if (problem := seen[folder]) is not None:
            problems.append(ConfigError(file, key, problem))
    return problems


def ensure_writable(config: Config, file: str | os.PathLike[str]) -> None:
    """Raises UnwritablePaths naming every folder of the config that cannot be written (blocking: file I/O)."""
    if problems := _problems(written_folders(config), file):
        raise UnwritablePaths(problems)


def ensure_room_writable(room: RoomConfig, file: str | os.PathLike[str], prefix: str) -> None:
    """The same for one room (a reload that adds it or hands its media over); keys start with `prefix`."""
    if problems := _problems(list(_room_folders(room, prefix, datetime.now())), file):
        raise UnwritablePaths(problems)
