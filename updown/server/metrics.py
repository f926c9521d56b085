"""``GET /metrics`` in the Prometheus text format (prometheus-client), one set per server process.

Counters and histograms are the process's; the gauges (connections, tables by status) are read
from the hub when the page is asked for. Names start with ``updown_``; docs/hosting.md says what to
watch."""

from __future__ import annotations

from collections import Counter as Tally

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, Histogram, generate_latest

ACTIONS = Counter("updown_actions", "Actions stored, by who made them (player, bot, stand-in, leave, chance)",
                  ["by"])
ACK_SECONDS = Histogram("updown_action_ack_seconds", "From a player's action message to its ack (stored first)",
                        buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
BOT_SECONDS = Histogram("updown_bot_decision_seconds", "A bot's or stand-in's thinking time per decision",
                        buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
WRITE_SECONDS = Histogram("updown_db_write_seconds", "Storing a table's steps (one transaction, or a group)",
                          buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5))
LIMITED = Counter("updown_limited", "Requests and messages refused by a limit", ["limit"])
CONNECTIONS = Gauge("updown_connections", "Open table WebSockets of this process", ["role"])
TABLES = Gauge("updown_tables", "Tables this process holds in memory, by status", ["status"])
SERVICE_UP = Gauge("updown_service_up", "1 while this process reaches the service (database, redis), 0 while not",
                   ["service"])
GC_SECONDS = Histogram("updown_gc_seconds", "The garbage collector's pauses (the whole process waits), by generation "
                       "(2: a full collection; gcpolicy.py)", ["generation"],
                       buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
GC_FROZEN = Gauge("updown_gc_frozen_objects", "Objects the garbage collector's full collections skip (frozen: gcpolicy.py)")
OUTAGES = Gauge("updown_service_outages", "Times this process lost the service since it started", ["service"])


def page(hub: object) -> tuple[bytes, str]:
    """The metrics page, with the gauges read from ``hub`` now."""
    lives = list(getattr(hub, "lives", {}).values())
    statuses = Tally(live.status for live in lives)
    for status in ("open", "running", "finished", "aborted", "closed"):
        TABLES.labels(status).set(statuses.get(status, 0))
    seated = sum(1 for live in lives for c in live.conns if c.key >= 0)
    watching = sum(1 for live in lives for c in live.conns if c.key < 0)
    CONNECTIONS.labels("player").set(seated)
    CONNECTIONS.labels("spectator").set(watching)
    health = getattr(hub, "health", None)
    if health is not None:
        services = ["database", *(["redis"] if getattr(hub, "multi", False) else [])]
        for service in services:
            SERVICE_UP.labels(service).set(0 if health.is_down(service) else 1)
            OUTAGES.labels(service).set(health.outages.get(service, 0))
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
