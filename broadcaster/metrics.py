"""Every Prometheus metric the daemon exports, in one place, labelled by room; one scrape across room workers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from broadcaster import gpu_metrics as _gpu_metrics
from danmaku import metrics as _danmaku_metrics

REGISTRY = CollectorRegistry(auto_describe=True)

_MS = (0.001, 0.002, 0.004, 0.006, 0.008, 0.012, 0.016, 0.025, 0.04, 0.08, 0.16)
_LATENCY = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)

# Media clock and stage
FRAMES = Counter("va_frames", "Video frames emitted by the media clock", ["room"], registry=REGISTRY)
LATE_FRAMES = Counter(
    "va_late_frames", "Frames whose render was skipped (last frame repeated) because the clock was late",
    ["room"], registry=REGISTRY,
)
RENDER_SECONDS = Histogram("va_render_seconds", "Time to render one frame", ["room"], buckets=_MS, registry=REGISTRY)
ENCODE_SECONDS = Histogram(
    "va_encode_seconds", "Time to encode one frame (video + its audio)", ["room"], buckets=_MS, registry=REGISTRY
)
AV_OFFSET = Gauge(
    "va_av_offset_seconds", "Audio end minus video end of what was handed to the encoder", ["room"], registry=REGISTRY
)
CLOCK_LAG = Gauge("va_clock_lag_seconds", "How far the media clock is behind wall time", ["room"], registry=REGISTRY)
CLOCK_LAST_TICK = Gauge(
    "va_clock_last_tick_timestamp_seconds", "Wall time of the last media clock tick", ["room"], registry=REGISTRY
)
STAGE_QUEUE = Gauge("va_stage_queue_utterances", "Utterances waiting on the stage", ["room"], registry=REGISTRY)
SPEAKING = Gauge("va_speaking", "1 while the anchor is speaking", ["room"], registry=REGISTRY)

# Sinks
SINK_CONNECTED = Gauge("va_sink_connected", "1 while the sink is connected/open", ["room", "sink"], registry=REGISTRY)
SINK_RECONNECTS = Counter("va_sink_reconnects", "Sink reconnect attempts", ["room", "sink"], registry=REGISTRY)
SINK_BYTES = Counter("va_sink_bytes", "Payload bytes written by a sink", ["room", "sink"], registry=REGISTRY)
SINK_DROPPED = Counter(
    "va_sink_dropped_packets", "Packets a sink dropped (queue over limit or disconnected)",
    ["room", "sink", "kind"], registry=REGISTRY,
)
SINK_QUEUE = Gauge("va_sink_queue_seconds", "Media queued in a sink", ["room", "sink"], registry=REGISTRY)
SINK_FAULTS = Counter(
    "va_sink_faults", "Failed attempts of a recording to open or write its file, by reason (disk_full, deleted, …)",
    ["room", "sink", "reason"], registry=REGISTRY,
)

# Chat and decisions
DROPS = Counter("va_drops", "Lines or events dropped, by reason", ["room", "reason"], registry=REGISTRY)
QUEUE_DEPTH = Gauge("va_line_queue_depth", "Lines waiting in the director's queue", ["room"], registry=REGISTRY)
ANSWER_LATENCY = Histogram(
    "va_answer_latency_seconds",
    "Comment received to first audible sample handed to the sinks, less the wait for a sentence boundary",
    ["room", "source"], buckets=_LATENCY, registry=REGISTRY,
)
ANSWER_BOUNDARY_WAIT = Histogram(
    "va_answer_boundary_wait_seconds", "Time an answer waited for the sentence being spoken to end",
    ["room"], buckets=_LATENCY, registry=REGISTRY,
)
CACHE_HITS = Counter("va_cache_hits", "Cache hits", ["room", "cache"], registry=REGISTRY)
CACHE_MISSES = Counter("va_cache_misses", "Cache misses", ["room", "cache"], registry=REGISTRY)
LLM_TTFT = Histogram(
    "va_llm_time_to_first_token_seconds", "LLM time to first token", ["room", "backend"],
    buckets=_LATENCY, registry=REGISTRY,
)
LLM_ERRORS = Counter("va_llm_errors", "LLM failures by kind", ["room", "backend", "kind"], registry=REGISTRY)
TTS_RTF = Histogram(
    "va_tts_real_time_factor", "TTS synthesis time divided by audio duration", ["room", "backend"],
    buckets=(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0), registry=REGISTRY,
)
TTS_FALLBACKS = Counter(
    "va_tts_fallbacks", "Sentences the TTS backend failed (error or timeout), by what happened to them",
    ["room", "backend", "outcome"], registry=REGISTRY,
)
TTS_FIRST_CHUNK = Histogram(
    "va_tts_first_chunk_seconds", "Time from synthesis start to the backend's first audio chunk",
    ["room", "backend"], buckets=_LATENCY, registry=REGISTRY,
)
DEVICE_FALLBACKS = Counter(
    "va_device_fallbacks", "Model components that asked for a GPU and run on the CPU instead",
    ["room", "component"], registry=REGISTRY,
)
FACE_FRAMES = Counter(
    "va_face_frames", "Neural face frames the face service delivered in time to a room", ["room"], registry=REGISTRY,
)
FACE_FRAMES_LATE = Counter(
    "va_face_frames_late", "Neural face frames that came after their frame was drawn, or never (the mouth held)",
    ["room"], registry=REGISTRY,
)
FACE_FALLBACKS = Counter(
    "va_face_fallback_utterances", "Utterances of a neural avatar drawn whole by the CPU portrait, by why: late "
    "(first frames not there within the hold), service (down or killed), device (out of memory, driver), down "
    "(after a failure, until the retry)", ["room", "reason"], registry=REGISTRY,
)
FACE_HOLD = Histogram(
    "va_face_hold_seconds", "How long the stage held an utterance's start for its first neural face frames",
    ["room"], buckets=(0.0, 0.02, 0.04, 0.08, 0.12, 0.16, 0.24, 0.5), registry=REGISTRY,
)
ASR_UTTERANCES = Counter("va_asr_utterances", "Voice input utterances transcribed", ["room"], registry=REGISTRY)
ASR_RTF = Histogram(
    "va_asr_real_time_factor", "ASR time divided by audio duration", ["room"],
    buckets=(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0), registry=REGISTRY,
)
EMBED_AVAILABLE = Gauge("va_embed_available", "1 while the room's embeddings backend is loaded and answering",
                        ["room", "backend"], registry=REGISTRY)
EMBED_FAILURES = Counter("va_embed_failures", "Embeddings backend load or call failures (the room runs by words)",
                         ["room", "backend"], registry=REGISTRY)
EMBED_SECONDS = Histogram("va_embed_seconds", "One embeddings call, by role (query: a viewer's text; passage: facts)",
                          ["room", "role"], buckets=(*_MS, 0.3, 1.0), registry=REGISTRY)
SILENCES = Counter("va_silences", "Comments that got no line, by why (not understood, off-topic, unsafe reading …)",
                   ["room", "reason"], registry=REGISTRY)
MODERATION_BLOCKS = Counter(
    "va_moderation_blocks", "Texts blocked by moderation", ["room", "stage"], registry=REGISTRY
)
# The moderation judge (broadcaster/brain/judge.py): a chat model asked about comments the rules passed.
JUDGE_VERDICTS = Counter("va_judge_verdicts", "Judge verdicts on comments, by outcome: pass, flagged, error and late "
                         "(the comment fails closed), skipped (the circuit is open)", ["room", "outcome"],
                         registry=REGISTRY)
JUDGE_FLAGS = Counter("va_judge_flags", "Comments the judge flagged, by category", ["room", "category"],
                      registry=REGISTRY)
JUDGE_SECONDS = Histogram("va_judge_seconds", "One judge request (a batch of comments)", ["room"],
                          buckets=(0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0),
                          registry=REGISTRY)
JUDGE_WAIT = Histogram("va_judge_wait_seconds", "How long a line's first sentence, ready, waited for the verdict",
                       ["room"], buckets=(0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5),
                       registry=REGISTRY)
JUDGE_OPEN = Gauge("va_judge_open", "1 while the judge's circuit is open: the room runs on rules and the posture of "
                   "silence alone", ["room"], registry=REGISTRY)
# Talk track (director/talk.py, variants.py, paraphrase.py): what keeps a 24/7 room from sounding like a replay.
TALK_REPEATS = Counter("va_talk_repeats", "Talk, thanks and reply lines that said a sentence again inside the "
                       "repeat window (the material ran out)", ["room"], registry=REGISTRY)
TALK_DISTINCT_HOUR = Gauge("va_talk_distinct_sentences_hour", "Distinct talk sentences (slots masked) said in the "
                           "last hour", ["room"], registry=REGISTRY)
TALK_REPEATS_WINDOW = Gauge("va_talk_repeats_in_window", "Sentences said again inside the current repeat window",
                            ["room"], registry=REGISTRY)
PARAPHRASES_WAITING = Gauge("va_talk_paraphrases_waiting", "Checked paraphrases ready and not yet said, plus "
                            "lines waiting to be paraphrased", ["room", "state"], registry=REGISTRY)
PARAPHRASES_REJECTED = Counter("va_talk_paraphrases_rejected", "Paraphrases the guard or moderation refused, by why",
                               ["room", "reason"], registry=REGISTRY)

# Sources: the chat connectors keep their metrics (va_events, va_source_*) on danmaku's own registry; one
# scrape shows both.
REGISTRY.register(_danmaku_metrics.REGISTRY)

# Process
PROCESS_RSS = Gauge("va_process_resident_memory_bytes", "Resident memory of the daemon", registry=REGISTRY)
ROOMS_ON_AIR = Gauge("va_rooms_on_air", "Rooms whose media clock is running", registry=REGISTRY)

# Room workers (the daemon's own series; each worker's room series come from the worker, see exposition())
WORKER_RESTARTS = Counter(
    "va_worker_restarts", "Room worker restarts, by why: exit (crashed, killed), hang (no clock progress or "
    "heartbeat), memory (over the limit), start (could not go on air again)", ["room", "reason"], registry=REGISTRY,
)
WORKER_RSS = Gauge("va_worker_resident_memory_bytes", "Resident memory of a room's worker process", ["room"],
                   registry=REGISTRY)

# Whole-service figures the daemon works out over all workers; a worker's own value of them is not merged.
# The host's GPUs (broadcaster.gpu_metrics) are the daemon's alone too: one exporter per host.
DAEMON_WIDE = frozenset({"va_process_resident_memory_bytes", "va_rooms_on_air", *_gpu_metrics.FAMILIES})


class _Families:
    def __init__(self, families: Iterable[Metric]):
        self._families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


def exposition(worker_texts: Iterable[str]) -> bytes:
    """The daemon's registry with every worker's exposition merged in: same names, same labels as when every
    room ran in the daemon, each family once (its samples from all rooms), so dashboards and alerts keep working."""
    merged: dict[str, Metric] = {}
    for family in REGISTRY.collect():
        merged[family.name] = family
    for family in _gpu_metrics.HOST.collect():
        merged[family.name] = family
    for text in worker_texts:
        for family in text_string_to_metric_families(text):
            if family.name in DAEMON_WIDE:
                continue
            have = merged.get(family.name)
            if have is None and family.type == "gauge" and family.name.endswith("_created"):
                # The text parser files a counter's or histogram's `_created` series apart; put them back.
                base = merged.get(family.name.removesuffix("_created"))
                if base is not None and base.type in ("counter", "histogram", "summary"):
                    have = base
            if have is None:
                merged[family.name] = family
            else:
                have.samples.extend(family.samples)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(merged.values()))  # type: ignore[arg-type]
    return generate_latest(registry)
