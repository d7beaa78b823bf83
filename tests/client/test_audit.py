"""`unonet export` and `unonet verify LOG`: a finished game's public log audited end to end."""

from __future__ import annotations

import base64
import json

from fair_games import TABLE_ID, play_match

from unonet.cli import main
from unonet.host.store import SqliteStore
from unonet.v1 import events_pb2


def finished_db(tmp_path):
    db = tmp_path / "host.db"
    store = SqliteStore(db)
    play_match(4, seats=3, store=store, target_score=150)
    store.close()
    return db


def export(db, capsys) -> str:
    assert main(["export", "--db", str(db), "--table", TABLE_ID]) == 0
    return capsys.readouterr().out


def test_an_honest_log_passes_and_every_check_is_printed(tmp_path, capsys) -> None:
    db = finished_db(tmp_path)
    log = tmp_path / "game.jsonl"
    log.write_text(export(db, capsys))
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert "seed opens its commitment" in out and "roots match" in out and out.rstrip().splitlines()[-1].startswith(
        "PASSED")
    assert main(["verify", "--db", str(db), "--table-id", TABLE_ID]) == 0
    assert "PASSED" in capsys.readouterr().out


def test_a_length_delimited_log_passes_too(tmp_path, capsys) -> None:
    db = finished_db(tmp_path)
    store = SqliteStore(db)
    blobs = [blob for _, blob in store.public_events(TABLE_ID)]
    store.close()
    log = tmp_path / "game.bin"
    with log.open("wb") as out:
        for blob in blobs:
            length, prefix = len(blob), bytearray()
            while length > 0x7F:
                prefix.append((length & 0x7F) | 0x80)
                length >>= 7
            prefix.append(length)
            out.write(bytes(prefix) + blob)
    assert main(["verify", str(log), "--table-id", TABLE_ID]) == 0
    assert main(["verify", str(log)]) == 2, "a binary log needs its table id"


def test_a_tampered_log_fails_loudly(tmp_path, capsys) -> None:
    db = finished_db(tmp_path)
    lines = export(db, capsys).splitlines()
    for i, line in enumerate(lines[1:], start=1):
        event = json.loads(line)
        if "shuffleRevealed" in event:
            event["shuffleRevealed"]["seed"] = base64.b64encode(bytes(32)).decode()
            lines[i] = json.dumps(event)
            break
    log = tmp_path / "tampered.jsonl"
    log.write_text("\n".join(lines) + "\n")
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert "FAILED  SEED_MISMATCH" in out


def test_a_log_with_an_event_missing_fails(tmp_path, capsys) -> None:
    db = finished_db(tmp_path)
    lines = export(db, capsys).splitlines()
    dealt = next(i for i, line in enumerate(lines) if "cardsPlayed" in line)
    log = tmp_path / "gap.jsonl"
    log.write_text("\n".join(lines[:dealt] + lines[dealt + 1 :]) + "\n")
    assert main(["verify", str(log)]) == 1
    assert "without gaps" in capsys.readouterr().out
    assert events_pb2.Event  # the log's lines are unonet.v1.Event in the proto3 JSON mapping


def test_a_log_showing_a_card_that_does_not_exist_fails_without_a_traceback(tmp_path, capsys) -> None:
    db = finished_db(tmp_path)
    lines = export(db, capsys).splitlines()
    played = next(i for i, line in enumerate(lines) if "cardsPlayed" in line)
    event = json.loads(lines[played])
    event["cardsPlayed"]["cards"][0]["card"] = {"color": "COLOR_BLACK", "rank": "RANK_FIVE"}
    lines[played] = json.dumps(event)
    log = tmp_path / "no-such-card.jsonl"
    log.write_text("\n".join(lines) + "\n")
    assert main(["verify", str(log)]) == 1
    assert "FAILED  INVALID_INPUT: event " in capsys.readouterr().out
