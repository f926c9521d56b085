"""``updown arena --workers N`` stopped by a kill (SIGTERM) stops its workers too, as Ctrl-C does.

Found with the bots panel, which uses the same pool: killed alone, the parent left its spawned
workers playing the deals they had and then waiting for work for ever (checked by hand for the arena
too: two workers went on at 60% of a core each after their parent was gone).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from proc_util import group_gone, killed_on_failure

UPDOWN = [sys.executable, "-c", "from updown.cli.app import main; main()"]


def test_a_killed_arena_stops_its_workers_and_keeps_its_finished_deals(tmp_path: Path) -> None:
    deals = tmp_path / "deals.jsonl"
    said = tmp_path / "said.txt"  # a file, not a pipe, which workers left behind would hold open
    with open(said, "w") as to:
        proc = subprocess.Popen([*UPDOWN, "arena", "updown", "--bots", "greedy,easy", "-n", "4000", "-o", "rounds=1",
                                 "--workers", "2", "--out", str(tmp_path)],
                                stdout=to, stderr=subprocess.STDOUT, start_new_session=True)
    with killed_on_failure(proc):
        began = time.monotonic()
        while not (deals.exists() and deals.read_text().count("\n") >= 5):
            assert proc.poll() is None and time.monotonic() - began < 120, said.read_text()
            time.sleep(0.05)
        proc.terminate()  # SIGTERM to the arena alone, not its process group
        proc.wait(timeout=60)
        assert proc.returncode == 130 and "stopped: the finished deals are in" in said.read_text(), said.read_text()
        assert group_gone(proc), "worker processes outlived the arena"
    kept = deals.read_text().splitlines()
    assert 5 <= len(kept) < 2000  # stopped part way
    assert all(json.loads(line) for line in kept)  # every finished deal a whole line
