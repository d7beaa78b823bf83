"""Rule refusals over the wire, on stacked decks: each named reason of errors.proto that random play
cannot be relied on to produce reaches the client in `unonet-error-bin` (tests/test_error_reasons.py
counts them).

The host deals with the engine's own shuffle (`fair_shuffle` off), and the match it starts is given a
stacked deck and dealer 0, so seat 1 plays first with the cards listed here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from unonet.engine import Card, Match, standard_deck
from unonet.host import table as table_module
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    errors_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    rules_pb2,
    views_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 10
FILLER = [Card.parse(text) for text in (
    "green 8", "green 9", "yellow 8", "yellow 9", "blue 8", "blue 9", "green 6", "yellow 6", "blue 6")]


@dataclass
class Wire:
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub


@pytest.fixture
async def wire() -> AsyncIterator[Wire]:
    server, port, host = await create_server("127.0.0.1:0", host=Host(fair_shuffle=False))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Wire(lobby_service_pb2_grpc.LobbyServiceStub(channel), play_service_pb2_grpc.PlayServiceStub(channel),
                   watch_service_pb2_grpc.WatchServiceStub(channel))
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)


def stacked_deck(hands: dict[int, Sequence[str]], first: str, seats: int, *, drawn: Sequence[str] = ()) -> list[Card]:
    """A whole standard deck, first card dealt first, dealer 0: each seat's hand (filled up to 7 with
    FILLER cards), then the first card turned, then `drawn` (the next cards drawn), then the rest."""
    order = [(1 + i) % seats for i in range(seats)]  # dealt from the dealer's left
    full = {seat: [Card.parse(text) for text in hands.get(seat, ())] for seat in range(seats)}
    fillers = iter(FILLER * seats)
    for cards in full.values():
        while len(cards) < 7:
            cards.append(next(fillers))
    rest = standard_deck()
    chosen = [card for cards in full.values() for card in cards] + [Card.parse(first)]
    chosen += [Card.parse(text) for text in drawn]
    for card in chosen:
        rest.remove(card)
    deck = [full[seat][round_] for round_ in range(7) for seat in order]
    return deck + [Card.parse(first)] + [Card.parse(text) for text in drawn] + rest


async def rigged_table(wire: Wire, monkeypatch: pytest.MonkeyPatch, deck: list[Card], seats: int,
                       **overrides: Any) -> tuple[str, str, list[str]]:
    """A started table of `seats` players dealt from `deck` by dealer 0: (table id, owner token, tokens)."""
    def stacked_match(ruleset: Any, players: int, rng: Any, **options: Any) -> Match:
        return Match(ruleset, players, rng, dealer=0, decks=[deck], **options)

    monkeypatch.setattr(table_module, "Match", stacked_match)
    created = await wire.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="rigged", preset="standard", seat_count=seats, overrides=rules_pb2.Ruleset(**overrides)),
        timeout=TIMEOUT)
    tokens = [(await wire.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=created.table.table_id, name=f"p{seat}", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=seat),
        timeout=TIMEOUT)).token for seat in range(seats)]
    return created.table.table_id, created.owner_token, tokens


def card(text: str) -> cards_pb2.Card:
    parsed = Card.parse(text)
    from unonet.wire import convert

    return convert.card_to_pb(parsed)


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    details = dict(caught.value.trailing_metadata() or ())
    assert errors_pb2.ErrorDetail.FromString(details["unonet-error-bin"]).reason == reason


def ids(table_id: str, token: str, command_id: str) -> dict[str, str]:
    return {"table_id": table_id, "token": token, "command_id": command_id}


async def test_play_refusals_on_ones_turn(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """T2 without bluffing, H5, H10 and the request's own colour: each refused with its own reason."""
    deck = stacked_deck({1: ["wild_draw_four", "red 5", "blue 7", "red 7"]}, "red 3", 2)
    table_id, owner, tokens = await rigged_table(wire, monkeypatch, deck, 2, bluffing=False, multi_play=True,
                                                 seven_o=True)
    play, failed = wire.play, grpc.StatusCode.FAILED_PRECONDITION
    seat1 = tokens[1]
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, seat1, "wd4"), cards=[card("wild_draw_four")], color=cards_pb2.COLOR_RED)),
        failed, "WILD_DRAW_FOUR_NOT_ALLOWED")  # red 5 is in the hand: unfair, and bluffing is off
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, seat1, "group"), cards=[card("red 5"), card("blue 7")])), failed, "NOT_A_GROUP")
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, seat1, "colour"), cards=[card("red 5")], color=cards_pb2.COLOR_RED)),
        failed, "COLOR_NOT_NEEDED")
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, seat1, "black"), cards=[card("wild_draw_four")], color=cards_pb2.COLOR_BLACK)),
        grpc.StatusCode.INVALID_ARGUMENT, "BAD_COLOR")
    await refused(play.CallUno(play_service_pb2.CallUnoRequest(**ids(table_id, seat1, "uno"))),
                  failed, "NOTHING_TO_CALL")  # seven cards
    await refused(wire.lobby.StartTable(lobby_service_pb2.StartTableRequest(table_id=table_id, owner_token=owner)),
                  failed, "ALREADY_STARTED")
    await play.PlayCards(play_service_pb2.PlayCardsRequest(**ids(table_id, seat1, "seven"), cards=[card("red 7")]),
                         timeout=TIMEOUT)
    await refused(play.ChooseSwapTarget(play_service_pb2.ChooseSwapTargetRequest(
        **ids(table_id, seat1, "self"), target_seat=1)), failed, "BAD_TARGET")  # H10: not with oneself


async def test_a_slap_by_the_caller_and_a_stack_with_nobody_to_pass_it_to(
        wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """U5: the UNO caller is not in its own slap (NOT_ELIGIBLE). H1 with two players: once seat 1 went
    out on a Draw Two (P1), seat 0 cannot stack it on, since nobody is left to take it (MUST_DRAW)."""
    deck = stacked_deck(
        {1: ["red 5", "blue 5", "green 5", "yellow 5", "yellow 5", "red 5", "red draw_two"], 0: ["blue draw_two"]},
        "red 3", 2, drawn=["green 7", "yellow 7", "blue 4"])  # the slowest's 2 (U5), then a turn's 1
    table_id, _, tokens = await rigged_table(wire, monkeypatch, deck, 2, multi_play=True, uno_slap=True,
                                             stacking=True)
    play, failed = wire.play, grpc.StatusCode.FAILED_PRECONDITION
    fives = [card(text) for text in ("red 5", "blue 5", "green 5", "yellow 5", "yellow 5", "red 5")]
    await play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[1], "fives"), cards=fives, call_uno=True), timeout=TIMEOUT)
    slap = await open_window(wire, table_id, tokens[0], views_pb2.REACTION_WINDOW_KIND_UNO_SLAP)
    early = asyncio.ensure_future(play.Draw(play_service_pb2.DrawRequest(  # play waits for the slap
        **ids(table_id, tokens[0], "early")), timeout=TIMEOUT))
    await refused(play.React(play_service_pb2.ReactRequest(
        **ids(table_id, tokens[1], "own-slap"), reaction_window_id=slap)), failed, "NOT_ELIGIBLE")
    assert not early.done()
    await play.React(play_service_pb2.ReactRequest(**ids(table_id, tokens[0], "slap"), reaction_window_id=slap),
                     timeout=TIMEOUT)
    async with asyncio.timeout(TIMEOUT):
        drawn = await early  # blue 4, once the slap is ruled
    assert drawn.result.outcome == actions_pb2.COMMAND_OUTCOME_APPLIED
    await play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[1], "out"), cards=[card("red draw_two")]), timeout=TIMEOUT)
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[0], "stack"), cards=[card("blue draw_two")])), failed, "MUST_DRAW")


async def test_a_jump_in_with_a_skip_on_a_deflected_obligation(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """H3 then H6: a Skip deflected the Draw Two on; only a Draw Two may jump in on an open obligation."""
    deck = stacked_deck({1: ["red draw_two", "red skip"], 2: ["red skip"]}, "red 3", 3)
    table_id, _, tokens = await rigged_table(wire, monkeypatch, deck, 3, deflecting=True, jump_in=True,
                                             stacking=True)
    play = wire.play
    await play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[1], "two"), cards=[card("red draw_two")]), timeout=TIMEOUT)
    await play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[2], "deflect"), cards=[card("red skip")]), timeout=TIMEOUT)
    jump = await open_window(wire, table_id, tokens[1], views_pb2.REACTION_WINDOW_KIND_JUMP_IN)
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, tokens[1], "jump"), cards=[card("red skip")], reaction_window_id=jump)),
        grpc.StatusCode.FAILED_PRECONDITION, "OBLIGATION_OPEN")


async def test_what_the_seat_to_act_and_the_others_may_not_do(wire: Wire, monkeypatch: pytest.MonkeyPatch) -> None:
    """T1, T3, B1, U2, H10/H11 and reaction windows: one refusal per wrong command, each with its reason."""
    deck = stacked_deck({1: ["red 5", "wild", "red draw_two"], 0: ["green 7", "blue 7"]}, "red 3", 2,
                        drawn=["red 9"])
    table_id, _, tokens = await rigged_table(wire, monkeypatch, deck, 2, jump_in=True)
    play, failed = wire.play, grpc.StatusCode.FAILED_PRECONDITION
    one, zero = tokens[1], tokens[0]
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, one, "blue"), cards=[card("blue 9")])), failed, "CARD_DOES_NOT_MATCH")  # a filler
    await refused(play.ChooseColor(play_service_pb2.ChooseColorRequest(
        **ids(table_id, one, "colour"), color=cards_pb2.COLOR_RED)), failed, "NO_COLOR_TO_CHOOSE")
    await refused(play.Challenge(play_service_pb2.ChallengeRequest(**ids(table_id, one, "challenge"))),
                  failed, "NOTHING_TO_CHALLENGE")
    await refused(play.CatchUno(play_service_pb2.CatchUnoRequest(**ids(table_id, zero, "catch"), target_seat=1)),
                  failed, "NOT_CATCHABLE")  # seven cards, and no false_call_penalty
    await refused(play.Pass(play_service_pb2.PassRequest(**ids(table_id, one, "pass"))), failed, "WRONG_PHASE")
    await refused(play.GiveCard(play_service_pb2.GiveCardRequest(**ids(table_id, one, "give"), card=card("red 5"))),
                  failed, "NO_SWAP")
    await refused(play.React(play_service_pb2.ReactRequest(**ids(table_id, zero, "react"), reaction_window_id=99)),
                  grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_WINDOW")
    await play.PlayCards(play_service_pb2.PlayCardsRequest(**ids(table_id, one, "wild"), cards=[card("wild")]),
                         timeout=TIMEOUT)  # its colour is still to be named
    jump = await open_window(wire, table_id, zero, views_pb2.REACTION_WINDOW_KIND_JUMP_IN)
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, zero, "wait"), cards=[card("green 7")], reaction_window_id=jump)),
        failed, "WAIT_FOR_EFFECT")  # the Wild's colour comes first
    await play.ChooseColor(play_service_pb2.ChooseColorRequest(
        **ids(table_id, one, "red"), color=cards_pb2.COLOR_RED), timeout=TIMEOUT)
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(  # seat 0's turn: seat 1 would jump in
        **ids(table_id, one, "two"), cards=[card("red 5"), card("red draw_two")], reaction_window_id=jump)),
        failed, "ONE_CARD_ONLY")
    await play.Draw(play_service_pb2.DrawRequest(**ids(table_id, zero, "draw")), timeout=TIMEOUT)  # red 9
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, zero, "other"), cards=[card("green 7")])), failed, "ONLY_DRAWN_CARD")
    await play.PlayCards(play_service_pb2.PlayCardsRequest(**ids(table_id, zero, "nine"), cards=[card("red 9")]),
                         timeout=TIMEOUT)
    await play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, one, "plus-two"), cards=[card("red draw_two")]), timeout=TIMEOUT)
    await refused(play.PlayCards(play_service_pb2.PlayCardsRequest(
        **ids(table_id, zero, "dodge"), cards=[card("green 7")])), failed, "MUST_ANSWER_OBLIGATION")


async def open_window(wire: Wire, table_id: str, token: str, kind: int) -> int:
    view = (await wire.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                     timeout=TIMEOUT)).view
    windows = [window.id for window in view.open_windows if window.kind == kind]
    assert windows, f"no window of kind {kind} is open: {list(view.open_windows)}"
    return windows[-1]
