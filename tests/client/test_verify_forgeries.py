"""A lying host that writes its log consistently is still caught (docs/fairness.md 8.1).

Each test makes the in-process host lie one way, inside the host, so every event it sends agrees with
every other (the openings open their commitments, the draws follow the pile): a false challenge
verdict with the penalties that follow from it, a deal that steers deck positions to chosen seats, a
connected seat left out of the shuffle, a shuffle begun twice for one round. `unonet verify`'s
Verifier must reject each, with the typed error that names it, and accept the honest log of the same
game.
"""

from __future__ import annotations

import random
import sys
from types import SimpleNamespace

import pytest
from fair_games import TABLE_ID, drive, has_kind, new_table, play_match, play_match_with, stream

from unonet.client.verify import Verifier, verify_events
from unonet.engine import game as engine_game
from unonet.engine import rules
from unonet.fairness import (
    ExcludedSeat,
    FalseVerdict,
    RepeatedShuffle,
    SteeredDeal,
    WrongPenalty,
    WrongRebuild,
    WrongRuling,
)
from unonet.host import journal, shuffles
from unonet.host.shuffles import RoundCards
from unonet.v1 import events_pb2
from unonet.wire.refs import EventRefs


@pytest.fixture(autouse=True)
def _seeded_host_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's seeds and bots' entropy from a seeded generator: every game here is the same on every
    run, so the events a test needs (a challenge, a rebuilt pile, a tied race) are always there."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(1234).randbytes))


PRESETS = ["standard", "house", "serbian", "french", "russian", "polish"]


def _kinds(events: list[events_pb2.Event]) -> list[str]:
    return [event.WhichOneof("payload") or "" for event in events]


@pytest.mark.parametrize("preset", PRESETS)
def test_honest_logs_of_every_preset_pass_the_new_checks(preset: str) -> None:
    table = play_match(11, preset=preset, target_score=150)
    for seat in (None, 0, 2):
        verifier = verify_events(TABLE_ID, stream(table, seat), seat)
        assert verifier.checks["hand dealt from the positions the dealing order gives its seat"] > 0
        assert verifier.checks["every connected seat asked for entropy"] > 0


def _false_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's engine rules every Wild Draw Four the other way: a bluff is fair, a fair card a bluff.
    Everything after follows from that verdict, as the engine applies it."""
    honest = rules.is_wild_draw_four_fair
    layers = {sys.modules[cls.__module__] for cls in engine_game.Game.__mro__}  # every module of `Game`'s rules
    for module in layers:
        if hasattr(module, "is_wild_draw_four_fair"):  # the layers that judge one
            monkeypatch.setattr(module, "is_wild_draw_four_fair", lambda *args: not honest(*args))


def _challenged_match(seed: int = 0):  # type: ignore[no-untyped-def]
    return play_match_with(has_kind("challenge_resolved"), "a challenge", seed, target_score=200)


def test_a_false_verdict_consistent_with_its_penalties_is_caught_by_everyone(monkeypatch) -> None:
    honest = _challenged_match()
    verifier = verify_events(TABLE_ID, stream(honest, None))
    assert verifier.checks["challenge verdict recomputed from the revealed hand"] > 0
    assert verifier.checks["challenge penalty drawn as the verdict and the rules owe it"] > 0
    _false_verdicts(monkeypatch)
    lying = _challenged_match()
    public = stream(lying, None)
    assert "challenge_resolved" in _kinds(public)
    with pytest.raises(FalseVerdict, match="opened by the revealed seed"):
        verify_events(TABLE_ID, public)  # a spectator, once the seed is out
    resolved = next(e.challenge_resolved for e in public if e.HasField("challenge_resolved"))
    with pytest.raises(FalseVerdict):  # the challenger, at once
        verify_events(TABLE_ID, stream(lying, resolved.challenger_seat), resolved.challenger_seat)


@pytest.mark.parametrize(("rule", "extra"), [("draw_four", 0), ("draw_six", 2), ("take_back", 0)])
def test_each_bluff_penalty_is_checked_and_a_changed_count_is_caught(rule: str, extra: int) -> None:
    table = play_match_with(has_kind("challenge_resolved"), "a challenge", 0, target_score=200, stacking=True,
                            bluff_penalty=rule)
    public = stream(table, None)
    verifier = verify_events(TABLE_ID, public)
    assert verifier.checks["challenge penalty follows from the verdict and the rules"] > 0
    i = next(i for i, e in enumerate(public) if e.HasField("challenge_resolved"))
    forged = [events_pb2.Event.FromString(e.SerializeToString()) for e in public]
    forged[i].challenge_resolved.penalty_cards += 1
    with pytest.raises(WrongPenalty):
        verify_events(TABLE_ID, forged)
    forged = [events_pb2.Event.FromString(e.SerializeToString()) for e in public]
    j = next(j for j in range(i, len(forged)) if forged[j].HasField("cards_drawn")
             and forged[j].cards_drawn.reason in (events_pb2.DRAW_REASON_BLUFF_CAUGHT,
                                                  events_pb2.DRAW_REASON_CHALLENGE_LOST))
    forged[j].cards_drawn.forgiven += 1  # the host says it could not draw one card more than it owed
    with pytest.raises(WrongPenalty):
        verify_events(TABLE_ID, forged)


def _steered_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host deals each seat a block of seven consecutive deck positions instead of one card at a
    time: every card still opens its commitment and the deal still takes the top of the deck, but which
    seat gets which position is the host's choice (its friend gets the block holding the black cards)."""

    seats = 4  # the table's: the deck is handed to the engine before the round's seats are known

    def deal_cards(self: RoundCards) -> list:  # type: ignore[type-arg]
        refs = self.piles[0].refs
        dealt = [refs[(k % seats) * 7 + k // seats] for k in range(7 * seats)]
        return [ref.card for ref in dealt] + [ref.card for ref in refs[7 * seats:]]

    def on_dealt(self: RoundCards, event, number):  # type: ignore[no-untyped-def]
        refs = self.piles[0].refs
        if not any(hand.refs for hand in self.hands.values()):
            for i, seat in enumerate(self.deal_order):
                for j in range(7):
                    self.hands[seat].add(refs[i * 7 + j])
            self.draw = list(reversed(refs[7 * len(self.deal_order):]))
        held = tuple(self.hands[event.seat].refs)
        self._check(held, event.cards, event)
        return EventRefs((held,)), []

    monkeypatch.setattr(RoundCards, "deal_cards", property(deal_cards))
    monkeypatch.setattr(RoundCards, "_on_Dealt", on_dealt)
    monkeypatch.setattr(shuffles, "_HANDLERS", {})


def test_a_steered_deal_is_caught(monkeypatch) -> None:
    _steered_deal(monkeypatch)
    host, table, _clock = new_table(4, seats=4, target_score=50)
    table.record(journal.Start(fill=True))
    for _ in range(50):  # the first round is dealt as soon as the bots' entropy is in
        if table.cards is not None and table.match is not None and table.match.round_no:
            break
        host._step(table)
    public = stream(table, None)
    assert "cards_dealt" in _kinds(public)
    verifier = Verifier(TABLE_ID)
    with pytest.raises(SteeredDeal, match="the deal gives it"):
        verifier.feed_all(public)


def _connected_player_table(seed: int):  # type: ignore[no-untyped-def]
    """Seat 0 is a player whose stream is open (the log says so), played here by the host's bot logic."""
    host, table, clock = new_table(seed, seats=3, target_score=60)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Connection(0, True))
    table.seats[0].is_bot, table.seats[0].bot_kind = True, "random"
    return host, table, clock


def test_a_connected_seat_left_out_of_the_shuffle_is_caught(monkeypatch) -> None:
    host, table, clock = _connected_player_table(5)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    verify_events(TABLE_ID, stream(table, None))  # honest: seat 0 is asked every round
    begin = shuffles.ShuffleRound.begin.__func__  # type: ignore[attr-defined]

    def excluding(cls, private, *, bots, **kwargs):  # type: ignore[no-untyped-def]
        return begin(cls, private, bots=[seat for seat in bots if seat != 0], **kwargs)

    monkeypatch.setattr(shuffles.ShuffleRound, "begin", classmethod(excluding))
    host, table, clock = _connected_player_table(5)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    public = stream(table, None)
    assert 0 not in next(e.shuffle_committed for e in public if e.HasField("shuffle_committed")).entropy_seats
    with pytest.raises(ExcludedSeat, match=r"seat\(s\) \[0\]"):
        verify_events(TABLE_ID, public)


def test_a_shuffle_begun_twice_for_one_round_is_caught(monkeypatch) -> None:
    """The host aborts round 1's shuffle once the seats revealed (it did not like the deck) and begins
    again with a new seed: both shuffles are in the log, each consistent in itself."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(9).randbytes))
    table = play_match(9, target_score=60)
    public = stream(table, None)
    first = _kinds(public).index("shuffle_committed")
    dealt = _kinds(public).index("deck_committed")
    aborted = [events_pb2.Event.FromString(e.SerializeToString()) for e in public[first:dealt]]
    aborted[0].shuffle_committed.seed_commitment = bytes(32)  # another seed, for another deck
    forged = [*public[:first], *aborted, *public[first:]]
    for number, event in enumerate(forged, start=1):
        event.number = number
    with pytest.raises(RepeatedShuffle, match="an aborted deal"):
        verify_events(TABLE_ID, forged)


@pytest.mark.parametrize("preset", ["standard", "russian"])
def test_an_honest_log_with_timeouts_passes(preset: str) -> None:
    """Seat 0's player has its stream open but never acts: its shuffle contributions time out, its
    turns time out until a bot takes the seat over. Every stream of that game verifies."""
    host, table, clock = new_table(3, seats=3, preset=preset, target_score=60)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Connection(0, True))
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    public = stream(table, None)
    assert {"shuffle_timed_out", "turn_timed_out", "seat_taken_over"} <= set(_kinds(public))
    for seat in (None, 0, 1):
        verify_events(TABLE_ID, stream(table, seat), seat)


def test_rebuilt_piles_are_checked_and_a_pile_rebuilt_short_of_a_discard_is_caught(monkeypatch) -> None:
    """T5: the host keeps the card under the top one out of every rebuilt pile (an engine whose rebuild
    keeps two discards, as only `take_back` may while a Wild Draw Four on top can be taken back)."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(4).randbytes))
    honest = play_match(1, target_score=300, draw_to_match=True)
    checks = verify_events(TABLE_ID, stream(honest, None)).checks
    assert checks["later pile made from exactly the cards the rules shuffle"] > 0
    assert "pile_reshuffled" in _kinds(stream(honest, None))
    monkeypatch.setattr(engine_game.Game, "_can_take_back", lambda self: True)
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(4).randbytes))
    lying = play_match(1, target_score=300, draw_to_match=True)
    public = stream(lying, None)
    assert "pile_reshuffled" in _kinds(public)
    with pytest.raises(WrongRebuild):
        verify_events(TABLE_ID, public)
    forged = [events_pb2.Event.FromString(e.SerializeToString()) for e in stream(honest, None)]
    next(e for e in forged if e.HasField("pile_reshuffled")).pile_reshuffled.draw_pile_size += 1
    with pytest.raises(WrongRebuild):
        verify_events(TABLE_ID, forged)


def _raced() -> list[events_pb2.Event]:
    """A serbian match of host bots: Sound Wild races that every seat answers, so rulings with ties."""
    return stream(play_match(2, preset="serbian", target_score=100), None)


def _copy(events: list[events_pb2.Event]) -> list[events_pb2.Event]:
    return [events_pb2.Event.FromString(event.SerializeToString()) for event in events]


def _ruling(events: list[events_pb2.Event]) -> events_pb2.ReactionWindowClosed:
    return next(e.reaction_window_closed for e in events
                if e.HasField("reaction_window_closed") and len(e.reaction_window_closed.reactions) > 2)


def test_race_rulings_are_checked_against_their_published_figures() -> None:
    checks = verify_events(TABLE_ID, _raced()).checks
    assert checks["race ruling follows from its published figures"] > 0
    assert checks["race tie seed derived from the round seed"] > 0
    ruling = _ruling(_raced())
    assert ruling.HasField("tie_tolerance") and ruling.HasField("max_latency_forgiven")
    assert all(reaction.HasField("send_time") for reaction in ruling.reactions)


def test_a_tie_seed_of_the_hosts_choosing_is_caught_once_the_round_seed_is_out(monkeypatch) -> None:
    """The host orders every tie by a seed it picked (so it can favour a seat), consistently: the
    ruling agrees with itself, but not with the round's seed."""
    from unonet.host import racebook

    honest = racebook.derive_seed
    monkeypatch.setattr(racebook, "derive_seed", lambda seed, label, index=0: honest(seed, label + "!", index))
    events = _raced()
    assert "reaction_window_closed" in _kinds(events)
    with pytest.raises(WrongRuling, match="tie seed"):
        verify_events(TABLE_ID, events)


@pytest.mark.parametrize("lie", ["order", "late", "over the cap", "reaction time"])
def test_a_ruling_that_contradicts_its_own_figures_is_caught(lie: str) -> None:
    events = _copy(_raced())
    ruling = _ruling(events)
    first, second = ruling.reactions[0], ruling.reactions[1]
    if lie == "order":  # the host ranks its friend first within a tie, not by the seeded draw
        first.seat, second.seat = second.seat, first.seat
    elif lie == "late":
        ruling.duration.FromNanoseconds(10**9)
        first.late = True
    elif lie == "over the cap":  # a friend forgiven more than the cap allows, its reaction time to match
        first.latency_forgiven.FromNanoseconds(ruling.max_latency_forgiven.ToNanoseconds() + 10**6)
        first.send_time.FromNanoseconds(first.receive_time.ToNanoseconds()
                                        - 2 * first.latency_forgiven.ToNanoseconds())
    else:  # the answer took longer than its reaction time and the latency forgiven add up to
        first.send_time.FromNanoseconds(first.send_time.ToNanoseconds() - 10**6)
    with pytest.raises(WrongRuling):
        verify_events(TABLE_ID, events)


VALUE = bytes(range(32))


def _a_player_reveals(monkeypatch: pytest.MonkeyPatch, *, drop: bool):  # type: ignore[no-untyped-def]
    """Seat 0's player commits and reveals round 1's entropy; a lying host (`drop`) takes the reveal
    but records nothing, and deals without it when the reveal deadline passes. Returns the table and
    the event number the host acknowledged the reveal with."""
    from unonet.fairness import commit_seat_entropy

    host, table, clock = new_table(7, seats=3, target_score=60)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Connection(0, True))
    table.record(journal.Start(fill=True))
    table.record(journal.Entropy(0, "c1", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1)))
    if drop:
        monkeypatch.setattr(shuffles.ShuffleRound, "reveal",
                            lambda self, seat, value, now: self.check_reveal(seat, value) or [])
        acked = table.last_number + 1  # what the host answered: the number the reveal would have had
        with pytest.raises(IndexError):  # nothing recorded: the host's answer is made up
            table.record(journal.Entropy(0, "c2", value=VALUE))
        monkeypatch.undo()
    else:
        acked = table.record(journal.Entropy(0, "c2", value=VALUE))[0].number
    drive(host, table, clock)
    return table, acked


@pytest.mark.parametrize("drop", [False, True])
def test_a_dropped_reveal_is_caught_by_its_seat_and_proved_with_its_value(monkeypatch, tmp_path, capsys,
                                                                          drop: bool) -> None:
    from unonet.cli import main
    from unonet.client.audit import write_jsonl
    from unonet.fairness import DroppedReveal

    table, acked = _a_player_reveals(monkeypatch, drop=drop)
    public = stream(table, None)
    timed_out = [e.shuffle_timed_out for e in public if e.HasField("shuffle_timed_out")]
    assert bool(timed_out) == drop and all(list(t.seats) == [0] and t.revealing for t in timed_out)
    mine = Verifier(TABLE_ID, 0)
    seat_events = stream(table, 0)
    if drop:
        with pytest.raises(DroppedReveal, match="dealt without a value it received"):
            for event in seat_events:
                mine.feed(event)
                if event.number == acked - 1:
                    mine.sent_reveal(1, acked)  # the RPC answered while these events streamed
    else:
        for event in seat_events:
            mine.feed(event)
            if event.number == acked + 3:
                mine.sent_reveal(1, acked)  # an answer after the event it names: checked at once
        mine.finish()
    log = tmp_path / "game.jsonl"
    with log.open("w") as out:
        write_jsonl(out, TABLE_ID, public)
    assert main(["verify", str(log), "--reveal", f"0:1:{VALUE.hex()}"]) == (1 if drop else 0)
    lines = capsys.readouterr().out
    assert ("FAILED  DROPPED_REVEAL" in lines) == drop
    assert main(["verify", str(log), "--reveal", f"0:1:{bytes(32).hex()}"]) == 1
    assert "FAILED  BAD_CLAIM" in capsys.readouterr().out


def test_a_revealed_value_the_deck_leaves_out_is_caught(monkeypatch) -> None:
    """The host publishes seat 0's reveal but derives the deck without it (docs/fairness.md 8 step 1)."""
    from unonet.fairness import EntropyMismatch

    honest = shuffles.ShuffleRound.contributions
    monkeypatch.setattr(shuffles.ShuffleRound, "contributions",
                        lambda self: {seat: value for seat, value in honest(self).items() if seat != 0})
    table, _ = _a_player_reveals(monkeypatch, drop=False)
    with pytest.raises(EntropyMismatch, match=r"seat\(s\) \[0\] revealed entropy that the deck leaves out"):
        verify_events(TABLE_ID, stream(table, None))
