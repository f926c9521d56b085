"""updown admin: accounts can be disabled; every admin action is stored

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28 10:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing accounts are enabled: the server default fills the column (SQLite adds it in place).
    with op.batch_alter_table('accounts') as batch:
        batch.add_column(sa.Column('disabled', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table('admin_actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.Float(), nullable=False),
    sa.Column('by', sa.String(length=64), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('details', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_admin_actions_at', 'admin_actions', ['at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_admin_actions_at', table_name='admin_actions')
    op.drop_table('admin_actions')
    with op.batch_alter_table('accounts') as batch:
        batch.drop_column('disabled')
