"""The host switch for fair shuffles (`Host(fair_shuffle=False)`, `unonet serve --no-fair-shuffle`).

Off, every round is dealt by the engine's own seeded shuffle: no commit-reveal round, no committed
piles, no openings, cards by face only. The switch is part of the table's stored record, so a restarted
host replays each table the way it was played, whatever the restarted host's own default.
Matches are played by host bots in-process with a fake clock (the host's own driver step).
"""

from __future__ import annotations

import pytest

from unonet.cli import build_parser
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import MemoryStore, SqliteStore, Store
from unonet.host.table import Table, TableSettings

COMMITMENT_EVENTS = {
    "shuffle_committed", "seat_entropy_committed", "seat_entropy_revealed", "deck_committed",
    "shuffle_revealed", "shuffle_timed_out",
}


def play(host: Host, table: Table, clock: list[int], max_steps: int = 200_000) -> None:
    table.record(journal.Start(fill=True))
    for _ in range(max_steps):
        if table.match is not None and table.match.is_over:
            return
        wait = host._step(table)
        assert wait is not None, "the table waits for nothing but the match is not over"
        if wait > 0:
            clock[0] += int(wait * 1e9) + 1
    raise AssertionError("the match did not end")


def bots_table(fair_shuffle: bool, store: Store | None = None, seed: int = 11) -> tuple[Host, Table, list[int]]:
    clock = [1_700_000_000_000_000_000]
    host = Host(store or MemoryStore(), clock_ns=lambda: clock[0], fair_shuffle=fair_shuffle)
    host._ensure_driver = lambda table: None  # type: ignore[method-assign]  # the test steps the driver itself
    settings = TableSettings(name="t", seat_count=3, preset="standard", overrides={"target_score": 150},
                             manual_start=True)
    table = host.create_table(settings, seed=seed)
    return host, table, clock


def events(table: Table, seat: int | None = None) -> list[object]:
    """Every event of the match as `seat` receives it. Not `table.log`: memory keeps only the last
    `eventlog.WINDOW_EVENTS` (1024) entries, which a long match outgrows, so its first rounds' events are
    read back from the store."""
    return list(table.events.rendered_since(0, seat))


def kinds(table: Table, seat: int | None = None) -> list[str]:
    return [event.WhichOneof("payload") for event in events(table, seat)]


def card_refs(table: Table, seat: int | None) -> list[object]:
    """Every card field of every event as `seat` sees it (CardRefs carry commitments when fair)."""
    out: list[object] = []
    for event in events(table, seat):
        kind = event.WhichOneof("payload")
        if kind == "cards_dealt":
            out += [card for hand in event.cards_dealt.hands for card in hand.cards]
        elif kind == "cards_drawn":
            out += list(event.cards_drawn.cards)
        elif kind == "cards_played":
            out += list(event.cards_played.cards)
    return out


@pytest.mark.parametrize("seed", [5, 11])
def test_with_fair_shuffles_off_a_match_plays_to_the_end_with_no_commitments(seed: int) -> None:
    host, table, clock = bots_table(False, seed=seed)
    play(host, table, clock)
    assert table.match.round_no >= 2 and table.match.winners, "later rounds are dealt by the engine too"
    for seat in (None, 0, 1, 2):
        seen = kinds(table, seat)
        assert "round_started" in seen and "round_ended" in seen and "match_ended" in seen
        assert not COMMITMENT_EVENTS & set(seen), f"seat {seat} saw {COMMITMENT_EVENTS & set(seen)}"
    refs = card_refs(table, 0)
    assert refs and all(not ref.commitment and not ref.salt for ref in refs), "faces only, no commitments"
    assert any(ref.HasField("card") for ref in refs)
    assert table.cards is None and table.shuffle is None


def test_with_fair_shuffles_on_every_round_is_committed_and_opened() -> None:
    host, table, clock = bots_table(True)
    play(host, table, clock)
    seen = kinds(table)
    rounds = table.match.round_no
    assert seen.count("shuffle_committed") == rounds and seen.count("shuffle_revealed") == rounds
    assert seen.count("deck_committed") >= rounds
    refs = card_refs(table, 0)
    assert refs and all(ref.commitment for ref in refs)


def test_the_default_is_on_and_the_command_line_can_turn_it_off() -> None:
    assert Host().fair_shuffle is True
    assert build_parser().parse_args(["serve"]).fair_shuffle is True
    assert build_parser().parse_args(["serve", "--no-fair-shuffle"]).fair_shuffle is False


@pytest.mark.parametrize("fair_shuffle", [False, True])
def test_a_restarted_host_replays_each_table_with_the_switch_it_was_created_with(tmp_path, fair_shuffle) -> None:
    db = tmp_path / "host.db"
    store = SqliteStore(db)
    host, table, clock = bots_table(fair_shuffle, store=store)
    play(host, table, clock)
    store.close()

    again = SqliteStore(db)
    restarted = Host(again, fair_shuffle=not fair_shuffle)  # the restarted host's own default differs
    assert restarted.restore() == 1
    replayed = restarted.table(table.table_id)  # finished, so archived by restore: loaded back from its journal
    assert replayed.fair_shuffle is fair_shuffle
    for seat in (None, 0, 1, 2):
        assert [replayed.render(e, seat).SerializeToString() for e in replayed.log] == [
            table.render(e, seat).SerializeToString() for e in table.log]
    again.close()
