"""one seat per account per table; when a seat's holder was last seen, and away since when

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26 03:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('seats') as batch:
        batch.add_column(sa.Column('seen_at', sa.Float(), nullable=True))
        batch.add_column(sa.Column('away_since', sa.Float(), nullable=True))
    # Before the index: an account that took several seats of one table (possible before, through
    # racing joins) keeps its lowest seat. Its other seats are freed where the table has not
    # started, and kept without an account where it has (their steps stay; the account's ratings
    # and ledger are untouched).
    conn = op.get_bind()
    dupes = conn.execute(sa.text(
        "SELECT s.table_id, s.seat, t.status FROM seats s JOIN tables t ON t.id = s.table_id "
        "WHERE s.account_id IS NOT NULL AND EXISTS (SELECT 1 FROM seats o WHERE o.table_id = s.table_id "
        "AND o.account_id = s.account_id AND o.seat < s.seat)")).all()
    for table_id, seat, status in dupes:
        if status == 'open':
            conn.execute(sa.text("UPDATE seats SET kind = 'open', account_id = NULL, name = '' "
                                 "WHERE table_id = :t AND seat = :s"), {"t": table_id, "s": seat})
        else:
            conn.execute(sa.text("UPDATE seats SET account_id = NULL, \"left\" = :y "
                                 "WHERE table_id = :t AND seat = :s"), {"t": table_id, "s": seat, "y": True})
    op.create_index('uq_seats_table_account', 'seats', ['table_id', 'account_id'], unique=True)


def downgrade() -> None:
    op.drop_index('uq_seats_table_account', table_name='seats')
    with op.batch_alter_table('seats') as batch:
        batch.drop_column('away_since')
        batch.drop_column('seen_at')
