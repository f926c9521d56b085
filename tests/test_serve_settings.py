"""``updown serve`` as a host meets it: settings from flags, environment and a TOML file in that
order; every start-up failure one line with its own exit code, before anything is served; the
addresses printed once the port is bound; the log (levels, JSON lines, table events); forwarded
client addresses believed only from the proxies the host names."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from server_util import Server, User, free_port, make_table
from updown.server.settings import Settings, SettingsError


def serve(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from updown.cli.app import main; main()", "serve", *args],
                          capture_output=True, text=True, timeout=timeout,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("UPDOWN_")}, **(env or {})})


# -- settings ------------------------------------------------------------------------------------
def test_a_flag_beats_the_environment_which_beats_the_file_which_beats_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("UPDOWN_")]:
        monkeypatch.delenv(key)
    config = tmp_path / "updown.toml"
    config.write_text('port = 7001\nbot_delay = 0.2\nhost = "0.0.0.0"\nlog_level = "debug"\n'
                      '[limits]\nhash_slots = 5\ntables_per_guest = "3/hour"\n')
    monkeypatch.setenv("UPDOWN_PORT", "7002")
    monkeypatch.setenv("UPDOWN_BOT_DELAY", "0.3")
    monkeypatch.setenv("UPDOWN_LIMITS__HASH_SLOTS", "6")
    s = Settings.load({"port": 7003, "bot_delay": None}, config)
    assert s.port == 7003  # flag
    assert s.bot_delay == 0.3 and s.limits.hash_slots == 6  # environment
    assert s.host == "0.0.0.0" and s.log_level == "debug" and s.limits.tables_per_guest == "3/hour"  # file
    assert s.sqlite_sync == "normal" and s.limits.login_per_name == "10/minute"  # defaults
    monkeypatch.setenv("UPDOWN_CONFIG", str(config))
    assert Settings.load({}).port == 7002
    monkeypatch.delenv("UPDOWN_PORT")
    assert Settings.load({}).port == 7001


@pytest.mark.parametrize("flags, env, words", [
    ({"port": 70000}, {}, "port"),
    ({"sqlite_sync": "sometimes"}, {}, "sqlite_sync"),
    ({}, {"UPDOWN_BOT_DELAY": "soon"}, "bot_delay"),
    ({}, {"UPDOWN_LIMITS__HASH_SLOTS": "0"}, "hash_slots"),
    ({}, {"UPDOWN_LIMITS__LOGIN_PER_NAME": "often"}, "login_per_name"),
])
def test_bad_settings_are_named(flags: dict[str, object], env: dict[str, str], words: str,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError, match=words):
        Settings.load(flags)


# -- start-up failures ---------------------------------------------------------------------------
# Each a fresh `updown serve` (about 2 s of CPU to import): one test each, so workers share them.
@pytest.mark.parametrize("case", ["bad port", "missing config", "bad limit", "missing folder", "mysql",
                                  "port taken", "no redis"])
def test_every_start_up_failure_is_one_line_with_its_own_exit_code(case: str, tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = str(taken.getsockname()[1])
    db = f"sqlite:///{tmp_path / 'ok.db'}"
    args, code, words = {
        "bad port": (["--port", "70000", "--db", db], 2, "port"),
        "missing config": (["--config", str(tmp_path / "missing.toml"), "--db", db], 2, "configuration file"),
        "bad limit": (["--limit", "hash_slots=none", "--db", db], 2, "hash_slots"),
        "missing folder": (["--db", f"sqlite:///{tmp_path / 'no' / 'such' / 'folder.db'}"], 4, "folder exists"),
        "mysql": (["--db", "mysql://root@127.0.0.1/x"], 4, "sqlite:///FILE"),
        "port taken": (["--db", db, "--port", port], 5, f"port {port}"),
        "no redis": (["--db", db, "--port", str(free_port()), "--redis", f"redis://127.0.0.1:{free_port()}/0"],
                     6, "Redis"),
    }[case]
    try:
        done = serve(*args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == code, (args, done.returncode, done.stderr[-500:])
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], (args, done.stderr)
        assert "server on" not in done.stdout  # nothing was said to be served
    finally:
        taken.close()


def test_it_says_where_it_serves_once_the_port_is_bound(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "from updown.cli.app import main; main()", "serve", "--port", "0",
                             "--db", f"sqlite:///{tmp_path / 'u.db'}", "--log-level", "warning"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("updown server on http://127.0.0.1:"), line
        address = line.split()[-1].rstrip("/")
        deadline = time.time() + 20
        while True:  # the port was bound before the line; the app answers once it has started
            try:
                if httpx.get(address + "/api/health", timeout=2).json()["ok"]:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(10)


# -- the log ---------------------------------------------------------------------------------------
def test_json_log_lines_with_table_events_and_the_access_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    srv = Server(f"sqlite:///{tmp_path / 'u.db'}", log=log,
                 extra_args=["--log-json", "--access-log", "--log-level", "info"]).start()
    try:
        alice = User(srv, "alice")
        table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"], grace=1)
        deadline = time.time() + 30
        while alice.get(f"/api/tables/{table['id']}").json()["status"] == "running":
            assert time.time() < deadline
            time.sleep(0.3)
    finally:
        srv.stop()
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    messages = [e["message"] for e in entries]
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(f"table {table['id']} created by alice" in m for m in messages)
    assert any(f"table {table['id']}" in m and "left" in m for m in messages)  # never connected: left
    assert any(e["logger"] == "uvicorn.access" and "/api/register" in e["message"] for e in entries)


# -- forwarded addresses ---------------------------------------------------------------------------
@pytest.mark.parametrize("trusted", [False, True])
def test_forwarded_addresses_are_believed_only_from_trusted_proxies(tmp_path: Path, trusted: bool) -> None:
    args = ["--limit", "login_per_address=2/minute", "--limit", "login_per_name=off"]
    if trusted:
        args += ["--trusted-proxies", "127.0.0.1"]
    srv = Server(f"sqlite:///{tmp_path / 'u.db'}", log=tmp_path / "server.log", extra_args=args).start()
    try:
        codes = []
        for client in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):  # three people behind the proxy, one try each
            r = httpx.post(srv.base + "/api/login", json={"name": "nobody", "password": "wrong-pass"},
                           headers={"X-Forwarded-For": client}, timeout=20)
            codes.append(r.status_code)
    finally:
        srv.stop()
    # Believed: three addresses, one attempt each. Ignored: one address (the proxy's), three attempts.
    assert codes == ([401, 401, 401] if trusted else [401, 401, 429]), codes


def test_the_hosting_guide_lists_every_setting_with_its_variable() -> None:
    from updown.server.settings import describe

    guide = (Path(__file__).resolve().parent.parent / "docs" / "hosting.md").read_text()
    for name, variable, _help in describe():
        assert f"| `{name}` | `{variable}" in guide, name


# -- metrics ---------------------------------------------------------------------------------------
def test_metrics_parse_and_move_as_games_are_played(tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    from server_util import play_out

    def read(srv: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        text = httpx.get(srv.base + "/metrics", timeout=10).text
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text) for s in family.samples}

    srv = Server(f"sqlite:///{tmp_path / 'u.db'}", log=tmp_path / "server.log",
                 extra_args=["--limit", "hints_per_user=1/minute"]).start()
    try:
        before = read(srv)
        alice = User(srv, "alice")
        table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"])
        ca = alice.socket(table["id"])
        ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
        during = read(srv)
        assert during[("updown_connections", (("role", "player"),))] == 1
        assert during[("updown_tables", (("status", "running"),))] == 1
        for _ in range(2):  # the second is over the limit
            alice.get(f"/api/tables/{table['id']}/hint?budget=50")
        import random

        play_out([ca], random.Random(4), timeout=120)
        after = read(srv)
    finally:
        srv.stop()
    player = after[("updown_actions_total", (("by", "player"),))]
    assert player > 0 and after[("updown_action_ack_seconds_count", ())] == player
    assert after[("updown_actions_total", (("by", "bot"),))] > 0
    assert after[("updown_bot_decision_seconds_count", ())] > 0
    assert after[("updown_db_write_seconds_count", ())] > before.get(("updown_db_write_seconds_count", ()), 0)
    assert after[("updown_limited_total", (("limit", "hints"),))] == 1
    assert after[("updown_tables", (("status", "finished"),))] == 1
