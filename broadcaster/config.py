"""The daemon's YAML config: models, ${ENV} substitution, hardened loading, and errors that name file and key."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from broadcaster.brain.config import AuditConfig, BrainConfig, ModerationConfig
from broadcaster.director.config import DirectorConfig
from broadcaster.services.config import ServicesConfig
from broadcaster.voice.config import LANGUAGE_VOICES, VoiceConfig
from common.config import Model, Secret, SecretURL
from danmaku.config import SourceConfig
from danmaku.money import MoneyConfig
from renderer.config import LABEL_TEXTS, AvatarConfig


class ConfigError(Exception):
    """A config mistake: str() is one line naming the file, the key path and what was expected."""

    def __init__(self, file: str | os.PathLike[str], key: str, problem: str):
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{self.file}: {key or '<top>'}: {problem}")


class VideoConfig(Model):
    width: int = Field(1280, ge=64, le=3840, multiple_of=2)
    height: int = Field(720, ge=64, le=3840, multiple_of=2)
    fps: int = Field(25, ge=1, le=60)
    bitrate_kbps: int = Field(2500, ge=100, le=50000)
    maxrate_kbps: int | None = None  # defaults to bitrate (CBR-like)
    bufsize_kbps: int | None = None  # defaults to 2 × bitrate
    preset: Literal[
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"
    ] = "veryfast"
    zerolatency: bool = False
    # x264 holds this many frames back to plan bits (mb-tree). Every frame held delays each answer's first
    # audible packet by a frame, so the default keeps none: a mostly still avatar loses little quality.
    lookahead_frames: int = Field(0, ge=0, le=60)
    bframes: int = Field(0, ge=0, le=3)
    keyframe_seconds: int = Field(2, ge=1, le=10)
    threads: int = Field(1, ge=0, le=64)  # 0 = let x264 decide


class AudioConfig(Model):
    sample_rate: Literal[44100, 48000] = 44100
    bitrate_kbps: int = Field(128, ge=64, le=320)


class RtmpOutput(Model):
    type: Literal["rtmp"]
    url: SecretURL
    name: str = ""
    queue_seconds: float = Field(0.7, gt=0, le=10)  # more queued than this → drop to next keyframe
    reconnect_delay_s: float = Field(2.0, ge=0.1)
    reconnect_max_delay_s: float = Field(900.0, ge=1)
    max_retries: int = Field(0, ge=0)  # 0 = retry forever (a 24/7 daemon)
    timeout_s: float = Field(5.0, gt=0)

    @field_validator("url")
    @classmethod
    def _rtmp_scheme(cls, v: Any) -> Any:
        raw = v.get_secret_value()
        if not re.match(r"^rtmps?://[^/]+/", raw):
            raise ValueError("expected an rtmp:// or rtmps:// URL with an app path")
        return v


class RecordOutput(Model):
    type: Literal["record"]
    path: Path  # a file name pattern; strftime codes and {n} (segment number) are expanded
    name: str = ""
    rotate_seconds: float | None = Field(None, gt=0)
    rotate_bytes: int | None = Field(None, gt=0)

    @field_validator("path")
    @classmethod
    def _under_config_folder(cls, v: Path, info: ValidationInfo) -> Path:
        # Whether its folder can be written is tried by broadcaster/paths.py (check, run, a media reload), not
        # here: loading a config (status, tail, kb query…) must work for an operator who cannot write there.
        base = (info.context or {}).get("base_dir")
        if base is not None and not v.is_absolute() and not str(v).startswith("~"):
            v = Path(base) / v
        return v


OutputConfig = Annotated[RtmpOutput | RecordOutput, Field(discriminator="type")]


# Chat sources on platforms that ask for an on-screen AI label in Chinese (China's labelling rules for
# AI-generated content): their rooms keep the bilingual label whatever language they speak.
_CHINESE_PLATFORMS = ("bilibili", "douyin", "kuaishou")


def _source_types(sources: Any) -> list[str]:
    out: list[str] = []
    for s in sources if isinstance(sources, list) else []:
        kind = s.get("type") if isinstance(s, dict) else getattr(s, "type", None)
        out.append(str(kind or ""))
        members = s.get("members") if isinstance(s, dict) else getattr(s, "members", None)
        out += _source_types(members)
    return out


def _with_defaults(node: Any, path: list[str], defaults: dict[str, Any]) -> Any:
    """`node` with `defaults` under `path` wherever the file (or the model built in code) left them unset."""
    if not path:
        if node is None:
            return dict(defaults)
        if isinstance(node, dict):
            return {**defaults, **node}
        if isinstance(node, BaseModel):
            return node.model_copy(update={k: v for k, v in defaults.items() if k not in node.model_fields_set})
        return node  # not a mapping: the section's own validation says what is wrong
    head, rest = path[0], path[1:]
    if node is None:
        return {head: _with_defaults(None, rest, defaults)}
    if isinstance(node, dict):
        return {**node, head: _with_defaults(node.get(head), rest, defaults)}
    if isinstance(node, BaseModel):
        return node.model_copy(update={head: _with_defaults(getattr(node, head), rest, defaults)})
    return node


class RoomConfig(Model):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    name: str = ""
    # What the room speaks (docs/english.md): the default voice and its reading of numbers, the director's thanks
    # and welcome wording and its reading of chat, the AI label's text, and the brain's word lists. Each section
    # may still say otherwise (voice.voice: en-gb).
    language: Literal["zh", "en"] = "zh"
    video: VideoConfig = VideoConfig()
    audio: AudioConfig = AudioConfig()
    outputs: list[OutputConfig] = Field(default_factory=list)
    avatar: AvatarConfig = AvatarConfig()
    voice: VoiceConfig = VoiceConfig()
    sources: list[SourceConfig] = Field(default_factory=list)
    director: DirectorConfig = DirectorConfig()
    brain: BrainConfig = BrainConfig()
    moderation: ModerationConfig = ModerationConfig()
    audit: AuditConfig = AuditConfig()
    # The accounting currency and rate table every paid event of the room is valued with (danmaku/money.py).
    money: MoneyConfig = MoneyConfig()
    # The room's Redis (answer cache, utterance cache, speaker latents); daemon.redis_url when unset.
    redis_url: SecretURL | None = None

    @field_validator("redis_url", mode="before")
    @classmethod
    def _blank_is_unset(cls, v: Any) -> Any:
        return None if isinstance(v, str) and not v.strip() else v  # ${VA_REDIS_URL:-} with the variable unset

    # Per section, what the files and folders it names looked like when this config was loaded: a words file,
    # talk track or KB edited in place is a change of that section although its YAML is the same.
    _files: dict[str, tuple[Any, ...]] = PrivateAttr(default_factory=dict)

    def files_now(self) -> dict[str, tuple[Any, ...]]:
        """Per section, the state of the files and folders it names, read now."""
        return {name: tuple(_file_state(p) for _, _, p in _named_paths(getattr(self, name)))
                for name in type(self).model_fields if isinstance(getattr(self, name), BaseModel | list)}

    def note_files(self) -> None:
        self._files = self.files_now()

    def changed(self, old: RoomConfig, keys: Iterable[str]) -> list[str]:
        """Those of `keys` whose section differs from `old`'s, in its YAML or in a file it names."""
        return [k for k in keys if getattr(old, k) != getattr(self, k) or old._files.get(k) != self._files.get(k)]

    @model_validator(mode="before")
    @classmethod
    def _language_defaults(cls, data: Any) -> Any:
        """The room's language fills in what the voice, triage and AI label sections leave unset."""
        if not isinstance(data, dict) or data.get("language", "zh") not in LANGUAGE_VOICES:
            return data  # a wrong language is reported by the field itself
        language = data.get("language", "zh")
        chinese = any(t.startswith(_CHINESE_PLATFORMS) for t in _source_types(data.get("sources")))
        for path, defaults in (("voice", LANGUAGE_VOICES[language]),
                               ("director.triage", {"language": language}),
                               ("avatar.overlays.label", {"text": LABEL_TEXTS["zh" if chinese else language]})):
            data = _with_defaults(data, path.split("."), defaults)
        return data

    @model_validator(mode="after")
    def _sources_use_room_money(self) -> RoomConfig:
        for source in self.sources:
            source.in_room(self.money)
        return self

    @model_validator(mode="after")
    def _judge_endpoint(self) -> RoomConfig:
        judge = self.moderation.judge
        if judge.enabled and not judge.base_url and self.brain.llm.backend != "openai":
            raise ValueError("moderation.judge.base_url is empty, so the judge asks the room's model, but "
                             f"brain.llm.backend is {self.brain.llm.backend!r}: set moderation.judge.base_url and "
                             "model, or brain.llm.backend openai")
        if judge.enabled and not (judge.model or self.brain.llm.model):
            raise ValueError("moderation.judge.model is empty and so is brain.llm.model: name the judge's model")
        return self

    @model_validator(mode="after")
    def _audio_frame_exact(self) -> RoomConfig:
        if self.audio.sample_rate % self.video.fps:
            raise ValueError(
                f"audio.sample_rate {self.audio.sample_rate} is not a whole number of samples per frame "
                f"at video.fps {self.video.fps}"
            )
        return self


class AdminConfig(Model):
    host: str = "127.0.0.1"
    port: int = Field(8717, ge=0, le=65535)
    token: Secret | None = None
    metrics_public: bool = True
    # Failed token attempts one client address may make (per failed_token_window_s) before it is refused
    # with 429 for a while that doubles with every further failure (up to lockout_max_s).
    failed_tokens: int = Field(10, ge=1, le=100000)
    failed_token_window_s: float = Field(300.0, gt=0)
    lockout_max_s: float = Field(300.0, ge=1)


class WorkersConfig(Model):
    """How rooms run: each in its own worker process (production), or all inside the daemon (`inline`: tests
    that reach into a room, debugging). A worker is restarted alone, with backoff, when it exits, when its media
    clock stops ticking (or it stops reporting) for `hang_after_s`, or when its resident memory exceeds
    `memory_limit_mb`."""

    mode: Literal["process", "inline"] = "process"
    # A 720p room with the built-in avatar and a local TTS voice stays well under 1 GiB; four times that is a leak.
    memory_limit_mb: int | None = Field(4096, ge=16)
    hang_after_s: float = Field(5.0, gt=0, le=300)
    start_timeout_s: float = Field(120.0, gt=0)  # spawn to on air: avatar and voice models load in this time
    restart_backoff_s: float = Field(0.5, gt=0, le=60)  # the first restart's delay; doubles up to the max
    restart_backoff_max_s: float = Field(30.0, gt=0, le=3600)
    stable_after_s: float = Field(60.0, gt=0)  # on air this long: the next failure starts the backoff over
    # Keep one worker started ahead (imports and one-time loads done) for the next restart: a room killed -9 is
    # back in about half the time. Costs one idle process's memory.
    spare: bool = True

    @model_validator(mode="after")
    def _backoff_order(self) -> WorkersConfig:
        if self.restart_backoff_max_s < self.restart_backoff_s:
            raise ValueError("restart_backoff_max_s must be at least restart_backoff_s")
        return self


class DaemonConfig(Model):
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "text"] = "json"
    state_dir: Path = Path("/var/lib/virtual-anchor")
    admin: AdminConfig = AdminConfig()
    shutdown_grace_s: float = Field(5.0, ge=0, le=60)
    redis_url: SecretURL | None = None  # every room's Redis unless the room names its own
    workers: WorkersConfig = WorkersConfig()
    # Re-read the config file when its content changes (a Kubernetes ConfigMap is swapped in by a symlink):
    # the same path as SIGHUP.
    watch_config: bool = True
    services: ServicesConfig = ServicesConfig()  # the shared per-host services (a TTS voice loaded once per host)

    _blank_is_unset = field_validator("redis_url", mode="before")(RoomConfig._blank_is_unset.__func__)


class Config(Model):
    daemon: DaemonConfig = DaemonConfig()
    rooms: list[RoomConfig] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_rooms(self) -> Config:
        seen: set[str] = set()
        for room in self.rooms:
            if room.id in seen:
                raise ValueError(f"room id {room.id!r} is used twice")
            seen.add(room.id)
        if self.daemon.redis_url is not None:
            rooms = [r if r.redis_url is not None else r.model_copy(update={"redis_url": self.daemon.redis_url})
                     for r in self.rooms]
            object.__setattr__(self, "rooms", rooms)
        return self

    def room(self, room_id: str) -> RoomConfig:
        for room in self.rooms:
            if room.id == room_id:
                return room
        raise KeyError(room_id)


_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _substitute(node: Any, file: str, path: str) -> Any:
    if isinstance(node, dict):
        return {k: _substitute(v, file, f"{path}.{k}" if path else str(k)) for k, v in node.items()}
    if isinstance(node, list):
        return [_substitute(v, file, f"{path}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, str):

        def repl(m: re.Match[str]) -> str:
            name, default = m.group(1), m.group(2)
            value = os.environ.get(name)
            if value is None:
                if default is None:
                    raise ConfigError(file, path, f"environment variable {name} is not set")
                return default
            return value

        return _ENV.sub(repl, node)
    return node


def _key_path(loc: tuple[Any, ...], data: Any) -> str:
    parts: list[str] = []
    node = data
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
            node = node[item] if isinstance(node, list) and item < len(node) else None
            continue
        if isinstance(node, dict) and item not in node and node.get("type") == item:
            continue  # a discriminated union's tag, not a key of the file
        parts.append(("." if parts else "") + str(item))
        node = node.get(item) if isinstance(node, dict) else None
    return "".join(parts)


def _describe(err: dict[str, Any]) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    if kind == "union_tag_invalid":
        return f"type {err['ctx']['tag']!r} is not one of {err['ctx']['expected_tags']}"
    msg = msg.removeprefix("Value error, ")
    got = err.get("input")
    if kind.endswith(("_type", "_parsing")) or kind.startswith("literal"):
        # A value can be a secret pasted into the wrong key, however short: quote numbers and booleans only,
        # and say what else it was.
        if isinstance(got, bool | int | float):
            shown = repr(got)
        elif isinstance(got, str):
            shown = f"a string of {len(got)} character{'s' if len(got) != 1 else ''}"
        else:
            shown = type(got).__name__
        return f"{msg} (got {shown})"
    return msg


# Keys that moved when the config sections were made to match the folders: old path → new path.
_MOVED = {
    "brain.triage": "director.triage",
    "brain.talk": "director.talk",
    "brain.operator": "director.operator",
    "brain.moderation": "moderation",
    "brain.audit": "audit",
    "brain.cache.redis_url": "redis_url (or daemon.redis_url)",
    "voice.cache.redis_url": "redis_url (or daemon.redis_url)",
    # one embeddings model for the KB, the cache and intent (brain.embed: {backend: local, model_path: …})
    "brain.cache.embed_model_path": "brain.embed.model_path (with brain.embed.backend: local)",
    "brain.kb.dense_model_path": "brain.embed.model_path (with brain.embed.backend: local)",
    "brain.cache.embed_device": "brain.embed.device",
    "brain.kb.dense_device": "brain.embed.device",
}


def _old_keys(data: dict[str, Any], file: str | os.PathLike[str]) -> None:
    """An old key is a hard error that names its new place, not a silently ignored setting."""
    rooms = data.get("rooms")
    for i, room in enumerate(rooms if isinstance(rooms, list) else []):
        if not isinstance(room, dict):
            continue
        for old, new in _MOVED.items():
            node: Any = room
            for part in old.split("."):
                node = node.get(part, _MISSING) if isinstance(node, dict) else _MISSING
            if node is not _MISSING:
                raise ConfigError(file, f"rooms[{i}].{old}", f"this key moved: write it as rooms[{i}].{new}")


_MISSING = object()


def parse_config(data: Any, file: str | os.PathLike[str] = "<config>", *, check_files: bool = True) -> Config:
    """Validates loaded YAML; with check_files, every file and folder the config names must be there now."""
    if not isinstance(data, dict):
        raise ConfigError(file, "", "expected a mapping with 'rooms' (and optionally 'daemon')")
    _old_keys(data, file)
    data = _substitute(data, str(file), "")
    path = Path(file)
    # Not resolved: a Kubernetes ConfigMap file is a link into a ..<timestamp> folder the kubelet deletes at the
    # next edit; relative paths must stay under the folder the operator named.
    context = {"base_dir": Path(os.path.abspath(path)).parent} if path.is_file() else None
    try:
        config = Config.model_validate(data, context=context)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(file, _key_path(first["loc"], data), _describe(first)) from None
    except RecursionError:  # a file cannot get here (see load_yaml's limits); a dict built in code may
        raise ConfigError(file, "", f"nested more than {MAX_DEPTH} levels deep") from None
    if check_files:
        check_paths(config, file)
    for room in config.rooms:
        room.note_files()
    return config


# -- named files and folders ------------------------------------------------------------------------------

# Paths the daemon writes: created when needed, so they need not exist (broadcaster/paths.py tries whether they
# can be written). Every other Path in the config is something to read and must exist.
_CREATED: frozenset[tuple[str, str]] = frozenset({
    ("RecordOutput", "path"),
    ("AuditConfig", "path"),
    ("DaemonConfig", "state_dir"),
    ("VoiceConfig", "embeddings_dir"),
    ("ServicesConfig", "socket_dir"),
})


def _unreadable(path: Path, key: str) -> str | None:
    """Why `path` (named by `key`) cannot be read, or None when it can."""
    full = path.expanduser()
    want_dir = key == "dir" or key.endswith("_dir")
    try:
        if not full.exists():
            return f"{'folder' if want_dir else 'file'} {str(full)!r} does not exist"
        if want_dir and not full.is_dir():
            return f"{str(full)!r} is not a folder"
        if not os.access(full, os.R_OK | (os.X_OK if full.is_dir() else 0)):
            return f"{str(full)!r} cannot be read"
    except OSError as exc:  # a name too long, a loop of links
        return f"{str(full)!r} cannot be read: {exc.strerror or exc}"
    return None


def _named_paths(config: Any, prefix: str = "") -> Iterator[tuple[str, str, Path]]:
    """(key path, field name, path) for every Path the model names for reading (not those the daemon writes)."""
    if isinstance(config, list | tuple):
        for i, item in enumerate(config):
            yield from _named_paths(item, f"{prefix}[{i}]")
        return
    if not isinstance(config, BaseModel):
        return
    for name in type(config).model_fields:
        if (type(config).__name__, name) in _CREATED:
            continue
        value = getattr(config, name)
        key = f"{prefix}.{name}" if prefix else name
        items = list(enumerate(value)) if isinstance(value, list | tuple) else [(None, value)]
        for i, item in items:
            where = key if i is None else f"{key}[{i}]"
            if isinstance(item, Path):
                yield where, name, item
            elif isinstance(item, BaseModel):
                yield from _named_paths(item, where)


def check_paths(config: BaseModel, file: str | os.PathLike[str] = "<config>", prefix: str = "") -> None:
    """Walks the validated model: every Path it names for reading (talk track, words file, KB dir, replay
    file, portrait, fonts, models, FAQ files…) must exist now. ConfigError names the first that does not."""
    for where, name, path in _named_paths(config, prefix):
        problem = _unreadable(path, name)
        if problem is not None:
            raise ConfigError(file, where, problem)


_MAX_FOLDER_FILES = 10_000


def _file_state(path: Path) -> tuple[Any, ...]:
    """Size and modification time of a file, or of every file under a folder (hidden ones skipped, as the
    KB skips them), so an edit in place shows. Links are followed: a ConfigMap's files are links."""
    full = path.expanduser()
    try:
        if full.is_dir():
            out: list[tuple[str, int, int]] = []
            for p in sorted(full.rglob("*")):
                rel = p.relative_to(full)
                if any(part.startswith(".") for part in rel.parts) or not p.is_file():
                    continue
                st = p.stat()
                out.append((rel.as_posix(), st.st_size, st.st_mtime_ns))
                if len(out) >= _MAX_FOLDER_FILES:
                    break
            return (str(path), tuple(out))
        st = full.stat()
        return (str(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return (str(path), None)


# -- reading the file -------------------------------------------------------------------------------------

MAX_FILE_BYTES = 1 << 20  # a config of hundreds of rooms is well under this; anything bigger is a mistake
MAX_DEPTH = 32  # real configs nest about 6 levels
MAX_VALUES = 100_000  # values the file stands for with its aliases expanded (an alias bomb: billions)


class _Refused(Exception):
    def __init__(self, where: str, problem: str):
        super().__init__(problem)
        self.where, self.problem = where, problem


class _LimitedLoader(yaml.SafeLoader):
    """The safe loader, composing no deeper than MAX_DEPTH. The composer recurses, so this is also what
    keeps a deeply nested file from ending in a RecursionError."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _Refused(f"line {mark.line + 1} column {mark.column + 1}",
                               f"nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _at(node: yaml.Node) -> str:
    return f"line {node.start_mark.line + 1} column {node.start_mark.column + 1}"


def _expanded_shape(root: yaml.Node) -> tuple[int, int]:
    """(values, depth) of the document with every alias expanded, worked out without expanding (each shared
    node once, memoized): chained aliases nest deeper than the text shows. A node inside itself (a recursive
    alias) is refused."""
    shapes: dict[int, tuple[int, int]] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]  # iterative: aliases may chain past any depth limit
    while stack:
        node, done = stack.pop()
        if done:
            kids = [shapes[id(c)] for c in _children(node)]
            shapes[id(node)] = (min(1 + sum(k[0] for k in kids), MAX_VALUES + 1),
                                min(1 + max((k[1] for k in kids), default=0), MAX_DEPTH + 1))
            open_.discard(id(node))
            continue
        if id(node) in shapes:
            continue
        open_.add(id(node))
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_:
                raise _Refused(_at(child), "an alias refers to the node it is in (recursion)")
            if id(child) not in shapes:
                stack.append((child, False))
    return shapes[id(root)]


def load_yaml(p: Path) -> Any:
    """Reads and parses a config file within the limits; ConfigError (one line) for anything refused."""
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)  # never more: /dev/zero or a huge file costs at most this
    except FileNotFoundError:
        raise ConfigError(p, "", "file not found") from None
    except OSError as exc:
        raise ConfigError(p, "", f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(p, "", f"larger than {MAX_FILE_BYTES // 1024} KiB: not a config file")
    if b"\0" in raw:
        raise ConfigError(p, "", "not a text file (it holds NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(p, "", f"not UTF-8 text (byte {exc.start})") from None
    loader = _LimitedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        values, depth = _expanded_shape(node)
        if values > MAX_VALUES:
            raise _Refused("", f"its aliases expand to more than {MAX_VALUES} values (an alias bomb?)")
        if depth > MAX_DEPTH:
            raise _Refused("", f"its aliases nest more than {MAX_DEPTH} levels deep")
        return loader.construct_document(node)
    except _Refused as exc:
        raise ConfigError(p, exc.where, exc.problem) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise ConfigError(p, where, f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    except RecursionError:  # the limits above should make this unreachable; never a 3,000-line traceback
        raise ConfigError(p, "", f"nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def load_config(path: str | os.PathLike[str]) -> Config:
    p = Path(path)
    return parse_config(load_yaml(p), p)


def dump_redacted(config: Config) -> str:
    """The resolved config as YAML with every secret hidden (stream keys, tokens, cookies)."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
