"""The chat sources' Prometheus metrics, on danmaku's own registry (the daemon exports it beside its own)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge

# The daemon registers this registry into its own (broadcaster/metrics.py), so one scrape shows both; danmaku
# itself knows nothing of the daemon.
REGISTRY = CollectorRegistry(auto_describe=True)

EVENTS = Counter("va_events", "Chat events received", ["room", "platform", "kind"], registry=REGISTRY)
SOURCE_UP = Gauge("va_source_up", "1 while a chat source is connected and healthy", ["room", "source"], registry=REGISTRY)
SOURCE_LAST_MESSAGE_AGE = Gauge(
    "va_source_last_message_age_seconds", "Seconds since a chat source delivered a message", ["room", "source"],
    registry=REGISTRY,
)
SOURCE_RECONNECTS = Counter("va_source_reconnects", "Chat source reconnects", ["room", "source"], registry=REGISTRY)
SOURCE_DECODE_ERRORS = Counter(
    "va_source_decode_errors", "Undecodable packets by kind", ["room", "source", "kind"], registry=REGISTRY
)
SOURCE_DROPPED_EVENTS = Counter(
    "va_source_dropped_events", "Events a source dropped because its consumer fell behind (oldest first)",
    ["room", "source"], registry=REGISTRY,
)
# Source groups (failover between feeds of one room).
SOURCE_ACTIVE = Gauge(
    "va_source_active", "1 for the member a source group currently delivers from, 0 for its standbys",
    ["room", "group", "source"], registry=REGISTRY,
)
SOURCE_SWITCHES = Counter(
    "va_source_switches", "Source group switches, by the member switched to and why",
    ["room", "group", "to", "reason"], registry=REGISTRY,
)
SOURCE_CROSS_FEED_DUPLICATES = Counter(
    "va_source_cross_feed_duplicates", "Events a source group dropped as already delivered by another member",
    ["room", "group"], registry=REGISTRY,
)
MONEY_UNRATED = Counter(
    "va_money_unrated_events", "Paid events whose unit had no rate (valued at money.unrated_value)",
    ["room", "unit"], registry=REGISTRY,
)
SOURCE_QUOTA_LEFT = Gauge(
    "va_source_quota_left", "API quota units a chat source has left today (YouTube)", ["room", "source"],
    registry=REGISTRY,
)
SOURCE_RATE_LIMITED = Counter(
    "va_source_rate_limited", "Times a chat source's platform refused it for quota or rate (by reason)",
    ["room", "source", "reason"], registry=REGISTRY,
)
