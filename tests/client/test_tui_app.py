"""The game screen's application driven by keys through `create_pipe_input()` into a `DummyOutput()`,
against a real host on 127.0.0.1:0 with a bot: the seat's entropy is sent for it, a legal play goes
through, a dead key gives a hint, Q quits with the seat kept."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator

import pytest
from polling import poll_until
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from unonet.client.table_client import TableClient
from unonet.client.tui.layout import draw_screen
from unonet.client.tui.model import ConnectionState, GameModel
from unonet.client.tui.render import render_status
from unonet.client.tui.session import Session
from unonet.host.host import Host
from unonet.host.server import create_server

TIMEOUT = 20.0


@pytest.fixture
async def address() -> AsyncIterator[str]:
    server, port, host = await asyncio.wait_for(
        create_server("127.0.0.1:0", host=Host(write_timeout_s=2.0)), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await asyncio.wait_for(host.stop(), TIMEOUT)
        await asyncio.wait_for(server.stop(grace=None), TIMEOUT)


until = functools.partial(poll_until, timeout=TIMEOUT)


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(piece for _, piece, *_ in fragments)


@pytest.mark.timeout(15 * TIMEOUT)
async def test_keys_play_a_legal_card_hint_a_dead_key_and_quit(address: str) -> None:
    async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as client:
        created = await asyncio.wait_for(client.create_table("standard", {"target_score": 500}, 2, manual_start=True),
                                         TIMEOUT)
        await asyncio.wait_for(client.join(created.table_id, "ann", 0), TIMEOUT)

        async def start() -> None:
            await asyncio.wait_for(client.start_table(fill_with_bots=True), TIMEOUT)

        with create_pipe_input() as pipe:
            session = Session(client, input=pipe, output=DummyOutput(), ping_interval=0.2, on_stream_open=start)
            model: GameModel = session.model
            running = asyncio.create_task(session.run())
            try:
                # The deal and up to three host bots' moves first: ~1 s on a quiet machine, but 20 s ran out
                # once in a clean-clone run (the machine busy on both cores, the wheel compiling beside).
                await poll_until(lambda: model.connection == ConnectionState.CONNECTED and model.is_my_turn
                                 and bool(model.legal.plays or model.legal.HasField("draw")), "our turn",
                                 timeout=3 * TIMEOUT)
                assert 0 in model.shuffle_contributors  # the seat's entropy went in, nobody asked the player
                assert model.fairness_checks > 0 and not model.fairness_failure
                head = client.log_head  # the SDK's chain and the session's Verifier follow the same copy
                assert head is not None and model.log_head == f"{head[0]}:{head[1].hex()}"
                assert "YOUR TURN" in text(render_status(model, session.screen.ui, 0.0))
                before = model.event_number
                if model.legal.plays:
                    hand_before = len(model.hand)
                    pipe.send_text("\r")
                    if model.legal.plays and all(o.needs_color for o in model.legal.plays):
                        await until(lambda: session.screen.ui.prompt is not None, "the colour prompt")
                        pipe.send_text("r")
                    await until(lambda: len(model.hand) < hand_before or model.legal.choose_color, "the play")
                    if model.legal.choose_color:
                        pipe.send_text("g")
                    await until(lambda: any(line.text.startswith("ann plays") for line in model.log), "the log")
                else:
                    pipe.send_text(" ")
                    await until(lambda: any(line.text.startswith("ann draws") for line in model.log), "the draw")
                assert model.event_number > before
                assert "ann (you)" in draw_screen(model, session.screen.ui, 0.0, 80, 24)[0].text()
                # A dead key's hint lasts until the moment changes: ask at our turn, when nothing moves
                # until we do (the bot answered our move meanwhile).
                await until(lambda: model.is_my_turn and not session.screen.ui.pending
                            and bool(model.legal.plays or model.legal.HasField("draw")), "our next turn")
                pipe.send_text("z")
                await until(lambda: "does nothing here" in session.screen.ui.hint, "the hint")
                pipe.send_text("q")
                await asyncio.wait_for(running, TIMEOUT)
            finally:
                running.cancel()
        view = await asyncio.wait_for(client.get_view(), TIMEOUT)  # Q kept the seat: its token still works
        assert view.seat == 0 and not view.is_spectator


async def test_a_refused_command_is_told_in_words(address: str) -> None:
    async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as client:
        created = await asyncio.wait_for(client.create_table("standard", None, 2, manual_start=True), TIMEOUT)
        await asyncio.wait_for(client.join(created.table_id, "ann", 0), TIMEOUT)
        await asyncio.wait_for(client.start_table(fill_with_bots=True), TIMEOUT)
        with create_pipe_input() as pipe:
            session = Session(client, input=pipe, output=DummyOutput(), ping_interval=0.2)
            running = asyncio.create_task(session.run())
            try:
                await until(lambda: session.model.connection == ConnectionState.CONNECTED
                            and session.model.event_number > 0, "the stream")
                from unonet.client import commands as cmd

                session.handle(cmd.CallUno())  # not listed: the host refuses it
                await until(lambda: session.screen.ui.hint.startswith("refused:"), "the refusal")
                assert "there is no UNO to call" in session.screen.ui.hint
                pipe.send_text("q")
                await asyncio.wait_for(running, TIMEOUT)
            finally:
                running.cancel()


def test_a_read_only_screen_takes_its_owners_keys_first_and_q_still_quits() -> None:
    """How a replay reuses the game screen: its own model, its own stepping keys, no commands."""
    from unonet.client.tui.screen import GameScreen

    steps: list[int] = []
    model = GameModel(seat=None, connection=ConnectionState.CONNECTED)
    with create_pipe_input() as pipe:
        screen = GameScreen(model, input=pipe, output=DummyOutput(), extra_keys={"n": lambda: steps.append(1)},
                            extra_help=["  N           next event"])
        screen.press("N")
        screen.press("enter")
        assert steps == [1] and "watching" in screen.ui.hint
        screen.press("?")
        from unonet.client.tui.controller import help_lines

        assert "  N           next event" in help_lines(model, screen.ui)


async def test_the_creator_adds_a_bot_and_starts_early_from_the_game_screen(address: str) -> None:
    async with await asyncio.wait_for(TableClient.connect(address), TIMEOUT) as client:
        created = await asyncio.wait_for(client.create_table("standard", None, 4), TIMEOUT)
        await asyncio.wait_for(client.join(created.table_id, "ann", 0), TIMEOUT)
        with create_pipe_input() as pipe:
            session = Session(client, input=pipe, output=DummyOutput(), ping_interval=0.2)
            model = session.model
            running = asyncio.create_task(session.run())
            try:
                await until(lambda: model.connection == ConnectionState.CONNECTED and len(model.seats) == 4,
                            "the table")
                assert "S starts now" in text(render_status(model, session.screen.ui, 0.0))
                pipe.send_text("a")
                await until(lambda: model.seats[1].occupied and model.seats[1].is_bot, "a bot at seat 1")
                assert not model.seats[2].occupied and model.round_number == 0
                pipe.send_text("s")  # the two empty seats get bots and the match starts
                await until(lambda: model.round_number == 1 and all(s.occupied for s in model.seats), "the start")
                assert [s.is_bot for s in model.seats] == [False, True, True, True]
                pipe.send_text("s")
                await until(lambda: "started already" in session.screen.ui.hint, "the hint")
                pipe.send_text("q")
                await asyncio.wait_for(running, TIMEOUT)
            finally:
                running.cancel()
