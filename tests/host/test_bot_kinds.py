"""One registry of bot kinds (`unonet.bots.kinds`): the host lists exactly its public kinds at each
level, and each kind builds its policy."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from unonet.bots import BOT_KINDS, DEFAULT_BOT_KIND, Bot
from unonet.bots.kinds import describe, public_names
from unonet.v1 import lobby_service_pb2

TIMEOUT = 10


def test_every_kind_builds_a_seeded_policy_of_its_own_name() -> None:
    assert DEFAULT_BOT_KIND.partition(":")[0] in BOT_KINDS
    assert DEFAULT_BOT_KIND in public_names()
    for name, kind in BOT_KINDS.items():
        policy = kind.factory(7)
        assert isinstance(policy, Bot) and policy.kind == name == kind.name
        assert kind.description.endswith(".")


async def test_the_host_lists_the_registry_and_refuses_any_other_kind(stubs: Any) -> None:
    listed = await stubs.lobby.ListBotKinds(lobby_service_pb2.ListBotKindsRequest(), timeout=TIMEOUT)
    assert {(k.name, k.description, k.is_default) for k in listed.bot_kinds} == {
        (name, describe(name), name == DEFAULT_BOT_KIND) for name in public_names()}
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=2), timeout=TIMEOUT)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
            table_id=created.table.table_id, owner_token=created.owner_token, count=1, bot_kind="no-such-kind"),
            timeout=TIMEOUT)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == f"no bot kind 'no-such-kind'; known: {', '.join(public_names())}"
