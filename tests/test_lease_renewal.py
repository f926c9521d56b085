"""The leases to drive tables (several processes, issue 35) are renewed and taken in one statement.

``Store.renew_leases`` replaced a read of the claimable tables followed by one transaction a table,
which with Redis cost a process a sixth to a third of a core at 2,000 to 5,000 idle players. It must
keep :meth:`Store.claim`'s rule row by row: renew what the process holds, take what nobody holds or
whose lease ran out, never a lease another process still holds, nor a table that is not running.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import event, update

from updown.server.db import make_engine, upgrade
from updown.server.models import Seat, Table
from updown.server.store import Store

from test_server import db_urls, fresh_pg_db


@pytest.fixture(params=db_urls())
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    db = f"sqlite:///{tmp_path / 'updown.db'}" if request.param == "sqlite" else fresh_pg_db()
    engine = make_engine(db)
    upgrade(engine)
    return Store(engine)


def _table(store: Store, table_id: str, status: str, owner: str | None, lease_until: float) -> None:
    ann = store.account_id_for(f"ann-{table_id}", "person")
    store.create_table(
        Table(id=table_id, game="updown", players=2, options='{"rounds": 1}', seed=f"seed-{table_id}", timer=None,
              grace=60.0, rated=False, private=False, status=status, created_by=ann, created_at=time.time()),
        [Seat(table_id=table_id, seat=0, kind="person", account_id=ann, name="ann"),
         Seat(table_id=table_id, seat=1, kind="bot", bot="random", name="bot 1")])
    with store.engine.begin() as c:
        c.execute(update(Table).where(Table.id == table_id).values(owner=owner, lease_until=lease_until))


def _leases(store: Store) -> dict[str, tuple[str | None, float]]:
    with store.engine.connect() as c:
        return {r.id: (r.owner, r.lease_until) for r in c.execute(Table.__table__.select())}


def test_one_statement_renews_ours_and_takes_the_free_and_the_lapsed_only(store: Store) -> None:
    now = time.time()
    _table(store, "mine", "running", "A", now + 5)        # ours: renewed
    _table(store, "free", "running", None, 0.0)           # nobody's (given back): taken
    _table(store, "lapsed", "running", "B", now - 1)      # B's lease ran out: taken
    _table(store, "held", "running", "B", now + 5)        # B still holds it: left alone
    _table(store, "open", "open", None, 0.0)              # not running: left alone
    _table(store, "done", "finished", "A", now + 5)       # finished: not ours to drive
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, sql: str, *_args: object) -> None:
        statements.append(sql)

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        before = time.time()
        driven = store.renew_leases("A", 10.0)
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    assert sorted(driven) == ["free", "lapsed", "mine"]
    assert [s.split()[0].upper() for s in statements] == ["UPDATE"], statements
    leases = _leases(store)
    for table_id in ("mine", "free", "lapsed"):
        owner, until = leases[table_id]
        assert owner == "A" and until >= before + 10.0, (table_id, leases[table_id])
    assert leases["held"] == ("B", pytest.approx(now + 5))
    assert leases["open"] == (None, 0.0)
    assert leases["done"] == ("A", pytest.approx(now + 5))
    # B's next turn: its lease on "held" renewed; "lapsed" is A's now and stays so.
    assert store.renew_leases("B", 10.0) == ["held"]
    assert _leases(store)["lapsed"][0] == "A"
    store.engine.dispose()
