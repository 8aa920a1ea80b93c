"""sd_notify over a real AF_UNIX datagram socket set as NOTIFY_SOCKET (path and abstract forms)."""

from __future__ import annotations

import os

import pytest

from broadcaster.sdnotify import Notifier, watchdog_interval


def test_ready_status_watchdog_stopping_reach_a_path_socket(notify_socket, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket.env_value)
    n = Notifier()
    assert n.enabled
    assert n.ready("2 rooms on air")
    assert n.watchdog()
    assert n.status("room a stalled\nREADY=1")  # a newline must not forge a second field
    assert n.stopping()
    got = notify_socket.messages(timeout=1.0)
    assert got == [
        {"READY": "1", "STATUS": "2 rooms on air"},
        {"WATCHDOG": "1"},
        {"STATUS": "room a stalled READY=1"},
        {"STOPPING": "1"},
    ]
    n.close()


def test_abstract_socket_name_with_at_sign(abstract_notify_socket, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", abstract_notify_socket.env_value)
    assert abstract_notify_socket.env_value.startswith("@")
    n = Notifier()
    assert n.ready()
    assert abstract_notify_socket.messages(timeout=1.0) == [{"READY": "1"}]


def test_without_systemd_nothing_is_sent(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    n = Notifier()
    assert not n.enabled
    assert n.ready() is False
    assert n.watchdog() is False


def test_a_vanished_socket_does_not_raise(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))
    n = Notifier()
    assert n.enabled
    assert n.watchdog() is False


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"WATCHDOG_USEC": "30000000"}, 30.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 30.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),  # meant for another process
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "junk"}, None),
        ({}, None),
    ],
)
def test_watchdog_interval_from_environment(env, expected):
    assert watchdog_interval(env) == expected
