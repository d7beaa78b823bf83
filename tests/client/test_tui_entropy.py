"""The seat's secret share of the fair shuffle is on disk before its commitment leaves, so a client
that crashed between the commit and the reveal reveals the very value it committed to once it is back
(against a real host on 127.0.0.1:0 whose clock stands still, so no shuffle deadline passes)."""

from __future__ import annotations

import asyncio
import functools
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from polling import poll_until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from unonet.client.errors import InvalidArgument
from unonet.client.table_client import TableClient
from unonet.client.tui.play import play_joined
from unonet.client.tui.seats import ENTROPY_ROUNDS, SavedSeat, SeatStore
from unonet.fairness import commit_seat_entropy
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import events_pb2

TIMEOUT = 20.0
NOW = 1_700_000_000_000_000_000


@pytest.fixture
async def address() -> AsyncIterator[str]:
    server, port, host = await asyncio.wait_for(
        create_server("127.0.0.1:0", host=Host(clock_ns=lambda: NOW)), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await asyncio.wait_for(host.stop(), TIMEOUT)
        await asyncio.wait_for(server.stop(grace=None), TIMEOUT)


until = functools.partial(poll_until, timeout=TIMEOUT)


def test_the_store_keeps_the_newest_rounds_shares_with_the_token(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    store.keep_entropy("h:1", "t", 1, b"\x01" * 32)  # no seat saved: nothing to attach it to
    assert store.entropy("h:1", "t") == {}
    store.put("h:1", "t", SavedSeat("tok", 0, "ann", owner_token="own"))
    for round_no in range(1, ENTROPY_ROUNDS + 3):
        store.keep_entropy("h:1", "t", round_no, bytes([round_no]) * 32)
    kept = store.entropy("h:1", "t")
    assert sorted(kept) == list(range(3, ENTROPY_ROUNDS + 3)) and kept[4] == b"\x04" * 32
    store.put("h:1", "t", SavedSeat("tok", 0, "ann", owner_token="own"))  # same token: shares stay
    assert store.entropy("h:1", "t") == kept and store.get("h:1", "t") == SavedSeat("tok", 0, "ann", "own")
    store.put("h:1", "t", SavedSeat("new", 0, "ann"))  # another seat: the old shares are of no use
    assert store.entropy("h:1", "t") == {}
    assert (tmp_path / "seats.json").stat().st_mode & 0o077 == 0


async def test_a_client_restarted_between_commit_and_reveal_reveals_its_saved_share(
        address: str, tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as bea:
        created = await asyncio.wait_for(bea.create_table("standard", None, 2, manual_start=True), TIMEOUT)
        table_id = created.table_id
        await asyncio.wait_for(bea.join(table_id, "bea", 1), TIMEOUT)
        seen: list[events_pb2.Event] = []

        async def watch() -> None:  # seat 1 is played by hand: its stream open, so the shuffle waits for it
            async for event in bea.events(after=0):
                seen.append(event)

        watching = asyncio.create_task(watch())

        def payloads(kind: str) -> list[object]:
            return [getattr(e, kind) for e in seen if e.HasField(kind)]  # type: ignore[arg-type]

        try:
            async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as ann:
                joined = await asyncio.wait_for(ann.join(table_id, "ann", 0), TIMEOUT)
                store.put(address, table_id, SavedSeat(joined.token, 0, "ann"))

                async def start() -> None:
                    await asyncio.wait_for(bea.start_table(), TIMEOUT)

                with create_pipe_input() as pipe:  # the first run: commits, then "crashes" before revealing
                    first = asyncio.create_task(play_joined(ann, store=store, address=address, on_stream_open=start,
                                                            input=pipe, output=DummyOutput()))
                    try:
                        await until(lambda: any(p.seat == 0 for p in payloads("seat_entropy_committed")),
                                    "seat 0's commitment")
                        pipe.send_text("q")
                        await asyncio.wait_for(first, TIMEOUT)
                    finally:
                        first.cancel()
            round_no = payloads("shuffle_committed")[0].round_number  # type: ignore[attr-defined]
            saved = store.entropy(address, table_id)
            assert list(saved) == [round_no]  # on disk, and only there: that process is gone

            mine = secrets.token_bytes(32)
            await asyncio.wait_for(bea.commit_entropy(commit_seat_entropy(1, mine, table_id=table_id,
                                                                          round_no=round_no)), TIMEOUT)
            async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as again:
                again.attach(table_id, joined.token, 0)
                with pytest.raises(InvalidArgument) as refused:  # a fresh share would not open the commitment
                    await asyncio.wait_for(again.reveal_entropy(secrets.token_bytes(32)), TIMEOUT)
                assert refused.value.reason == "INVALID_FIELD"
                with create_pipe_input() as pipe:  # the restarted client: the share comes from the disk
                    second = asyncio.create_task(play_joined(again, store=store, address=address,
                                                             input=pipe, output=DummyOutput()))
                    try:
                        await until(lambda: any(p.seat == 0 for p in payloads("seat_entropy_revealed")),
                                    "seat 0's reveal")
                        revealed = next(p for p in payloads("seat_entropy_revealed") if p.seat == 0)  # type: ignore[attr-defined]
                        assert revealed.entropy == saved[round_no]  # type: ignore[attr-defined]
                        await asyncio.wait_for(bea.reveal_entropy(mine), TIMEOUT)
                        await until(lambda: bool(payloads("deck_committed")), "the deck")
                        deck = payloads("deck_committed")[0]
                        assert list(deck.contributing_seats) == [0, 1]  # type: ignore[attr-defined]
                        pipe.send_text("q")
                        await asyncio.wait_for(second, TIMEOUT)
                    finally:
                        second.cancel()
        finally:
            watching.cancel()
