"""The lobby's state without a screen: choosing a table, the create-a-table form and what it sends."""

from __future__ import annotations

from pathlib import Path

from unonet.client.tui.lobby import LobbyChoice, LobbyState, render_lobby
from unonet.client.tui.seats import SavedSeat, SeatStore
from unonet.client.tui.table_form import GROUPS, ROWS, NewTable, render_form
from unonet.v1 import rules_pb2, table_pb2


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


def go_to(form: NewTable, key: str) -> None:
    form.row = 0
    while form.current.key != key:
        form.move(1)


def standard() -> rules_pb2.RulesetPreset:
    ruleset = rules_pb2.Ruleset(preset="standard", target_score=500, stacking=False, jump_in=False,
                                uno_penalty=2, wild_draw_four=rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR,
                                bluffing=True, stacking_cumulative=True)
    return rules_pb2.RulesetPreset(name="standard", ruleset=ruleset)


def test_the_form_keeps_bots_below_the_seat_count_and_sends_the_options_chosen() -> None:
    form = NewTable(presets=[standard()], bot_kinds=["greedy:2", "random"], seats=3, bots=2)
    go_to(form, "seats")
    form.change(-1)  # 2 seats: one bot at most
    assert (form.seats, form.bots) == (2, 1)
    go_to(form, "target")
    form.change(1)
    go_to(form, "turn")
    for _ in range(5):
        form.change(1)  # the host's default, none, 10, 15, 30, 60
    go_to(form, "jump_in")
    form.toggle()
    go_to(form, "uno_penalty")
    form.change(1)
    form.change(1)
    go_to(form, "wild_draw_four")
    form.change(1)
    go_to(form, "bluffing")
    form.toggle()
    form.toggle()  # back to the preset's value: not sent
    ruleset = form.ruleset()
    assert ruleset.target_score == 50 and ruleset.jump_in and not ruleset.HasField("stacking")
    assert ruleset.uno_penalty == 4 and ruleset.wild_draw_four == rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCH_AT_ALL
    assert not ruleset.HasField("bluffing")
    clock = form.clock()
    assert clock is not None and clock.turn_time.seconds == 60 and clock.takeover_bot_kind == "greedy:2"
    assert form.kind == "greedy:2"


def test_the_form_offers_every_ruleset_option_grouped_with_its_rule() -> None:
    offered = {row.key for row in ROWS if not row.is_title}
    options = {f.name for f in rules_pb2.Ruleset.DESCRIPTOR.fields} - {"preset", "target_score"}
    assert options <= offered  # every option the protocol accepts has a row
    assert {"preset", "seats", "target", "turn", "bots", "bot_kind"} <= offered
    grouped = {name for _, rows in GROUPS for name, _, _ in rows}
    assert grouped == options  # and each has its place and its rule ID (none left to "other")
    assert all(rule for _, rows in GROUPS for _, rule, _ in rows)


def test_the_form_scrolls_to_keep_the_cursor_on_screen() -> None:
    form = NewTable(presets=[standard()])
    shown = "".join(text for _, text, *_ in render_form(form, 20))
    assert "preset" in shown and "Silent 2" not in shown and "↓ more" in shown
    go_to(form, "silent_two")
    shown = "".join(text for _, text, *_ in render_form(form, 20))
    assert "Silent 2" in shown and "↑ more" in shown and len(shown.splitlines()) <= 20
    assert "H14" in shown and "whoever writes draws 2" in shown  # its rule ID beside it, its meaning below
    go_to(form, "stacking_mixed")
    assert "needs stacking" in "".join(text for _, text, *_ in render_form(form, 20))
    state = LobbyState(["h:1"], form=form)
    assert len("".join(text for _, text, *_ in render_lobby(state, 24)).splitlines()) <= 24


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


def test_the_form_starts_from_the_last_table_created_and_the_details_say_the_rules_in_plain_words() -> None:
    from unonet.client.tui.lobby import render_details

    form = NewTable(presets=[standard()], bot_kinds=["strong:3", "greedy:2"])
    form.seats, form.bots, form.bot_kind, form.turn_time, form.manual_start = 6, 4, 1, 4, True
    form.overrides["stacking"] = True
    kept = form.remember()
    assert kept["bot_kind"] == "greedy:2" and kept["turn_time"] == 30 and kept["overrides"] == {"stacking": True}
    again = NewTable(presets=[standard()], bot_kinds=["strong:3", "greedy:2"])
    again.restore(kept)
    assert again.remember() == kept and again.ruleset().stacking
    junk = NewTable(presets=[standard()])
    junk.restore({"seats": 99, "bots": "three", "turn_time": 7, "overrides": {"stacking": "yes", "nonsense": 1}})
    assert junk.seats == 4 and junk.bots == 3 and junk.turn_time == 0 and junk.overrides == {}
    table = table_pb2.TableInfo(table_id="t-1", status=table_pb2.TABLE_STATUS_WAITING, settings=table_pb2.TableSettings(
        name="ann's table", seat_count=2, ruleset=rules_pb2.Ruleset(preset="house", target_score=300, stacking=True)),
        seats=[table_pb2.SeatState(seat=0, name="ann", occupied=True), table_pb2.SeatState(seat=1)])
    state = LobbyState(["h:1"], tables=[table], details=True)
    shown = "".join(text for _, text, *_ in render_details(state, 60))
    assert "first to 300" in shown and "table id t-1" in shown and "0 ann, 1 (empty)" in shown
    assert "Stacking: on   H1" in shown and "answer a Draw Two with a Draw Two" in shown
