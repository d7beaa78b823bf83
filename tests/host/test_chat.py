"""Table chat: a retried message (same command id) is shown once, for seats and spectators alike, and
chat command ids live apart from the seat's game commands."""

from __future__ import annotations

from typing import Any

import pytest
from host_stubs import TIMEOUT, create, join

from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import (
    chat_service_pb2,
)


def seated_table() -> tuple[Table, str, str]:
    host = Host(MemoryStore())
    table = Table("t", TableSettings(name="t", seat_count=2, preset="standard", overrides={}, manual_start=True),
                  owner_token="o", seed=1, created_ns=0, store=host.store, clock_ns=lambda: 0)
    host.store.create_table("t", {}, 0)
    ann, _ = table.join("ann", None, False)
    watcher, _ = table.join("eve", None, True)
    return table, ann, watcher


@pytest.mark.parametrize("who", ["seat", "spectator"])
def test_a_retried_message_is_shown_once_with_its_first_result(who: str) -> None:
    table, ann, watcher = seated_table()
    token = ann if who == "seat" else watcher
    first = table.chat(token, "m1", "hello")
    again = table.chat(token, "m1", "hello")
    assert again == first and table.last_number == first.last_event_number
    other = table.chat(token, "m2", "hello")  # another id: another message
    assert other.event_number == first.last_event_number + 1


def test_a_chat_command_id_reused_for_another_text_is_refused() -> None:
    table, ann, _ = seated_table()
    table.chat(ann, "m1", "hello")
    with pytest.raises(HostError) as refused:
        table.chat(ann, "m1", "goodbye")
    assert refused.value.reason == "COMMAND_ID_REUSED"


def test_spectators_with_the_same_command_id_are_told_apart() -> None:
    table, _, watcher = seated_table()
    other, _ = table.join("zed", None, True)
    first = table.chat(watcher, "m1", "hi")
    second = table.chat(other, "m1", "hi")
    assert second.event_number == first.last_event_number + 1


def test_without_a_command_id_every_message_is_shown() -> None:
    table, ann, _ = seated_table()
    first = table.chat(ann, "", "hi")
    second = table.chat(ann, "", "hi")
    assert second.event_number == first.last_event_number + 1


def test_a_replayed_table_remembers_its_chat_command_ids() -> None:
    table, ann, _ = seated_table()
    first = table.chat(ann, "m1", "hello")
    stored = table.store.table("t")
    assert stored is not None
    again = Table("t", table.settings, owner_token="o", seed=1, created_ns=0, store=MemoryStore(), clock_ns=lambda: 0)
    again.replay(stored.journal)
    assert again.chat(ann, "m1", "hello") == first and again.last_number == table.last_number


async def test_a_retried_chat_message_is_shown_once(stubs: Any) -> None:
    """A chat is a command: under silent_two a retry shown twice would also be penalised twice."""
    table_id, _ = await create(stubs)
    ann = await join(stubs, table_id, "ann")
    request = chat_service_pb2.SendChatRequest(table_id=table_id, token=ann, command_id="hello-1", text="hello")
    first = await stubs.chat.SendChat(request, timeout=TIMEOUT)
    again = await stubs.chat.SendChat(request, timeout=TIMEOUT)
    assert again.result == first.result
    assert stubs.host.tables[table_id].last_number == first.result.last_event_number
