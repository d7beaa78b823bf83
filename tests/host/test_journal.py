"""The journal's typed entries and their JSON codec: every kind round-trips, older forms still decode."""

from __future__ import annotations

import pytest

from unonet.host import journal

EVERY_KIND: list[journal.AnyEntry] = [
    journal.Join(0, "ann", "tok"),
    journal.Connection(1, True),
    journal.Spectate("spec", "sam"),
    journal.Unspectate("spec"),
    journal.SeatBot(2, "random", "random-bot-2"),
    journal.Leave(1),
    journal.Start(True, "random"),
    journal.Start(True, "", version=2),
    journal.Command(0, "c1", [{"k": "draw"}]),
    journal.Close(3),
    journal.Ruling(2, 4, 1, "uno_catch", True, answers=[journal.RaceAnswer(1, "x", [], 7, 0.25)],
                   late=[journal.RaceAnswer(0, "z", [{"k": "catch", "target": 1}], 8)],
                   ruling={"ranked": [], "late": [], "seed": "00"}, opened_ns=5, close_ns=9, duration_ns=4,
                   allowance_ns=1, participants=[0, 1], sent_ns={"0": 5, "1": 5}),
    journal.Late(1, "y", 4, [{"k": "catch", "target": 0}]),
    journal.Timeout(3),
    journal.Chat(None, "sam", "hi", "c2", "spec"),
    journal.Chat(0, "ann", "hello"),
    journal.Entropy(0, "c3", commitment=b"\x01" * 32),
    journal.Entropy(0, "c4", value=b"\x02" * 32),
    journal.EntropyTimeout(2, "reveal"),
    journal.ScoresClosed(1, "c5", 3),
    journal.Release(4),
    journal.Lost(41, 57),
    journal.Diverged(5, 57),
    journal.Fallback(1, "strong:3", "greedy:3", "silent", 5_140_000_000, False),
]


@pytest.mark.parametrize("entry", EVERY_KIND, ids=lambda entry: type(entry).__name__)
def test_every_kind_round_trips_through_its_json_form(entry: journal.AnyEntry) -> None:
    data = journal.encode(entry)
    assert data["k"] in journal.KINDS
    assert journal.decode(data) == entry


def test_every_kind_is_covered() -> None:
    assert {type(entry).KIND for entry in EVERY_KIND} == journal.KINDS


def test_the_private_parts_written_while_applying_are_journalled_and_read_back() -> None:
    entry = journal.Start(fill=True)
    entry.fair["seed"] = "ab"
    entry.races["3"] = {"allowance_ns": 0, "latency": {}}
    data = journal.encode(entry)
    assert data["fair"] == {"seed": "ab"} and data["races"] == {"3": {"allowance_ns": 0, "latency": {}}}
    again = journal.decode(data)
    assert again.fair == entry.fair and again.races == entry.races
    assert "fair" not in journal.encode(journal.Start(fill=True))  # nothing written, nothing stored


def test_older_forms_decode_to_what_they_meant() -> None:
    ruling = journal.decode({"k": "ruling", "window": 2, "kind": "jump_in", "compensated": False,
                             "answers": [], "late": [], "ruling": {}})
    assert isinstance(ruling, journal.Ruling) and ruling.version == 1 and ruling.round is None
    assert "v" not in journal.encode(ruling) and "round" not in journal.encode(ruling)
    assert journal.decode({"k": "start"}) == journal.Start(fill=False, bot_kind="")
    # A start written before StartTable announced its bots replays without BotSeated events.
    assert journal.decode({"k": "start", "fill": True, "bot_kind": ""}).version == 1
    chat = journal.decode({"k": "chat", "seat": 1, "name": "bob", "text": "hi"})
    assert chat == journal.Chat(1, "bob", "hi", "", None)


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(journal.UnknownEntry, match="'teleport'"):
        journal.decode({"k": "teleport"})
