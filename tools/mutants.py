"""Deliberate bugs the tests must catch: each mutant is applied to a fresh copy of the tree, the
tests named for it run there, and the mutant must make them fail. CI runs this after the suite
and fails if a mutant survives (its tests still pass), or if a mutant no longer applies (the code it
changes was rewritten: update the mutant, so that the guard keeps guarding).

    .venv/bin/python tools/mutants.py            # all of them
    .venv/bin/python tools/mutants.py ack-before-store record-from-seat-0
    .venv/bin/python tools/mutants.py --list
    .venv/bin/python tools/mutants.py --check    # does each one's code still apply, exactly once?

Before the mutants, the named tests run once on an unchanged copy: they must pass there, or a
"killed" mutant would prove nothing.

``--jobs N`` (default 3) runs N mutants at once, each in its own copy of the tree, and the unchanged
copy's check in N parts. Their tests mostly wait (on the servers they start, on time-outs a mutant
makes them reach), so three at a time keep two cores busier than two. They share the PostgreSQL and
Redis servers as `make test`'s workers do (each test its own database, each table its own channel;
the outage tests start services of their own); the servers they start take ports of their own slot
(UPDOWN_TEST_SLOT), as pytest-xdist's workers do.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import TypeVar
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
Item = TypeVar("Item")
Done = TypeVar("Done")


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    also: tuple[tuple[str, str], ...] = ()
    """More (old, new) edits in the same file, for a check made in more than one place."""

    def edits(self) -> tuple[tuple[str, str], ...]:
        return ((self.old, self.new), *self.also)


S = "tests/test_server.py::"
F = "tests/test_fair_play.py::"
G = "tests/test_server_guarantees.py::"
O = "tests/test_outages.py::"
R = "tests/test_action_reads.py::"
B = "tests/test_store_batch.py::"

MUTANTS = [
    # -- the server ----------------------------------------------------------------------------
    Mutant("ack-before-store", "the ack is sent before the action is stored",
           "updown/server/routes/play.py",
           '''    try:
        await live.submit(conn.key, action, cid, "player", actor)
    except Unseated as err:
        await conn.error(cid, err.code, err.message)
        live.conns.discard(conn)
        hub.close_unseated(conn, "signed out" if err.signed_out else "your seat is no longer yours")
        return
    except ActionError as err:
        await refuse(err.code, err.message)
        return
    await conn.send_json({"type": "ack", "id": cid})''',
           '''    await conn.send_json({"type": "ack", "id": cid})
    try:
        await live.submit(conn.key, action, cid, "player", actor)
    except Unseated as err:
        await conn.error(cid, err.code, err.message)
        live.conns.discard(conn)
        hub.close_unseated(conn, "signed out" if err.signed_out else "your seat is no longer yours")
        return
    except ActionError as err:
        await refuse(err.code, err.message)
        return''',
           (G + "test_no_ack_while_the_store_is_blocked_and_a_resend_is_stored_once",)),
    Mutant("record-from-seat-0", "the record of a running table is built from seat 0's view, not the spectator's",
           "updown/server/live.py",
           '''        view = self.state.view(None)
        lines = []''',
           '''        view = self.state.view(0)
        lines = []''',
           (G + "test_http_answers_about_a_running_table_are_the_spectators",)),
    Mutant("reconnect-still-absent", "a reconnect within the grace does not count: the seat is still absent",
           "updown/server/hub.py",
           '''        info.connections += delta''',
           '''        info.connections += min(delta, 0)''',
           (F + "test_coming_back_within_the_grace_keeps_the_seat",)),
    Mutant("presence-local-only", "a connection on another process does not count: the driver sees the seat absent",
           "updown/server/hub.py",
           '''        return self.multi and info.seen_at is not None and now - info.seen_at < 3 * HEARTBEAT''',
           '''        return False''',
           (F + "test_across_processes_presence_and_sign_out_follow_the_stored_state",)),
    Mutant("leases-kept-on-stop", "a graceful stop keeps its leases: the table waits for them to run out",
           "updown/server/hub.py",
           '''                released = await asyncio.to_thread(self.store.release, self.owner)''',
           '''                released = 0''',
           (F + "test_a_graceful_stop_gives_its_tables_to_the_other_process_at_once",)),
    Mutant("no-stand-in-past-grace", "past the grace nothing happens: no leave, no stand-in",
           "updown/server/hub.py",
           '''            if absent is not None and now - absent >= live.grace:\n''',
           '''            if absent is not None and now - absent >= live.grace * 1000:\n''',
           (S + "test_disconnect_past_the_grace_period_is_leaving_and_a_bot_plays_on[sqlite]",)),
    Mutant("act-for-any-seat", "the socket's seat checks are removed: a client acts for the seat it names",
           "updown/server/routes/play.py",
           '''    if "seat" in msg and msg["seat"] != conn.key:
        await conn.error(cid, "not-your-seat", f"you play seat {conn.key}; you cannot act for another seat")
        return
    seat_now = live.seats[conn.key]''',
           '''    if type(msg.get("seat")) is int:
        conn.key = msg["seat"]
    seat_now = live.seats[conn.key]''',
           (F + "test_a_legal_action_for_another_seat_is_refused_and_stores_nothing",),
           # the seat is checked again before the action is parsed, and in the step's transaction
           also=(("    if not quick and not await seated(svc, live, conn, cid):\n        return\n", ""),
                 ("    actor = Actor(conn.session, conn.account_id, conn.key) if conn.session and conn.account_id "
                  "is not None else None", "    actor = None"))),
    Mutant("shared-frame-cache", "the broadcast cache key drops the seat: connections share another seat's frame",
           "updown/server/live.py",
           '''cache_key = (key, conn.last_n, n, conn.lang)''',
           '''cache_key = (0, conn.last_n, n, conn.lang)''',
           (S + "test_whole_game_two_people_two_bots_and_a_spectator[sqlite-updown]",)),
    Mutant("house-side-dropped", "the house's side of the leave penalty is dropped from the settlement",
           "updown/server/hub.py",
           '''                if house:
                    house_id = self.store.account_id_for(HOUSE, "house")''',
           '''                if house and False:
                    house_id = self.store.account_id_for(HOUSE, "house")''',
           (G + "test_a_leave_is_charged_once_with_the_houses_side_and_the_end_takes_it_off",)),
    Mutant("unbalanced-skipped", "an unbalanced settlement is logged and skipped instead of refused",
           "updown/server/store.py",
           '''            if sum(finish.postings.values()) != 0:
                raise Unbalanced(''',
           '''            if sum(finish.postings.values()) != 0 and False:
                raise Unbalanced(''',
           (G + "test_an_unbalanced_settlement_is_refused_and_nothing_is_stored",)),
    Mutant("group-conflict-refuses-all", "one step's conflict refuses every table's step written in its group",
           "updown/server/store.py",
           '''        except (IntegrityError, Conflict):
            pass''',
           '''        except (IntegrityError, Conflict):
            return [Conflict("a step with this number or client id is already stored")] * len(batch)''',
           (B + "test_a_conflict_in_a_group_refuses_only_its_own_item",)),
    Mutant("note-steps-ignore-away", "a person's step from another process's note leaves the seat away here (a stand-in plays on)",
           "updown/server/hub.py",
           '''                and (live.seats[r.seat].away or live.seats[r.seat].left))''',
           '''                and False)''',
           (R + "test_a_persons_step_in_a_note_for_a_seat_marked_away_here_reads_the_seat",)),
    Mutant("note-steps-fill-gaps", "steps from a note are applied after a gap (a lost note) instead of reading the table",
           "updown/server/hub.py",
           '''        if not new or any(r.n != have + 1 + i for i, r in enumerate(new)):''',
           '''        if not new:''',
           (R + "test_steps_that_ride_in_a_note_are_applied_without_reading_the_database",)),
    Mutant("broadcast-closes-taken-off", "a broadcast closes a socket a leave took off meanwhile, before the leave's answer",
           "updown/server/live.py",
           '''        if conn not in self.conns:
            # Taken off''',
           '''        if False:
            # Taken off''',
           ("tests/test_step_path.py::test_a_socket_taken_off_during_a_broadcast_gets_nothing_more_from_it",)),
    Mutant("stale-seat-keeps-frames", "a socket keeps its seat after the seat changes hands (checked at connect only)",
           "updown/server/live.py",
           '''        return account_id is not None and self.kind == "person" and self.account_id == account_id and not self.left''',
           '''        return True''',
           (F + "test_a_socket_loses_its_seat_when_the_seat_changes_hands_before_the_start",
            F + "test_after_leave_a_socket_neither_acts_nor_sees_and_coming_back_is_watching")),
    Mutant("sign-out-keeps-sockets", "signing out leaves the session's sockets open",
           "updown/server/hub.py",
           '''                if conn.session == token_hash:''',
           '''                if conn.session == token_hash and False:''',
           (F + "test_sign_out_closes_the_sockets_of_that_session",)),
    Mutant("any-origin", "requests and sockets from another origin are let through",
           "updown/server/guards.py",
           '''    if origin is None:
        return True
    if origin in allowed:''',
           '''    if origin is not None:
        return True
    if origin in allowed:''',
           (F + "test_requests_and_sockets_from_another_origin_are_refused",)),
    Mutant("walking-away-pays", "a seat that left keeps its stand-in's place for the rating",
           "updown/server/hub.py",
           '''            placings = placed_after_leavers(result.placings, left)''',
           '''            placings = result.placings''',
           (F + "test_walking_away_from_a_rated_game_is_a_loss_whatever_the_stand_in_does[updown]",)),
    Mutant("publish-raises", "a failed publish to Redis raises into the step that was just acknowledged",
           "updown/server/hub.py",
           '''                self._keep(data)
                if self.hub is not None:
                    self.hub.health.failed(REDIS, err if is_outage(err) else str(err) or type(err).__name__)''',
           '''                self._keep(data)
                raise''',
           (O + "test_a_publish_that_cannot_reach_redis_is_kept_not_raised",)),
    Mutant("listener-gives-up", "the Redis listener ends for good when Redis goes away",
           "updown/server/hub.py",
           '''            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)''',
           '''            return''',
           (O + "test_the_redis_listener_subscribes_again_after_redis_restarts",)),
    Mutant("busy-unanswered", "an action that meets an unreachable database gets no answer",
           "updown/server/routes/play.py",
           '''        await conn.error(cid, "busy", BUSY)''',
           '''        return''',
           (O + "test_an_action_while_the_database_is_away_is_refused_busy_then_stored_once",)),
    Mutant("no-catch-up-after-conflict", "a step number another process took is not followed by reading the stored steps",
           "updown/server/live.py",
           '''        await retried(lambda: self.catch_up(force=True), self.health, DATABASE)''',
           '''        return None''',
           (R + "test_a_table_behind_the_database_is_judged_against_the_stored_steps[sqlite]",)),
    Mutant("heartbeat-all-at-once", "every connected seat is written at once every 5 s, not spread over the cycle",
           "updown/server/hub.py",
           '''        if now - last >= HEARTBEAT:''',
           '''        if True:''',
           ("tests/test_idle_heartbeat.py::test_every_connected_seat_is_stored_within_the_heartbeat_and_the_writes_are_spread[sqlite]",)),
    Mutant("heartbeat-failed-write-lost", "a heartbeat write that failed is not made up at the next turn",
           "updown/server/hub.py",
           '''        last = self._beat_at
''',
           '''        last = self._beat_at
        self._beat_at = now
''',
           ("tests/test_idle_heartbeat.py::test_a_late_turn_stores_everyone_and_a_failed_write_is_made_up_at_the_next_turn[sqlite]",)),
    Mutant("heartbeat-wrap-lost", "the tables whose point is past the cycle's end are never written",
           "updown/server/hub.py",
           '''        return [t for _p, t in order[lo:]] + [t for _p, t in order[:hi]]''',
           '''        return [t for _p, t in order[lo:]]''',
           ("tests/test_idle_heartbeat.py::test_the_tables_due_in_a_stretch_of_the_cycle_are_those_whose_point_is_in_it[sqlite]",)),
    Mutant("heartbeat-new-table-unsorted", "a table loaded after the first turn gets no point in the heartbeat's cycle",
           "updown/server/hub.py",
           '''        if len(self._beat_order) != len(self.lives):''',
           '''        if not self._beat_order:''',
           ("tests/test_idle_heartbeat.py::test_the_tables_due_in_a_stretch_of_the_cycle_are_those_whose_point_is_in_it[sqlite]",)),
    Mutant("heartbeat-elsewhere-ignored", "a seat connected only on another process is not looked at again before it goes stale",
           "updown/server/hub.py",
           '''                    wake = min(wake, info.seen_at + 3 * HEARTBEAT)  # connected elsewhere, as last stored''',
           '''                    pass''',
           ("tests/test_idle_heartbeat.py::test_a_seat_connected_only_on_another_process_is_not_taken_for_absent[sqlite]",)),
    Mutant("session-expiry-ignored", "a session whose stored expiry came is not read again, so its sockets stay open",
           "updown/server/hub.py",
           '''{s for s in sessions if known.get(s, 0.0) <= now}''',
           '''{s for s in sessions if s not in known}''',
           ("tests/test_idle_sessions.py::test_ended_sessions_close_their_sockets_and_between_times_no_session_is_read[sqlite]",)),
    Mutant("session-check-redis-away", "while Redis is not heard, sessions are not all read at each re-read",
           "updown/server/hub.py",
           '''        await self._check_sessions(now, whole or unheard)''',
           '''        await self._check_sessions(now, whole)''',
           ("tests/test_idle_sessions.py::test_ended_sessions_close_their_sockets_and_between_times_no_session_is_read[sqlite]",)),
    Mutant("session-net-lost", "a whole re-read does not read every socket's session (a lost sign-out note is never noticed)",
           "updown/server/hub.py",
           '''        await self._check_sessions(now, whole or unheard)''',
           '''        await self._check_sessions(now, unheard)''',
           ("tests/test_idle_sessions.py::test_ended_sessions_close_their_sockets_and_between_times_no_session_is_read[sqlite]",)),
    Mutant("clear-best-any-gap", "a decision is settled when the best action is ahead at all, not by K paired errors",
           "updown/bots/euchre_greedy.py",
           '''    return bool(np.all((error == 0) | (gap > z * error)))''',
           '''    return bool(np.all((error == 0) | (gap >= 0)))''',
           ("tests/test_batched_euchre_load.py::test_clear_best_needs_every_other_action_beaten_world_by_world",)),
    Mutant("settle-stretch-skips-capped", "with settle on, the stretch ignores decisions that end at the world cap",
           "updown/bots/euchre_greedy.py",
           '''            if self.settle is not None or self.used < self.worlds:''',
           '''            if self.used < self.worlds:''',
           ("tests/test_batched_euchre_load.py::test_settle_ends_a_clear_decision_after_its_first_batch",)),
    Mutant("kick-always-starts-loop", "a step that leaves a person to act still starts a driving-loop task",
           "updown/server/live.py",
           '''        if not read_first and not self.due():
            return
''',
           '''''',
           ("tests/test_step_send.py::test_a_step_starts_the_driving_loop_only_when_chance_or_a_bot_is_next",)),
    Mutant("kick-never-after-step", "a step that leaves chance or a bot next starts no driving loop",
           "updown/server/live.py",
           '''        if not read_first and not self.due():''',
           '''        if not read_first:''',
           ("tests/test_step_send.py::test_a_step_starts_the_driving_loop_only_when_chance_or_a_bot_is_next",)),
    Mutant("encode-latin1", "messages decoded from orjson's bytes as Latin-1: non-ASCII text garbled",
           "updown/server/live.py",
           '''return orjson.dumps(message, option=_ORJSON_OPTIONS).decode()''',
           '''return orjson.dumps(message, option=_ORJSON_OPTIONS).decode("latin-1")''',
           ("tests/test_step_send.py::test_encode_is_compact_utf8_json_of_the_same_values",)),
    Mutant("encode-int-keys", "dicts with integer keys are refused instead of given string keys",
           "updown/server/live.py",
           '''_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS''',
           '''_ORJSON_OPTIONS = 0''',
           ("tests/test_step_send.py::test_encode_is_compact_utf8_json_of_the_same_values",)),
    Mutant("catch-up-sends-nothing", "steps a catch-up read reach the sockets only with the next step's broadcast",
           "updown/server/live.py",
           '''        if changed:
            self._broadcast_soon()''',
           '''        if changed:
            pass''',
           (R + "test_a_table_behind_the_database_is_judged_against_the_stored_steps[sqlite]",)),
    Mutant("no-net-under-lost-notes", "a table whose note never came is not caught up by the whole re-read",
           "updown/server/hub.py",
           '''        if self.multi:
            await self._catch_up_unheard(held)''',
           '''        if self.multi:
            pass''',
           (R + "test_steps_whose_note_never_came_are_caught_up_by_the_re_read[sqlite]",)),
    Mutant("refusal-not-judged-again", "a refusal on a process's stale copy is final, not judged again on the stored state",
           "updown/server/live.py",
           '''            judged_again = False''',
           '''            judged_again = True''',
           (R + "test_a_table_behind_the_database_is_judged_against_the_stored_steps[sqlite]",)),
    Mutant("read-before-act-again", "with several processes an action reads the table and seats again before its transaction",
           "updown/server/routes/play.py",
           '''        and not seat_now.away and (conn.key, cid) not in live.client_ids
''',
           '''        and not seat_now.away and (conn.key, cid) not in live.client_ids and not hub.multi
''',
           (R + "test_an_action_reads_nothing_before_its_transaction_with_several_processes[sqlite]",)),
    # -- the engines ---------------------------------------------------------------------------
    Mutant("march-scored-1", "a Euchre march scores 1 instead of 2",
           "updown/games/euchre.py",
           '''                points[mt] = 4 if self.alone else 2''',
           '''                points[mt] = 4 if self.alone else 1''',
           ("tests/test_euchre_rules.py",)),
    Mutant("pot-not-carried", "UP&DOWN's pot is not carried to the next trick's winner",
           "updown/games/updown.py",
           '''            taken = pot + 1''',
           '''            taken = 1''',
           ("tests/test_updown_rules.py",)),
    Mutant("pending-card-shown", "an UP&DOWN seat's view shows the next seat's secret choice",
           "updown/games/updown.py",
           '''            mine = self.pending[seat]''',
           '''            mine = self.pending[(seat + 1) % n]''',
           ("tests/test_updown_rules.py", "tests/test_worlds.py")),
    Mutant("idle-timer-never-wakes", "an idle table is not woken when its person's move time runs out",
           "updown/server/hub.py",
           '''                        wake = min(wake, since + live.timer)''',
           '''                        pass''',
           ("tests/test_idle_clock.py::test_an_idle_tables_move_time_running_out_marks_its_person_away[sqlite]",)),
    Mutant("idle-grace-never-wakes", "an idle table is not woken when an absent person's grace runs out",
           "updown/server/hub.py",
           '''                wake = min(wake, absent + live.grace)''',
           '''                pass''',
           ("tests/test_idle_clock.py::test_an_absent_persons_grace_running_out_on_an_idle_table_is_leaving[sqlite]",)),
    Mutant("disconnect-not-stirred", "a connection that closes does not put its table before the clock",
           "updown/server/hub.py",
           '''        live.stir()  # present or absent from now''',
           '''        pass  # present or absent from now''',
           ("tests/test_idle_clock.py::test_an_absent_persons_grace_running_out_on_an_idle_table_is_leaving[sqlite]",)),
    Mutant("admin-mark-ignored", "the re-read reads every table only every 30 s, not when an admin action was recorded",
           "updown/server/hub.py",
           '''        whole = mark != self._mark or self._unsettled or now - self._whole_at >= WHOLE_REREAD or any(''',
           '''        whole = self._mark is None or now - self._whole_at >= WHOLE_REREAD or any(''',
           ("tests/test_idle_clock.py::test_an_admins_change_to_an_idle_table_is_taken_and_nothing_else_reads_every_table[sqlite]",)),
    Mutant("stalled-socket-waited-for", "a broadcast waits for a socket that reads nothing, however long",
           "updown/server/live.py",
           '''                async with asyncio.timeout(SEND_PATIENCE):''',
           '''                async with asyncio.timeout(None):''',
           ("tests/test_idle_broadcast.py::test_a_socket_that_reads_nothing_is_closed_and_the_others_get_every_frame",)),
    Mutant("slow-reader-closed", "a socket that is only slow, within the patience, is closed as stalled",
           "updown/server/live.py",
           '''                if loop.time() - since >= SEND_PATIENCE:''',
           '''                if True:''',
           ("tests/test_idle_broadcast.py::test_a_slow_reader_within_the_patience_is_kept",)),
    Mutant("view-phase-table", "Euchre's view names the phase before the one it is in",
           "updown/games/euchre.py",
           '''            "phase": _PHASE_NAMES[phase],''',
           '''            "phase": _PHASE_NAMES[phase - 1],''',
           ("tests/test_view_cache.py::test_every_setup_once",)),
    Mutant("view-shared-column", "Up or Down?'s view hands out the state's own column list",
           "updown/games/up_or_down.py",
           '''row.append({"cards": c[:],''',
           '''row.append({"cards": c,''',
           ("tests/test_view_cache.py::test_every_setup_once",)),
    Mutant("freeze-nested-list", "freezing a list leaves its nested lists writable",
           "updown/core/frozen.py",
           '''            if type(v) not in _KEPT:
                _LIST_SET(items, i, freeze(v))''',
           '''            if type(v) is dict:
                _LIST_SET(items, i, freeze(v))''',
           ("tests/test_view_cache.py::test_freeze_equals_the_first_version",)),
    Mutant("encoder-totals-table", "Euchre's encoder gives a seat the other team's total",
           "updown/adapters/encoders/euchre.py",
           '''        v[totals] = of_target[x[mine]]''',
           '''        v[totals] = of_target[x[theirs]]''',
           ("tests/test_view_cache.py::test_encoded_views_equal_the_reference_encoders",)),
    Mutant("euchre-pick-byte-order", "the batched rules read their card masks' bits in the wrong order",
           "updown/batched/euchre.py",
           '''[:, :3], axis=1,
                         bitorder="little")''',
           '''[:, :3], axis=1,
                         bitorder="big")''',
           ("tests/test_batched_euchre_greedy.py::test_the_greedy_rule_is_the_rule_written_out_card_by_card",)),
    Mutant("euchre-cheap-not-last", "the batched greedy rule throws its cheapest card before the last seat of a trick",
           "updown/batched/euchre.py",
           '''cheap = following & ~throw & (self.left == 1)''',
           '''cheap = following & ~throw & (self.left <= 2)''',
           ("tests/test_batched_euchre_greedy.py::test_the_greedy_rule_is_the_rule_written_out_card_by_card",)),
    Mutant("euchre-deal-end-own-deal", "playing to the deal's end ignores the deal it was told to stop after",
           "updown/batched/euchre.py",
           '''game is in play a step has no gathers."""
        deal = self.deal_no.copy() if deal is None else np.asarray(deal, dtype=np.int64)''',
           '''game is in play a step has no gathers."""
        deal = self.deal_no.copy()''',
           ("tests/test_batched_euchre_greedy.py::test_greedy_to_deal_end_is_stepping_the_rule",)),
    Mutant("euchre-play-all-keeps-best", "a finished trick's winning card is kept into the next trick",
           "updown/batched/euchre.py",
           '''        self.leader[g] = w
        self.best[g] = 0''',
           '''        self.leader[g] = w''',
           ("tests/test_batched_differential.py::test_euchre_matches_the_scalar_engine",)),
    Mutant("euchre-repeats-discards", "worlds loaded k times each get their discards in the wrong order",
           "updown/batched/euchre.py",
           '''            discards = [d for d in discards for _ in range(repeats)]''',
           '''            discards = discards * repeats''',
           ("tests/test_batched_euchre_greedy.py::test_worlds_loaded_with_repeats_are_the_batch_taken_game_by_game",)),
    Mutant("gc-no-freeze-after-full", "the heap is never frozen again after a long full collection",
           "updown/server/gcpolicy.py",
           '''if generation == FULL and self.freeze_on and cpu''',
           '''if generation == FULL + 1 and self.freeze_on and cpu''',
           ("tests/test_gc_policy.py::test_freezes_after_start_up_and_after_each_long_full_collection_only",)),
    Mutant("gc-freeze-after-short", "the heap is frozen after every full collection, however short",
           "updown/server/gcpolicy.py",
           '''cpu >= self.freeze_over''',
           '''cpu >= 0''',
           ("tests/test_gc_policy.py::test_freezes_after_start_up_and_after_each_long_full_collection_only",)),
    Mutant("gc-renew-without-unfreeze", "a renewal collects without unfreezing, so frozen garbage is never freed",
           "updown/server/gcpolicy.py",
           '''        self.gc.unfreeze()
        found = self.gc.collect()''',
           '''        found = self.gc.collect()''',
           ("tests/test_gc_policy.py::test_with_the_real_collector_frozen_garbage_waits_for_the_renewal",)),
    Mutant("gc-freeze-setting-ignored", "the app freezes the heap whatever its gc.freeze setting says",
           "updown/server/app.py",
           '''collector = GcPolicy(freeze=settings.gc.freeze,''',
           '''collector = GcPolicy(freeze=True,''',
           ("tests/test_gc_policy.py::test_the_app_freezes_after_start_up_as_its_setting_says",)),
    Mutant("lease-renewal-takes-held", "a lease renewal takes every running table, also one another process still holds",
           "updown/server/store.py",
           '''_RENEW_LEASES = (update(_TABLES).where(_TABLES.c.status == "running", _LEASE_FREE)''',
           '''_RENEW_LEASES = (update(_TABLES).where(_TABLES.c.status == "running")''',
           ("tests/test_lease_renewal.py::test_one_statement_renews_ours_and_takes_the_free_and_the_lapsed_only[sqlite]",)),
    Mutant("smart-safe-winner", "the smart rule follows with its lowest winning card even where an unseen card beats it",
           "updown/batched/euchre.py",
           '''win = np.where(last | (safe == 0), beats, safe)''',
           '''win = beats''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot",)),
    Mutant("smart-draw-two-trumps", "the smart rule draws trumps only when it holds the best one",
           "updown/batched/euchre.py",
           '''draw = makers & (trumps != 0) & (others != 0) & (boss | (popcount(trumps) >= 2))''',
           '''draw = makers & (trumps != 0) & (others != 0) & boss''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot",)),
    Mutant("smart-upcard-side", "the smart rule counts the up-card for the wrong side",
           "updown/batched/euchre.py",
           '''np.where(((self.dealer - self.turn) & 1) == 0, worth, -worth)''',
           '''np.where(((self.dealer - self.turn) & 1) == 0, -worth, worth)''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot",)),
    Mutant("smart-trust-partner", "the smart rule trusts its partner's winning card even when an unseen card beats it",
           "updown/batched/euchre.py",
           '''trust = partner & (last | ((unseen & above) == 0))''',
           '''trust = partner''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot",)),
    Mutant("gc-renew-any-growth", "the garbage collector renews at the first look once memory grew at all, not by renew_growth",
           "updown/server/gcpolicy.py",
           '''now >= since * (1 + self.renew_growth)''',
           '''now > since''',
           ("tests/test_gc_policy.py::test_a_renewal_waits_for_the_memory_to_grow_between_the_shortest_and_longest_periods",)),
    Mutant("loadgen-nested-legal", "the load generator skips a frame whose nested record holds a 'legal' list, taking it for one with nothing to do",
           "benchmarks/server_load.py",
           '''raw.startswith(_FRAME) and raw.count(b'"legal"') == 1 and _NO_LEGAL in raw''',
           '''raw.startswith(_FRAME) and _NO_LEGAL in raw''',
           ("tests/test_server_load_client.py",)),
    Mutant("loadgen-drain-before-act", "the load generator's seat no longer handles the messages that came while it thought, after its action",
           "benchmarks/server_load.py",
           '''        self.legal = []
        self.held = False
        self.drain()''',
           '''        self.legal = []
        self.held = False''',
           ("tests/test_server_load_client.py",)),
    Mutant("loadgen-inflate-reset", "the load generator inflates each frame with a new context although the server keeps its own",
           "benchmarks/server_load.py",
           '''        if self.server_reset:
            self.inflater''',
           '''        if True:
            self.inflater''',
           ("tests/test_server_load_client.py",)),
    Mutant("unload-keeps-beat-order", "the heartbeat's cycle is not sorted again after a table is dropped (a table loaded then is left out)",
           "updown/server/hub.py",
           '''        self._beat_order, self._beat_points = [], []  # sorted again at the heartbeat's next turn
''',
           '''''',
           ("tests/test_table_unload.py::test_the_heartbeat_follows_the_tables_held_after_a_drop",)),
    Mutant("unload-with-sockets", "a table is dropped from memory although a socket of it is open here",
           "updown/server/hub.py",
           '''if live.conns or now - live.used_at < UNLOAD or live.lock.locked():''',
           '''if now - live.used_at < UNLOAD or live.lock.locked():''',
           ("tests/test_table_unload.py::test_what_stays_a_socket_a_driven_game_an_open_table_and_recent_use",)),
    Mutant("unload-driven-here", "a running table this process drives is dropped from memory (its clock and bots with it)",
           "updown/server/hub.py",
           '''elsewhere = self.multi and live.status == "running" and not live.owned''',
           '''elsewhere = live.status == "running"''',
           ("tests/test_table_unload.py::test_what_stays_a_socket_a_driven_game_an_open_table_and_recent_use",)),
    Mutant("table-read-unheard", "a process reads a table without first subscribing to its channel (a step stored meanwhile is in neither)",
           "updown/server/hub.py",
           '''heard = await self.bus.hear(table_id, HEAR) if self.multi else True''',
           '''heard = True''',
           ("tests/test_redis_table_channels.py::test_a_step_stored_while_a_process_loads_the_table_reaches_it",)),
    Mutant("table-note-while-loading-dropped", "a note heard while its table was being read is dropped, not followed by a second read",
           "updown/server/hub.py",
           '''if table_id in self._noted:  # (from here on a note finds the table)''',
           '''if False:''',
           ("tests/test_redis_table_channels.py::test_a_step_stored_while_a_process_loads_the_table_reaches_it",)),
    Mutant("table-heard-late-not-read", "a table read before Redis confirmed its channel is not read again once it does",
           "updown/server/hub.py",
           '''            if not heard:
                task =''',
           '''            if False:
                task =''',
           ("tests/test_redis_table_channels.py::test_a_table_read_before_redis_confirmed_is_read_again_once_it_does",
            "tests/test_redis_table_channels.py::test_a_table_loaded_while_the_listener_is_busy_is_read_again_once_it_confirms")),
    Mutant("table-resubscribe-shared-only", "after a dropped subscription only the shared channel is subscribed again, not the held tables'",
           "updown/server/hub.py",
           '''expected = {self.CHANNEL, *(self._channel(t) for t in self.tables)}''',
           '''expected = {self.CHANNEL}''',
           ("tests/test_redis_table_channels.py::test_a_dropped_subscription_is_made_again_for_every_held_table_then_caught_up",)),
    Mutant("table-hear-without-waiting", "a table's channel is taken for heard before Redis confirmed the subscription",
           "updown/server/hub.py",
           '''return await asyncio.wait_for(asyncio.shield(waiting), timeout)''',
           '''return True''',
           ("tests/test_redis_table_channels.py::test_a_table_loaded_while_the_listener_is_busy_is_read_again_once_it_confirms",)),
    Mutant("smart-alone-with-losers", "the smart rule goes alone with a losing off-suit card in its hand",
           "updown/batched/euchre.py",
           '''alone = (s >= alone20) & (losers == 0) & (self.turn != ((self.dealer + 2) & 3))''',
           '''alone = (s >= alone20) & (self.turn != ((self.dealer + 2) & 3))''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot",)),
    Mutant("greedy-alone-unreachable", "the Euchre greedy bot's going-alone threshold back at 13, which no hand that may go alone reaches",
           "updown/bots/euchre_greedy.py",
           '''ALONE = 7.0''',
           '''ALONE = 13.0''',
           ("tests/test_batched_euchre_smart.py::test_the_smart_rule_is_the_greedy_bot", "tests/test_batched_euchre_smart.py::test_the_smart_rule_bids_with_the_bots_thresholds")),
    Mutant("takeover-skips-read", "a table taken over skips the steps' read although its last driver may have died between a commit and its note",
           "updown/server/hub.py",
           '''live.kick(even_if_heard=True)  # (its last driver may have died''',
           '''live.kick()  # (its last driver may have died''',
           ("tests/test_redis_mode_reads.py::test_a_table_taken_over_is_read_first_even_when_heard",)),
    Mutant("driver-reads-when-heard", "the driving loop reads the steps first even while the table's notes are heard here",
           "updown/server/live.py",
           '''read = read_first and (even_if_heard or not self.heard())''',
           '''read = read_first''',
           ("tests/test_redis_mode_reads.py::test_a_driving_loop_that_skips_its_read_on_a_heard_table_conflicts_and_catches_up",)),
    Mutant("hears-unconfirmed", "a table's notes are taken for heard before Redis confirmed its channel",
           "updown/server/hub.py",
           '''and self.subscribed.is_set() and self._channel(table_id) in self._confirmed''',
           '''and self.subscribed.is_set()''',
           ("tests/test_redis_mode_reads.py::test_a_driving_loop_on_a_table_not_heard_reads_first",)),
    Mutant("table-never-heard", "a table loaded with several processes is never taken for heard",
           "updown/server/hub.py",
           '''                live.heard = lambda: self.bus.hears(table_id)''',
           '''                pass''',
           ("tests/test_redis_mode_reads.py::test_a_driving_loop_that_skips_its_read_on_a_heard_table_conflicts_and_catches_up",)),
    Mutant("ping-never", "a pooled PostgreSQL connection is never pinged, however long it lay idle",
           "updown/server/db.py",
           '''        if since is None or time.monotonic() - since < PING_IDLE:''',
           '''        if True:''',
           ("tests/test_db_pool.py::test_a_connection_dropped_while_idle_in_the_pool_is_replaced_before_use",)),
    Mutant("ping-always", "a pooled PostgreSQL connection is pinged at every checkout, as pool_pre_ping did",
           "updown/server/db.py",
           '''        if since is None or time.monotonic() - since < PING_IDLE:''',
           '''        if since is None:''',
           ("tests/test_db_pool.py::test_a_connection_in_use_is_not_pinged",)),
    Mutant("leave-asker-closed", "the socket that asked to leave stays on the table's sockets until after the write",
           "updown/server/hub.py",
           '''        if by is not None:
            live.conns.discard(by)
        # The database decides''',
           '''        # The database decides''',
           ("tests/test_leave_answer.py::test_a_reread_of_the_seats_during_a_leave_does_not_close_the_socket_that_asked",)),
    Mutant("gc-upgrade-keeps-parser", "uvicorn's protocol keeps its parser after a WebSocket upgrade",
           "updown/server/protocol.py",
           '''        self.parser = None  # type: ignore[assignment]''',
           '''        pass''',
           ("tests/test_gc_cycles.py::test_a_table_socket_that_comes_and_goes_leaves_no_cycles",)),
    Mutant("gc-seen-in-list", "a socket's sign of life builds its IN list anew (SQLAlchemy's cloned parameters, a cycle)",
           "updown/server/store.py",
           '''            seen.run(conn, [seen.params({"t": t, "s": s, "at": latest[(t, s)]}) for t, s in pairs], many=True)''',
           '''            conn.execute(update(Seat).where(Seat.table_id.in_([t for t, _s in pairs]), Seat.seat.in_([s for _t, s in pairs])).values(seen_at=max(latest.values())))''',
           ("tests/test_gc_cycles.py::test_a_table_socket_that_comes_and_goes_leaves_no_cycles",)),
    Mutant("gc-lobby-wait-for", "the lobby's sender sends under wait_for, which can lose its task",
           "updown/server/routes/lobby.py",
           '''                    await conn.send_text(frame)''',
           '''                    await asyncio.wait_for(conn.send_text(frame), SEND_TIMEOUT)''',
           ("tests/test_lobby_sender.py::test_a_cancellation_that_comes_as_a_send_ends_stops_the_sender",)),
    Mutant("gc-tables-in-list", "the public list builds its IN list anew",
           "updown/server/store.py",
           '''            rows = s.scalars(_PUBLIC_TABLES, {"statuses": list(statuses), "limit": limit}).all()''',
           '''            rows = s.scalars(select(Table).where(Table.status.in_(list(statuses)), Table.private.is_(False)).order_by(Table.created_at.desc()).limit(limit)).all()''',
           ("tests/test_gc_cycles.py::test_the_public_list_on_new_connections_leaves_no_cycles",)),
    Mutant("gc-renew-counts-young", "a renewal's count mixes in the young garbage",
           "updown/server/gcpolicy.py",
           '''        young = self.gc.collect()''',
           '''        young = 0''',
           ("tests/test_gc_policy.py::test_renews_on_its_schedule_and_not_before",)),
    Mutant("serve-default-http", "updown serve runs uvicorn's own HTTP protocol",
           "updown/cli/cmd_serve.py",
           '''        application, http=HttpProtocol, ws=WebSocketProtocol, log_config=None,''',
           '''        application, ws=WebSocketProtocol, log_config=None,''',
           ("tests/test_serve_config.py::test_serve_runs_uvicorn_with_the_http_protocol_that_leaves_no_cycle_behind_a_websocket",)),
    Mutant("gc-lease-or-anew", "the lease renewal builds its OR anew at each call",
           "updown/server/store.py",
           '''            return list(s.scalars(_RENEW_LEASES, {"me": owner, "now": now, "until": now + seconds}).all())''',
           '''            return list(s.scalars(update(Table).where(Table.status == "running", (Table.owner == owner) | (Table.lease_until < now) | Table.owner.is_(None)).values(owner=owner, lease_until=now + seconds).returning(Table.id)).all())''',
           ("tests/test_gc_cycles.py::test_the_lease_statements_leave_no_cycles",)),
    Mutant("panel-cut-line-glued", "a line cut short by a kill is glued to the next row",
           "benchmarks/bots_panel.py",
           '''                if text and not text.endswith("\\n"):''',
           '''                if False:''',
           ("tests/test_bots_panel.py::test_a_run_continued_from_a_half_paired_file_with_workers_pairs_as_one_run",)),
    Mutant("panel-unpaired-counts-deals", "the summary counts unpaired deals, not rows",
           "benchmarks/bots_panel.py",
           '''        return sum(len(c) for c in columns.values() if len(c) < len(self.columns))''',
           '''        return sum(1 for c in columns.values() if len(c) < len(self.columns))''',
           ("tests/test_bots_panel.py::test_the_summary_counts_the_rows_on_file_that_are_not_yet_paired",)),
    Mutant("panel-time-mid-deal", "a field's time ends it in the middle of a deal",
           "benchmarks/bots_panel.py",
           '''            elif column == 0 and cell.args.field_seconds''',
           '''            elif cell.args.field_seconds''',
           ("tests/test_bots_panel.py::test_field_seconds_ends_a_field_at_a_deals_start_and_the_deal_begun_is_whole",)),
    Mutant("panel-rule-on-a-gap", "the stop rule is applied with a deal not yet whole",
           "benchmarks/bots_panel.py",
           '''and all(self.n in r for r in self.rows.values())''',
           '''and any(self.n in r for r in self.rows.values())''',
           ("tests/test_bots_panel.py::test_self_takes_the_deals_of_the_field_of_the_same_line_up_and_is_a_check",)),
    Mutant("euchre-model-no-past-deals", "the Euchre model forgets the finished deals' evidence",
           "updown/bots/euchre_model.py",
           '''logs[j][k] += evidence[j][k]''',
           '''logs[j][k] += 0.0''',
           ("tests/test_euchre_model.py::test_the_weights_follow_the_kind_that_sits_there",)),
    Mutant("euchre-mixed-playout-no-random", "the playouts by kind never play a random card",
           "updown/batched/euchre.py",
           '''use = live & (u < flat''',
           '''use = live & (u < 0 * flat''',
           ("tests/test_euchre_model.py::test_mixed_playouts_by_kind",)),
    Mutant("euchre-model-worlds-unweighted", "the model's worlds are not weighed by the seats' bids and cards",
           "updown/bots/euchre_model.py",
           '''w *= m / top if top > 0 else 1.0''',
           '''w *= 1.0''',
           ("tests/test_euchre_model.py::test_a_random_seat_s_bid_does_not_move_the_worlds",)),
    Mutant("euchre-model-cards-unread", "the model never reads a card as the rule's",
           "updown/bots/euchre_model.py",
           '''out.append((rule._play(stub, sorted(hand), sorted(legal)) == chosen, len(legal)))''',
           '''out.append((False, len(legal)))''',
           ("tests/test_euchre_model.py::test_the_rule_s_bids_and_cards_are_read_exactly",)),
    Mutant("panel-options-split", "one test bot with options is split on its commas",
           "benchmarks/bots_panel.py",
           '''    elif ":" in listed:
        parts = [listed]''',
           '''    elif False:
        parts = [listed]''',
           ("tests/test_bots_panel.py::test_one_test_bot_with_options_is_one_bot_and_a_list_of_them_is_split_on_semicolons",)),
    Mutant("ws-plain-below-ignored", "a message under the bound is compressed all the same",
           "updown/server/protocol.py",
           "len(frame.data) < self.plain_below:\n            return frame",
           "len(frame.data) < self.plain_below:\n            return super().encode(frame)",
           ("tests/test_ws_plain_below.py::test_short_messages_go_plain_longer_ones_compressed_and_all_decode_in_order",)),
    Mutant("ws-plain-below-bound", "a message of exactly the bound's length goes plain",
           "updown/server/protocol.py",
           "len(frame.data) < self.plain_below", "len(frame.data) <= self.plain_below",
           ("tests/test_ws_plain_below.py::test_the_bound_is_exclusive_and_binary_messages_follow_it_too",)),
    Mutant("ws-plain-below-fragment", "a short frame of a fragmented message goes plain",
           "updown/server/protocol.py",
           "if frame.fin and frame.opcode", "if frame.opcode",
           ("tests/test_ws_plain_below.py::test_a_fragmented_message_is_compressed_whole_even_when_its_frames_are_short",)),
    Mutant("ws-factory-not-installed", "the server offers uvicorn's deflate, not the one that sends short messages plain",
           "updown/server/protocol.py",
           "self.conn.available_extensions = [DEFLATE]", "pass",
           ("tests/test_ws_plain_below.py::test_through_the_server_acks_go_plain_frames_compressed_and_every_message_decodes[True]",)),
    Mutant("ws-deflate-regardless", "the server compresses even with ws_deflate off",
           "updown/server/protocol.py",
           "if config.ws_per_message_deflate:", "if True:",
           ("tests/test_ws_plain_below.py::test_through_the_server_acks_go_plain_frames_compressed_and_every_message_decodes[False]",)),
    Mutant("ws-factory-window", "the deflate window is not uvicorn's 12 bits",
           "updown/server/protocol.py",
           "DeflateFactory(server_max_window_bits=12", "DeflateFactory(server_max_window_bits=15",
           ("tests/test_ws_plain_below.py::test_the_factory_negotiates_as_uvicorns_and_hands_out_the_plain_below_extension",)),
    Mutant("ws-protocol-not-passed", "updown serve runs uvicorn's WebSocket protocol, not ours",
           "updown/cli/cmd_serve.py",
           "ws=WebSocketProtocol, ", "",
           ("tests/test_serve_config.py",)),
    Mutant('gc-refusal-kept-attached', "a refused step's error is kept in the group's results with its traceback",
           'updown/server/store.py',
           'results.append(detached(err))  # (a value now',
           'results.append(err)  # (a value now',
           ('tests/test_gc_errors.py::test_refused_and_conflicting_commits_leave_no_cycles[sqlite]',)),
    Mutant('gc-commit-holds-error', "Store.commit's frame keeps the error it raises",
           'updown/server/store.py',
           'del error  # (this frame, in its traceback',
           'pass  # (this frame, in its traceback',
           ('tests/test_gc_errors.py::test_refused_and_conflicting_commits_leave_no_cycles[sqlite]',)),
    Mutant('gc-commit-async-holds-error', "Store.commit_async's frame keeps the error it raises",
           'updown/server/store.py',
           'del error  # (as in :meth:`commit`',
           'pass  # (as in :meth:`commit`',
           ('tests/test_gc_errors.py::test_refused_and_conflicting_commits_leave_no_cycles[sqlite]',)),
    Mutant('gc-commit-async-holds-future', "Store.commit_async's frame keeps the future whose result is the error",
           'updown/server/store.py',
           'del future  # (its result is the error)',
           'pass  # (its result is the error)',
           ('tests/test_gc_errors.py::test_refused_and_conflicting_commits_leave_no_cycles[sqlite]',)),
    Mutant('gc-driver-holds-wrapped', "the store's driver keeps the wrapped error it raises",
           'updown/server/store.py',
           'del wrapped  # (this frame',
           'pass  # (this frame',
           ('tests/test_gc_errors.py::test_refused_and_conflicting_commits_leave_no_cycles[sqlite]',)),
    Mutant('gc-publish-holds-done', "the Redis publisher's frame keeps the future holding its error",
           'updown/server/hub.py',
           'del done  # (it holds the error raised here',
           'pass  # (it holds the error raised here',
           ('tests/test_gc_errors.py::test_notes_published_while_redis_is_away_leave_no_cycles',)),
    Mutant('gc-publish-error-attached', "a failed publish's error is handed to every waiting note with its frames",
           'updown/server/hub.py',
           "detached(err)  # (each caller's frame raises it",
           "pass  # (each caller's frame raises it",
           ('tests/test_gc_errors.py::test_notes_published_while_redis_is_away_leave_no_cycles',)),
    Mutant('gc-outage-locals-kept', "an outage's error keeps its frames' locals (SQLAlchemy's cycle)",
           'updown/server/outage.py',
           "forget_locals(err)  # (its frames' cycles",
           "pass  # (its frames' cycles",
           ('tests/test_gc_errors.py::test_an_error_path_leaves_at_most_its_bound_in_cycles[sqlite-db-away-actions]',)),
    Mutant('gc-pool-holds-job', "the bot pool's frame keeps a failed job, whose future holds the error",
           'updown/server/botpool.py',
           "del job  # (its future holds a failed job's error",
           "pass  # (its future holds a failed job's error",
           ('tests/test_gc_errors.py::test_a_failed_bot_pool_job_leaves_no_cycles',)),
    Mutant('reads-session-expiry-ignored', 'an expired session still signs its account in',
           'updown/server/store.py',
           '_SESSIONS.c.expires_at >= bindparam("now")',
           '_SESSIONS.c.expires_at >= 0',
           ('tests/test_store_reads.py::test_a_session_gives_its_account_only_while_valid[sqlite]',)),
    Mutant('reads-session-disabled-ignored', "a disabled account's session still signs it in",
           'updown/server/store.py',
           '_ACCOUNTS.c.disabled == false()))',
           '_ACCOUNTS.c.disabled.is_not(None)))',
           ('tests/test_store_reads.py::test_a_session_gives_its_account_only_while_valid[sqlite]',)),
    Mutant('reads-session-any-token', 'a session is found by another token',
           'updown/server/store.py',
           '.where(_SESSIONS.c.token_hash == bindparam("token"), ',
           '.where(_SESSIONS.c.token_hash != bindparam("token"), ',
           ('tests/test_store_reads.py::test_a_session_gives_its_account_only_while_valid[sqlite]',)),
    Mutant('reads-seats-out-of-order', "a table's seats come back out of order",
           'updown/server/store.py',
           '.where(_TABLES.c.id == bindparam("table")).order_by(_SEATS.c.seat))',
           '.where(_TABLES.c.id == bindparam("table")).order_by(_SEATS.c.seat.desc()))',
           ('tests/test_store_reads.py::test_a_table_comes_with_every_seat_in_order[sqlite]',)),
    Mutant('reads-table-without-seats-lost', 'a table without seat rows is not found',
           'updown/server/store.py',
           '_SEATS.c.table_id == _TABLES.c.id, isouter=True)',
           '_SEATS.c.table_id == _TABLES.c.id, isouter=False)',
           ('tests/test_store_reads.py::test_a_table_comes_with_every_seat_in_order[sqlite]',)),
    Mutant('reads-table-empty-seat', 'a table without seat rows gets a seat of nothing',
           'updown/server/store.py',
           'for row in rows if row[width] is not None]',
           'for row in rows]',
           ('tests/test_store_reads.py::test_a_table_comes_with_every_seat_in_order[sqlite]',)),
    Mutant('reads-chat-last-newest-first', 'the last chat lines come newest first',
           'updown/server/store.py',
           '"after": after, "last": last}).all()[::-1]',
           '"after": after, "last": last}).all()',
           ('tests/test_store_reads.py::test_chat_lines_after_one_and_the_last_few_oldest_first[sqlite]',)),
    Mutant('reads-chat-after-includes-it', 'chat after a line includes that line',
           'updown/server/store.py',
           '_CHAT.c.seq > bindparam("after")',
           '_CHAT.c.seq >= bindparam("after")',
           ('tests/test_store_reads.py::test_chat_lines_after_one_and_the_last_few_oldest_first[sqlite]',)),
    Mutant('shared-error-closes-coroutines', "clearing an error's frames clears coroutines' too (another task's, suspended)",
           'updown/server/outage.py',
           "if not frame.f_code.co_flags & _SUSPENDABLE:",
           "if True:",
           ('tests/test_shared_errors.py',)),
    Mutant('shared-error-keeps-traceback', "a forgotten error keeps its traceback (and the coroutine frames on it)",
           'updown/server/outage.py',
           "        e.__traceback__ = None\n",
           "",
           ('tests/test_shared_errors.py::test_clearing_a_shared_errors_frames_never_closes_another_tasks_suspended_coroutine',)),
    Mutant('interrupt-raised-anywhere', "Ctrl-C or a kill while workers run is raised where it comes, as before",
           'updown/arena/runner.py',
           "        self.caught = signum\n",
           "        raise KeyboardInterrupt\n",
           ('tests/test_deferred_interrupts.py',)),
    Mutant('stalled-loop-left-alone', "a driving loop that waits for ever with a bot due is never restarted",
           'updown/server/hub.py',
           "if now - live.progress_at < STALL or not live.due():",
           "if True:",
           ('tests/test_idle_clock.py::test_a_driving_loop_that_waits_for_ever_with_a_bot_due_is_restarted_after_the_stall_and_logged[sqlite]',)),
    Mutant('stalled-loop-restarted-at-once', "a running driving loop is restarted whenever the clock looks, stalled or not",
           'updown/server/hub.py',
           "if now - live.progress_at < STALL or not live.due():",
           "if not live.due():",
           ('tests/test_idle_clock.py::test_a_driving_loop_that_waits_for_ever_with_a_bot_due_is_restarted_after_the_stall_and_logged[sqlite]',)),
    Mutant('noted-interrupt-ignored', "a kill noted while workers run is never acted on (the panel and the arena play on)",
           'updown/arena/runner.py',
           "        if self.caught is not None:\n            raise KeyboardInterrupt\n",
           "        pass\n",
           ("tests/test_bots_panel.py::test_ctrl_c_or_a_kill_stops_the_workers_and_leaves_whole_rows_that_a_second_run_completes[kill]",
            "tests/test_arena_kill.py::test_a_killed_arena_stops_its_workers_and_keeps_its_finished_deals")),
    Mutant('panel-p95-off-by-one', "the panel's 95th percentile of decision times taken one place too high",
           'benchmarks/bots_panel.py',
           '"p95": s[(95 * len(s) + 99) // 100 - 1]',
           '"p95": s[95 * len(s) // 100]',
           ('tests/test_bots_panel.py::test_each_test_bots_line_gives_the_95th_percentile_of_its_decision_times',)),
    Mutant('signs-lost-in-careful', "a group's signs of life are not written when a step of it conflicts (the careful path)",
           'updown/server/store.py',
           "            self._write_signs(conn, signs)  # (outside the items' savepoints",
           "            pass  # (outside the items' savepoints",
           ('tests/test_signs_grouped.py::test_a_sign_in_a_group_with_a_conflicting_step_is_still_stored[sqlite]',)),
    Mutant('signs-told-before-stored', "a sign of life's caller is told it is stored when the writer takes it, before its commit",
           'updown/server/store.py',
           "            signs, self._signs = self._signs[:_SIGNS_MOST], self._signs[_SIGNS_MOST:]\n",
           "            signs, self._signs = self._signs[:_SIGNS_MOST], self._signs[_SIGNS_MOST:]\n"
           "            [told.set_result(None) for _t, _s, _at, told in signs]\n",
           ('tests/test_signs_grouped.py::test_each_connected_returns_only_once_its_sign_is_stored[sqlite]',)),
    Mutant("gc-freeze-over-default-back", "the server freezes only after full collections of 0.05 s of CPU again",
           "updown/server/settings.py",
           '''freeze_over: float = Field(default=0.0,''',
           '''freeze_over: float = Field(default=0.05,''',
           ("tests/test_gc_policy.py::test_by_default_and_as_the_server_is_set_every_full_collection_is_followed_by_a_freeze",)),
    Mutant("ws-parser-left-open", "a lost WebSocket's parser is left waiting, its protocol and zlib streams in a cycle",
           "updown/server/protocol.py",
           "            conn.parser.close()\n",
           "            pass\n",
           ("tests/test_gc_cycles.py::test_a_table_socket_that_comes_and_goes_leaves_no_cycles[sqlite-seated]",)),
    Mutant("gc-python-full-left-on", "Python's own third threshold stays (a full collection every 10 of the middle generation's)",
           "updown/server/gcpolicy.py",
           "                self.gc.set_threshold(self._threshold[0], self._threshold[1], self.full_after)\n",
           "                pass\n",
           ("tests/test_gc_policy.py::test_the_third_threshold_is_the_policys_while_it_runs_and_pythons_after",)),
    Mutant("gc-full-after-not-passed", "the server leaves its third threshold to Python (the setting not passed)",
           "updown/server/app.py",
           "freeze_over=settings.gc.freeze_over,\n                         full_after=settings.gc.full_after)",
           "freeze_over=settings.gc.freeze_over)",
           ("tests/test_gc_policy.py::test_the_server_sets_the_third_threshold_by_default",)),
    Mutant("ws-parser-error-kept", "a failed WebSocket's error is kept with its traceback, its protocol in a cycle",
           "updown/server/protocol.py",
           "            conn.parser_exc = None\n",
           "            pass\n",
           ("tests/test_gc_cycles.py::test_a_socket_websockets_fails_leaves_no_cycles[sqlite]",)),
    Mutant("gc-count-not-reset", "after start-up's freeze Python waits for a quarter of the whole heap before a full collection",
           "updown/server/gcpolicy.py",
           "        self.gc.collect()\n\n    async def _renew_forever",
           "        pass\n\n    async def _renew_forever",
           ("tests/test_gc_policy.py::test_after_start_up_pythons_next_full_collection_does_not_wait_for_a_quarter_of_the_heap",)),
]


def copy_tree(dest: Path) -> None:
    """The tracked files (and new ones not ignored) of the work tree, as they are now."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def run_tests(tree: Path, tests: tuple[str, ...], timeout: float, slot: int = 0, slots: int = 1) -> tuple[int, float, str]:
    """pytest on ``tests`` in ``tree``; ``slot`` of ``slots`` running at once (UPDOWN_TEST_SLOT: the
    servers the tests start take ports of their own slot, as pytest-xdist's workers do)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "UPDOWN_TEST_SLOT": f"{slot}/{slots}"}
    started = time.time()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-W", "ignore::DeprecationWarning", *tests],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
        code, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as err:
        code, out = -1, f"timed out after {timeout:.0f} s: {str(err.stdout or '')[-500:]}"
    return code, time.time() - started, out


def chunks(tests: tuple[str, ...], n: int) -> list[tuple[str, ...]]:
    """``tests`` in at most ``n`` parts of about as many selections each, a test file's selections
    together (its module's fixtures are then set up once)."""
    by_file: dict[str, list[str]] = {}
    for t in tests:
        by_file.setdefault(t.split("::")[0], []).append(t)
    parts: list[list[str]] = [[] for _ in range(max(1, n))]
    for group in sorted(by_file.values(), key=len, reverse=True):
        min(parts, key=len).extend(group)
    return [tuple(part) for part in parts if part]


def run_all(items: list[Item], jobs: int, one: Callable[[Item, int], Done]) -> list[Done]:
    """``one(item, slot)`` for every item, ``jobs`` at a time (slot: which of the ``jobs`` runs it,
    0 to jobs - 1, never two at once); the results in ``items``' order."""
    results: dict[int, Done] = {}
    waiting = list(enumerate(items))
    lock = threading.Lock()

    def worker(slot: int) -> None:
        while True:
            with lock:
                if not waiting:
                    return
                k, item = waiting.pop(0)
            results[k] = one(item, slot)

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [results[k] for k in range(len(items))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and their tests")
    parser.add_argument("--check", action="store_true", help="only check that each mutant's code is found "
                        "exactly once (as the run does first), and run nothing")
    parser.add_argument("--timeout", type=float, default=240, help="seconds one mutant's tests may take")
    parser.add_argument("--jobs", type=int, default=3, help="mutants at once, each in its own copy of the tree")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        print(f"no such mutant: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            print(f"{m.name:26} {m.what}\n{'':26} killed by: {', '.join(m.tests)}")
        return 0
    bad = 0
    with tempfile.TemporaryDirectory(prefix="updown-mutants-") as tmp:
        base = Path(tmp) / "base"
        copy_tree(base)
        for m in chosen:  # each mutant's edits must still apply, each exactly once
            text = (base / m.path).read_text()
            for k, (old, _new) in enumerate(m.edits()):
                count = text.count(old)
                if count != 1:
                    which = f"edit {k + 1} of " if len(m.edits()) > 1 else ""
                    print(f"{m.name}: {which}its code is found {count} times in {m.path}, not once: "
                          "update the mutant")
                    bad += 1
        if bad:
            return 1
        if args.check:
            print(f"all {len(chosen)} mutants apply")
            return 0
        every = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
        started = time.time()
        parts = chunks(every, args.jobs)
        runs = run_all(parts, len(parts), lambda tests, slot: run_tests(base, tests, args.timeout * 2, slot, len(parts)))
        failed = [out for code, _s, out in runs if code != 0]
        print(f"unchanged copy: {'FAILS' if failed else 'passes'} ({len(every)} test selections, "
              f"{time.time() - started:.0f} s)")
        if failed:
            print(failed[0][-3000:])
            return 1
        said = threading.Lock()

        def one(m: Mutant, slot: int) -> bool:
            tree = Path(tmp) / m.name
            shutil.copytree(base, tree)
            target = tree / m.path
            text = target.read_text()
            for old, new in m.edits():
                text = text.replace(old, new)
            target.write_text(text)
            code, seconds, out = run_tests(tree, m.tests, args.timeout, slot, args.jobs)
            killed = code == 1  # a failing test; a time-out proves nothing deterministic
            verdict = "killed" if killed else {0: "SURVIVED", -1: "TIMED OUT"}.get(code, f"ERROR (pytest exit {code})")
            with said:
                print(f"{m.name:26} {verdict:9} {seconds:5.0f} s  {m.what}", flush=True)
                if not killed:
                    print(out[-2000:], flush=True)
            shutil.rmtree(tree, ignore_errors=True)
            return killed

        results = run_all(chosen, args.jobs, one)
        bad += sum(1 for killed in results if not killed)
    print(f"{len(chosen) - bad} of {len(chosen)} mutants killed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
