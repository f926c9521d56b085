"""``updown serve`` raises its own limit of open files (each connection holds one) as far as the host's
hard limit allows, and says in its log when what it got is low."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from server_util import free_port


def start(tmp_path: Path, soft: int, hard: int) -> tuple[subprocess.Popen[bytes], Path]:
    port = free_port()
    log = tmp_path / "server.log"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    proc = subprocess.Popen([sys.executable, "-c", "from updown.cli.app import main; main()", "serve",
                             "--db", f"sqlite:///{tmp_path / 'a.db'}", "--port", str(port)],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT, preexec_fn=limit,
                            env={k: v for k, v in os.environ.items() if not k.startswith("UPDOWN_")})
    deadline = time.time() + 120
    while time.time() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc, log
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise TimeoutError("the server did not start")


def open_files(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-files line")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads /proc (Linux)")
def test_the_server_raises_its_soft_limit_to_the_hard_one(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 8192:
        pytest.skip(f"this machine's hard limit of open files is {hard}")
    proc, log = start(tmp_path, 512, 8192)
    try:
        assert open_files(proc.pid) == (8192, 8192)
    finally:
        stop(proc)
    assert "open files limited" not in log.read_text()


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads /proc (Linux)")
def test_a_low_hard_limit_is_taken_whole_and_named_in_the_log(tmp_path: Path) -> None:
    proc, log = start(tmp_path, 256, 1000)
    try:
        assert open_files(proc.pid) == (1000, 1000)
    finally:
        stop(proc)
    text = log.read_text()
    assert "open files limited to 1000" in text and "LimitNOFILE" in text, text[-2000:]
