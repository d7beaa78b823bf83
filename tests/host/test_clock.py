"""Turn clocks with a fake clock: time banks, the draw-then-pass default, strikes and takeover."""

from __future__ import annotations

from unonet.engine import Draw, legal_actions
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings

SECOND = 1_000_000_000


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000 * SECOND

    def __call__(self) -> int:
        return self.now


def table_with_clock(clock: FakeClock, **settings) -> tuple[Host, Table, int]:
    host = Host(MemoryStore(), clock_ns=clock)
    table = Table("t", TableSettings(name="t", seat_count=2, preset="standard", overrides={}, **settings),
                  owner_token="o", seed=3, created_ns=clock(), store=host.store, clock_ns=clock)
    host.store.create_table("t", {}, clock())
    host.tables["t"] = table  # no driver task: the test steps the host by hand
    table.join("ann", None, False)
    table.join("bob", None, False)
    game = table.match.game
    if game.to_act is not None and legal_actions(game, game.to_act)[0].__class__.__name__ == "ChooseColor":
        table.command(game.to_act, "colour", (legal_actions(game, game.to_act)[0],))
    return host, table, table.match.game.to_act


def test_time_past_the_turn_allowance_comes_out_of_the_bank() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10, time_bank_s=5)
    assert table.turn_deadline_ns == clock.now + 15 * SECOND
    clock.now += 12 * SECOND
    table.command(seat, "slow", (Draw(seat),))
    assert abs(table.seats[seat].bank_s - 3.0) < 1e-9


def test_a_timeout_draws_then_passes_and_strikes_lead_to_a_takeover() -> None:
    clock = FakeClock()
    host, table, _ = table_with_clock(clock, turn_time_s=10, time_bank_s=0, strikes_before_takeover=2)
    taken = None
    for _ in range(4):
        seat = table.match.game.to_act
        clock.now = table.turn_deadline_ns
        before = table.last_number
        host._step(table)
        new = [e.event for e in table.log[before:]]
        names = [e.WhichOneof("payload") if hasattr(e, "WhichOneof") else type(e).__name__ for e in new]
        assert names[0] == "turn_timed_out" and "Drew" in names
        assert table.match.game.to_act != seat, "after draw-then-pass the turn moved on"
        if "seat_taken_over" in names:
            taken = seat
            break
    assert taken is not None and table.seats[taken].strikes == 2
    assert table.seats[taken].is_bot and table.seats[taken].taken_over


def test_the_clock_keeps_running_while_others_act() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10)
    deadline = table.turn_deadline_ns
    other = 1 - seat
    clock.now += 3 * SECOND
    table.record({"k": "chat", "seat": other, "name": "bob", "text": "hurry"})
    assert table.turn_deadline_ns == deadline


def test_with_the_forfeit_policy_a_struck_out_player_leaves_the_match() -> None:
    clock = FakeClock()
    host, table, _ = table_with_clock(clock, turn_time_s=10, strikes_before_takeover=1, takeover_policy="forfeit")
    seat = table.match.game.to_act
    clock.now = table.turn_deadline_ns
    host._step(table)
    assert table.seats[seat].taken_over and not table.seats[seat].is_bot
    assert table.match.is_over and table.match.winners == (1 - seat,)
