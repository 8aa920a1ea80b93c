"""The shared-service mechanism with a real service process (tests.services.support) supervised by HostServices:
one process for every client, batches across clients, shared memory for arrays, isolation of a bad request,
deadlines, and a kill -9 that fails the request in flight at once and is followed by a restart."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from prometheus_client import generate_latest

from broadcaster import metrics
from broadcaster.config import Config
from broadcaster.services import HostServices, ServiceClient, ServiceError, ServiceUnavailable, socket_path
from broadcaster.services.config import ServicesConfig
from broadcaster.services.protocol import Arena, ArenaFull
from tests.services.support import echo_spec, until

PROVIDERS = ["tests.services.support:specs"]


@pytest.fixture
async def services() -> AsyncIterator[HostServices]:
    cfg = Config.model_validate({"rooms": [{"id": "a"}]})
    # Batches wait up to 200 ms for company: enough for three clients' requests to meet on a loaded machine.
    hs = HostServices(cfg, providers=PROVIDERS, cfg=ServicesConfig(
        batch={"max_batch": 16, "max_wait_ms": 200}, restart_backoff_s=0.2, stats_interval_s=0.2, arena_mb=16))
    await hs.start()
    try:
        await hs.wait_ready(60)
        yield hs
    finally:
        await hs.stop()


def _clients(hs: HostServices, n: int) -> list[ServiceClient]:
    assert hs.dir is not None
    return [ServiceClient(socket_path(hs.dir, echo_spec(tag="t")), name=f"room{i}") for i in range(n)]


async def test_rooms_share_one_process_and_meet_in_one_batch(services: HostServices) -> None:
    clients = _clients(services, 3)
    for c in clients:  # connected first, so the three requests leave together
        await c.connect()
    x = np.arange(6, dtype=np.float32)
    replies = await asyncio.gather(*(c.call({"scale": i + 1, "parts": 1}, [x]) for i, c in enumerate(clients)))
    # One process, one load, answered per client: each got its own scaling back (after its streamed part).
    assert len({c.welcome["pid"] for c in clients}) == 1 and all(c.welcome["loads"] == 1 for c in clients)
    for i, r in enumerate(replies):
        assert np.array_equal(r.outputs[-1], x * (i + 1)) and r.meta["client"] == f"room{i}"
        assert np.array_equal(r.outputs[0], np.zeros(4, np.float32)), "the partial answer came first"
    assert {r.batch["seq"] for r in replies} == {replies[0].batch["seq"]}, "all three ran in one batch"
    assert replies[0].batch == {"seq": replies[0].batch["seq"], "size": 3, "items": 3, "clients": 3}
    stats = await clients[0].stats()
    assert any(set(b["clients"]) == {"room0", "room1", "room2"} for b in stats["recent"]), stats["recent"]
    # max_batch counts items (e.g. frames), not requests: 10 + 10 + 6 items never share one batch of 16.
    heavy = await asyncio.gather(*(c.call({}, [x], items=n) for c, n in zip(clients, (10, 10, 6), strict=True)))
    assert len({r.batch["seq"] for r in heavy}) == 2 and all(r.batch["items"] <= 16 for r in heavy), heavy
    for c in clients:
        await c.close()


async def test_arrays_go_through_shared_memory_not_the_socket(services: HostServices) -> None:
    (c,) = _clients(services, 1)
    big = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)  # 4 MB in, 4 MB out
    r = await c.call({"scale": 2.0}, [big])
    assert np.allclose(r.outputs[0], big * 2.0)
    assert c.socket_bytes < 4096, f"{c.socket_bytes} bytes came over the socket for a 4 MB answer"
    # The blocks were given back on both sides: a long-running room does not fill its arenas.
    conn = c._conn
    assert conn is not None and conn.inputs.used_bytes == 0
    for _ in range(6):  # 6 × 4 MB each way through 16 MiB arenas
        await c.call({"scale": 1.0}, [big])
    await c.close()


async def test_a_bad_request_fails_alone_and_a_late_one_is_not_run(services: HostServices) -> None:
    a, b, c = _clients(services, 3)
    x = np.ones(3, np.float32)
    results = await asyncio.gather(a.call({"scale": 2}, [x]), b.call({"fail": True}, [x]), c.call({"scale": 3}, [x]),
                                   return_exceptions=True)
    assert np.array_equal(results[0].outputs[0], x * 2) and np.array_equal(results[2].outputs[0], x * 3)
    assert isinstance(results[1], ServiceError) and "poisoned" in str(results[1])
    stats = await a.stats()
    assert stats["batch_retries"] == 1 and stats["failed"] == 1
    # A service bug in one answer (object arrays) fails that request alone; numpy scalars in meta are fine.
    bad, good = await asyncio.gather(b.call({"objects": True}, [x]), c.call({}, [x]), return_exceptions=True)
    assert isinstance(bad, ServiceError) and "cannot cross" in str(bad) and good.meta["np_meta"] == 0.5
    # A request whose deadline passes while the model is busy with someone else's is answered without running.
    batches = (await a.stats())["batches"]
    slow = asyncio.create_task(a.call({"sleep_ms": 1500}, [x]))
    while (await c.stats())["batches"] == batches:  # until the slow one runs
        await asyncio.sleep(0.02)
    with pytest.raises(TimeoutError):
        await b.call({"scale": 1}, [x], timeout_s=0.2)
    await slow
    for _ in range(100):  # b's request is answered right after the slow batch
        stats = await a.stats()
        if stats["late"] + stats["cancelled"]:
            break
        await asyncio.sleep(0.05)
    assert stats["late"] + stats["cancelled"] == 1 and stats["batches"] == batches + 1, "b's request never ran"
    assert np.array_equal((await b.call({"scale": 5}, [x])).outputs[0], x * 5), "the client still works"
    for cl in (a, b, c):
        await cl.close()


@pytest.mark.slow
async def test_kill_9_fails_the_request_in_flight_and_the_service_comes_back(services: HostServices) -> None:
    (svc,) = services.services.values()
    (c,) = _clients(services, 1)
    x = np.ones(3, np.float32)
    await c.call({}, [x])
    old_pid = c.welcome["pid"]
    assert svc.pid == old_pid
    in_flight = asyncio.create_task(c.call({"sleep_ms": 30_000}, [x], timeout_s=60))
    await until(lambda: svc.stats.get("requests", 0) >= 2, 10, "the request to reach the service")
    os.kill(old_pid, signal.SIGKILL)
    # It fails because the service died (ServiceUnavailable), not by its 60 s timeout.
    with pytest.raises(ServiceUnavailable, match="went away"):
        await in_flight
    # Restarted by the supervisor; the same client reconnects on its next request.
    await until(lambda: svc.restarts == 1 and svc.pid not in (None, old_pid), 60, "the restart")
    await svc.wait_ready(60)
    r = await c.call({"scale": 4}, [x], timeout_s=30)
    assert np.array_equal(r.outputs[0], x * 4)
    assert c.connects == 2 and c.welcome["pid"] != old_pid and c.welcome["loads"] == 1
    text = generate_latest(metrics.REGISTRY).decode()
    name = svc.spec.name
    assert f'va_service_restarts_total{{service="{name}"}} 1.0' in text
    assert f'va_service_up{{kind="echo",service="{name}"}} 1.0' in text
    assert f'va_service_batch_size_count{{service="{name}"}}' in text
    assert f'va_service_gauge{{name="model_bytes",service="{name}"}} 1234.0' in text
    await c.close()


async def test_one_busy_room_does_not_starve_another() -> None:
    cfg = Config.model_validate({"rooms": [{"id": "a"}]})
    hs = HostServices(cfg, providers=PROVIDERS, cfg=ServicesConfig(batch={"max_batch": 2, "max_wait_ms": 0}))
    await hs.start()
    try:
        await hs.wait_ready(60)
        busy, quiet = _clients(hs, 2)
        x = np.ones(2, np.float32)
        flood = [asyncio.create_task(busy.call({"sleep_ms": 100}, [x])) for _ in range(12)]
        while (await quiet.stats())["batches"] < 1:  # the busy room's backlog is queued and being worked off
            await asyncio.sleep(0.01)
        mine = await quiet.call({}, [x])
        theirs = [(await t).batch["seq"] for t in flood]
        # Round-robin across clients: the quiet room's request joins the next batch and overtakes the busy
        # room's queued requests; first-come-first-served would run it after all twelve.
        assert sum(1 for s in theirs if s > mine.batch["seq"]) >= 2, (mine.batch, theirs)
        for c in (busy, quiet):
            await c.close()
    finally:
        await hs.stop()


async def test_a_hung_service_is_killed_and_restarted() -> None:
    cfg = Config.model_validate({"rooms": [{"id": "a"}]})
    hs = HostServices(cfg, providers=PROVIDERS, cfg=ServicesConfig(hang_s=1.0, stats_interval_s=0.2,
                                                                   restart_backoff_s=0.2))
    await hs.start()
    try:
        await hs.wait_ready(60)
        (svc,) = hs.services.values()
        (c,) = _clients(hs, 1)
        with pytest.raises(ServiceUnavailable):  # a model stuck for 10 min: its request fails when it is killed
            await c.call({"sleep_ms": 600_000}, [np.ones(2, np.float32)], timeout_s=600)
        assert svc.hangs == 1
        await until(lambda: svc.restarts == 1, 60, "the restart")
        await svc.wait_ready(60)
        assert np.array_equal((await c.call({"scale": 2}, [np.ones(2, np.float32)])).outputs[0], np.full(2, 2.0))
        await c.close()
    finally:
        await hs.stop()


async def test_no_service_fails_fast_with_a_clear_error(tmp_path: Path) -> None:
    c = ServiceClient(tmp_path / "none.sock", connect_timeout_s=0.2)
    with pytest.raises(ServiceUnavailable, match="no service at"):
        await c.call({}, [])


def test_arena_allocator_reuses_freed_space() -> None:
    a = Arena(1 << 16)
    try:
        offs = [a.alloc(1000) for _ in range(60)]
        with pytest.raises(ArenaFull):
            a.alloc(8192)
        for off in offs[10:30]:
            a.free(off)
        assert a.alloc(8192) == offs[10], "freed neighbours coalesce into one block"
        with pytest.raises(ArenaFull) as exc:
            a.alloc(1 << 17)
        assert exc.value.never
    finally:
        a.close()


def test_socket_dir_too_long_is_refused() -> None:
    with pytest.raises(ValueError, match="108 bytes"):
        ServicesConfig(socket_dir=Path("/" + "x" * 100))
