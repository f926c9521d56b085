"""Hostile records, built by mutating valid ones: ``replay`` either succeeds or raises RecordError
with one bounded line, never another exception and never a long run; the ``updown replay``
command exits 0 or 2 with a one-line message and no traceback.

About 2,000 cases per run in all (the sizes below), well under a minute on a busy machine.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from updown.core.errors import RecordError
from updown.core.records import MAX_MESSAGE, Record, replay
from updown.core.registry import get_game

from conftest import random_playout  # noqa: I001



def cases(n: int) -> settings:
    return settings(deadline=None, max_examples=n, suppress_health_check=[
        HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much])
SLOW = 5.0  # seconds: far more than any record within the limits takes


@functools.cache
def bases() -> list[dict[str, Any]]:
    """Valid records of every game, short settings (so that each case replays in milliseconds)."""
    out = []
    for game_id, players, options, seed in [("updown", 2, {"rounds": 1}, 1), ("updown", 4, {"rounds": 1}, 2),
                                            ("euchre", 4, {"deals": 2}, 3), ("updown-sueca", 4, {}, 4),
                                            ("up-or-down", 2, {}, 5)]:
        _, record = random_playout(get_game(game_id), players, seed, options)
        out.append(record.to_dict())
    return out


NASTY_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", ":", "0:", "0: ", "-1: QH", "99: QH", "٣: QH", "²: QH", "\x1b[31m", "[/]", "[bold]",
                     "deal 0:", "deal 9: QH", "dice: 7+7", "dice: 0+1", "take -1", "col 0", "give up 4",
                     "1e9999", "NaN", "\u202e", "\x00", "QH QH QH", "10X", "discard", "name X alone",
                     "7" * 5000, "0: " + "7" * 1999, "0: " + "Q" * 5000]),
    st.integers(min_value=-10**6, max_value=10**6).map(str),
)
NASTY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True),
    NASTY_TEXT, st.lists(st.integers(min_value=-5, max_value=5), max_size=5),
    st.dictionaries(st.text(max_size=8), st.integers(min_value=-3, max_value=100), max_size=3),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid record, changed in one to four ways, as JSON text."""
    data = json.loads(json.dumps(draw(st.sampled_from(bases()))))
    steps: list[Any] = data["steps"]
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        kind = draw(st.sampled_from(["drop", "dup", "swap", "replace", "token", "insert", "cut", "seat",
                                     "header", "option", "seats", "result", "steps-type"]))
        i = draw(st.integers(min_value=0, max_value=max(0, len(steps) - 1)))
        j = draw(st.integers(min_value=0, max_value=max(0, len(steps) - 1)))
        if kind == "drop" and steps:
            del steps[i]
        elif kind == "dup" and steps:
            steps.insert(i, steps[i])
        elif kind == "swap" and steps:
            steps[i], steps[j] = steps[j], steps[i]
        elif kind == "replace" and steps:
            steps[i] = draw(NASTY_TEXT)
        elif kind == "token" and steps and isinstance(steps[i], str):
            head, _, body = steps[i].partition(":")
            tokens = body.split() or [""]
            k = draw(st.integers(min_value=0, max_value=len(tokens) - 1))
            tokens[k] = draw(NASTY_TEXT)
            steps[i] = f"{head}: {' '.join(tokens)}"
        elif kind == "insert":
            steps.insert(i, draw(NASTY_TEXT))
        elif kind == "cut":
            del steps[i:]
        elif kind == "seat" and steps and isinstance(steps[i], str):
            _, _, body = steps[i].partition(":")
            steps[i] = f"{draw(st.integers(min_value=-3, max_value=12))}:{body}"
        elif kind == "header":
            key = draw(st.sampled_from(["game", "players", "format", "version", "seed", "options", "steps"]))
            if draw(st.booleans()):
                data.pop(key, None)
            else:
                data[key] = draw(NASTY_VALUE)
        elif kind == "option":
            opts = data["options"] if isinstance(data.get("options"), dict) else {}
            key = draw(st.sampled_from([*opts, "rounds", "deals", "target", "length", "exchange_limit", "bogus"]))
            opts[key] = draw(NASTY_VALUE)
            data["options"] = opts
        elif kind == "seats":
            data["seats"] = draw(st.one_of(NASTY_VALUE, st.lists(NASTY_TEXT, max_size=6)))
        elif kind == "result":
            data["result"] = draw(st.one_of(NASTY_VALUE, st.just({"scores": [1, 2, 3]}), st.just({"placings": "x"})))
        elif kind == "steps-type" and steps:
            steps[i] = draw(NASTY_VALUE)
        if not isinstance(data.get("steps"), list):
            break
        steps = data["steps"]
    text = json.dumps(data, ensure_ascii=draw(st.booleans()), allow_nan=True)
    if draw(st.integers(min_value=0, max_value=9)) == 0:  # sometimes break the JSON itself
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + draw(st.sampled_from(["", "]", "{", '"', "\\", "[" * 5000, "1" * 5000, "\x00"])) + text[at:]
    return text


def check_replay(text: str) -> None:
    start = time.perf_counter()
    try:
        replay(Record.from_json(text))
    except RecordError as err:
        message = str(err)
        assert message and "\n" not in message and len(message) <= MAX_MESSAGE, message[:400]
    assert time.perf_counter() - start < SLOW


@cases(1200)
@given(text=mutated())
def test_mutated_records_replay_or_fail_cleanly(text: str) -> None:
    check_replay(text)


@cases(500)
@given(text=st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                      st.recursive(st.none() | st.integers() | st.text(max_size=5),
                                   lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                                              max_size=4),
                                   max_leaves=20).map(json.dumps)))
def test_arbitrary_text_fails_cleanly(text: str) -> None:
    check_replay(text)


@cases(300)
@given(record=st.sampled_from(range(5)), cut=st.integers(min_value=0, max_value=10_000))
def test_every_prefix_of_a_valid_record_replays(record: int, cut: int) -> None:
    data = bases()[record]
    steps = data["steps"][: cut % (len(data["steps"]) + 1)]
    state = replay(Record.from_dict({**data, "steps": steps, "result": None}))
    assert state.is_terminal() == (len(steps) == len(data["steps"]))


# -- the command line -----------------------------------------------------------------------------

def run_cli(path: Path) -> tuple[int, str]:
    from updown.cli.app import app

    result = CliRunner().invoke(app, ["replay", str(path)])
    out = result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, out


@cases(40)
@given(text=mutated().filter(lambda t: "[" not in t.replace('["', "").replace("[[", "")))
def test_the_replay_command_exits_2_with_one_line(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "record.json"
    path.write_text(text, encoding="utf-8")
    code, out = run_cli(path)
    assert "Traceback" not in out
    if code != 0:
        assert code == 2
        lines = [line for line in out.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), out[:500]


def test_the_replay_command_shows_markup_in_a_record_as_text(tmp_path: Path) -> None:
    data = bases()[0]
    path = tmp_path / "markup.json"
    path.write_text(json.dumps({**data, "steps": ["[/]: QH"]}), encoding="utf-8")
    code, out = run_cli(path)
    assert code == 2 and "[/]" in out
