"""The lobby's state without a screen: choosing a table, the create-a-table form and what it sends."""

from __future__ import annotations

from pathlib import Path

from unonet.client.tui.lobby import FIXED_ROWS, OPTIONS, LobbyChoice, LobbyState, NewTable, render_lobby
from unonet.client.tui.seats import SavedSeat, SeatStore
from unonet.v1 import table_pb2


def table(table_id: str, status: int, taken: int, seats: int = 4) -> table_pb2.TableInfo:
    return table_pb2.TableInfo(table_id=table_id, status=status,  # type: ignore[arg-type]
                               seats=[table_pb2.SeatState(seat=s, occupied=s < taken) for s in range(seats)])


def test_enter_joins_a_waiting_table_and_w_watches_any() -> None:
    state = LobbyState(["h:1"], tables=[table("a", table_pb2.TABLE_STATUS_WAITING, 1),
                                        table("b", table_pb2.TABLE_STATUS_PLAYING, 4)])
    assert state.choose(watch=False) == LobbyChoice("h:1", "a")
    state.move(1)
    assert state.choose(watch=False) is None and "W watches" in state.message
    assert state.choose(watch=True) == LobbyChoice("h:1", "b", watch=True)


def test_a_started_table_with_a_saved_seat_is_rejoined() -> None:
    state = LobbyState(["h:1"], tables=[table("b", table_pb2.TABLE_STATUS_PLAYING, 4)], mine={"b"})
    assert state.choose(watch=False) == LobbyChoice("h:1", "b")
    assert "your seat" in "".join(text for _, text, *_ in render_lobby(state))


def test_no_table_hints() -> None:
    state = LobbyState(["h:1"])
    assert state.choose(watch=False) is None and "N creates one" in state.message


def test_the_form_keeps_bots_below_the_seat_count_and_sends_the_options_chosen() -> None:
    form = NewTable(seats=3, bots=2)
    form.row = 1
    form.change(-1, presets=1)  # 2 seats: one bot at most
    assert (form.seats, form.bots) == (2, 1)
    form.row = 2
    form.change(1, presets=1)
    form.row = 3
    form.change(1, presets=1)
    form.row = FIXED_ROWS + [name for name, _ in OPTIONS].index("jump_in")
    form.toggle()
    ruleset = form.ruleset()
    assert ruleset.target_score == 50 and ruleset.jump_in and not ruleset.HasField("stacking")
    clock = form.clock()
    assert clock is not None and clock.turn_time.seconds == 60


def test_saved_seats_survive_a_restart_of_the_client_and_can_be_forgotten(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "unonet" / "seats.json")
    store.put("h:1", "t1", SavedSeat("secret", 2, "ann"))
    again = SeatStore(tmp_path / "unonet" / "seats.json")
    assert again.get("h:1", "t1") == SavedSeat("secret", 2, "ann") and again.tables("h:1") == {"t1"}
    assert (tmp_path / "unonet" / "seats.json").stat().st_mode & 0o077 == 0  # the owner's only
    again.forget("h:1", "t1")
    assert store.get("h:1", "t1") is None
    (tmp_path / "unonet" / "seats.json").write_text("not json")
    assert store.get("h:1", "t1") is None  # a broken file is no seat, not a crash
