"""The card table end to end, as a person meets it: the real `unonet local` (what `make play` runs) in tmux at
80x24, 100x30 and 160x48, keys sent with ``tmux send-keys``, the screen read with ``capture-pane``.

A whole match is played by keys to its own end screen, where S saves the replay (the path shown, the
file a replay opens) and N starts the rematch; the overlays (rules, details, settings) open and close,
settings changed on the screen land in the config file; and a database's tables are listed for
`unonet export` and picked from for `unonet replay`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from tmux_pane import DEADLINE, PLAY_DEADLINE, UNONET, Pane, Table, client_env, free_port

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (make pytest installs it)"),
    pytest.mark.timeout(600),
]


def local_game(tmp_path: Path, size: tuple[int, int], *extra: str) -> Pane:
    return Pane([UNONET, "local", "--name", "ann", "--bot-delay", "0.02", "--pace", "0.05",
                 "--port", str(free_port()), *extra], client_env(tmp_path), size)


def play_one(pane: Pane, screen: str) -> bool:
    """Answer what the screen asks with the first thing that works; True when a key was sent."""
    table = Table(screen)
    if "Space closes the scores" in screen:
        pane.keys("Space")
    elif "name the colour" in table.status:
        pane.keys("r")
    elif "1 card: U calls UNO" in table.status:
        pane.keys("u")
    elif "C catches" in table.status:
        pane.keys("c")
    elif "swap hands with which seat" in table.status:
        pane.keys(table.status.split("? ")[1][0])
    elif "YOUR TURN" not in table.status:
        return False
    elif "P keeps it" in table.status:
        pane.keys("Enter" if table.chosen_is_playable else "p")
    elif table.chosen_is_playable:
        pane.keys("Enter")
    elif table.any_playable and "Space takes" not in table.status:
        pane.keys("Right")
    else:
        pane.keys("Space")
    return True


def play_to_the_end(pane: Pane) -> str:
    """Play until the match's own end screen shows; returns it."""
    end = time.monotonic() + PLAY_DEADLINE
    while time.monotonic() < end:
        screen = pane.text()
        if "THE MATCH" in screen:
            return screen
        if play_one(pane, screen):
            pane.wait_for(lambda s, old=screen: s != old, "the key to land")
        else:
            time.sleep(0.05)
    raise AssertionError(f"the match never ended:\n{pane.text()}")


def test_a_whole_local_match_by_keys_ends_on_its_own_screen_with_a_replay_and_a_rematch(tmp_path: Path) -> None:
    pane = local_game(tmp_path, (80, 24), "--target-score", "30")
    try:
        screen = pane.wait_for(lambda s: "✓ fair" in s and "round 1" in s and "(you)" in s, "the dealt table")
        assert "first to 30" in screen and "round 1" in screen and "standard" in screen.splitlines()[0]
        screen = play_to_the_end(pane)
        assert re.search(r"(YOU WIN|BOT-\d WINS) THE MATCH", screen), screen
        assert "total" in screen and "round 1:" in screen and "went out" in screen
        assert "N rematch · S saves the replay · Q quits" in screen
        assert "╭───╮" not in screen and "┏━━━┓" not in screen  # its own screen: no hand, no table
        pane.keys("s")
        screen = pane.wait_for(lambda s: "replay saved:" in s and ".jsonl" in s, "the replay saved")
        lines = screen.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith(" replay saved: "))
        path = "".join(line.strip() for line in lines[first:first + 4]).removeprefix("replay saved: ")
        saved = Path(path[:path.index(".jsonl") + len(".jsonl")])  # the whole path, wrapped on the screen
        assert saved.is_file() and saved.is_relative_to(tmp_path / "state")
        step = subprocess.run([UNONET, "replay", str(saved), "--step", "40"], capture_output=True, text=True,
                              timeout=DEADLINE)
        assert step.returncode == 0 and "step 40 of" in step.stdout, step.stderr
        pane.keys("n")  # the rematch: the same seats at a new table, a new match
        screen = pane.wait_for(lambda s: "THE MATCH" not in s and "round 1" in s and "(you)" in s, "the rematch")
        assert screen.count(" cards bot") == 3 and screen.startswith(" local game (rem")  # "(rematch)", cut to fit
        pane.quit_answering_yes()  # the game stops with the client: Q asks first
    finally:
        pane.close()


@pytest.mark.parametrize("size", [(100, 30), (160, 48)])
def test_the_table_uses_the_room_and_the_overlays_open_and_close(tmp_path: Path, size: tuple[int, int]) -> None:
    pane = local_game(tmp_path, size, "--players", "6", "--turn-time", "0")
    try:
        screen = pane.wait_for(lambda s: "round 1" in s and " left" in s and s.count(" cards bot") == 5,
                               "the dealt table")
        assert all(f"bot-{seat}" in screen for seat in range(1, 6)) and "ann (you)" in screen
        assert " left" in screen and "colour" in screen  # the draw pile, the colour in force
        if size[0] >= 140:
            assert "scores" in screen and "chat · T writes" in screen  # a large screen's side column
        pane.wait_for(lambda s: "YOUR TURN" in Table(s).status, "our turn")
        pane.keys("i")
        # capture-pane can read a screen half drawn: wait for the whole overlay, not its title alone
        screen = pane.wait_for(lambda s: "RULES OF THIS TABLE" in s and "Scoring: winner takes" in s, "the rules")
        assert "P2" in screen and "first to" in screen
        pane.keys("Escape")
        pane.keys("d")
        screen = pane.wait_for(lambda s: "DETAILS" in s and "checks passed" in s, "the details")
        assert re.search(r"table id: \S+", screen), screen
        pane.keys("d")  # its own key closes it
        screen = pane.wait_for(lambda s: "DETAILS" not in s, "the details closed")
        assert "YOUR TURN" in Table(screen).status
        pane.keys("o")
        pane.wait_for(lambda s: "SETTINGS" in s, "the settings")
        pane.keys("b")
        pane.wait_for(lambda s: re.search(r"a bell when your turn starts\s+off", s) is not None, "the bell off")
        pane.keys("Escape")
        pane.keys("k")
        config = tmp_path / "config" / "unonet" / "config.toml"
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and not (config.is_file() and tomllib.loads(config.read_text()).get(
                "colour_blind")):
            time.sleep(0.05)
        kept = tomllib.loads(config.read_text())
        assert kept["bell"] is False and kept["colour_blind"] is True
        pane.quit_answering_yes()  # the game stops with the client: Q asks first
    finally:
        pane.close()


def test_export_and_replay_list_a_databases_tables_to_pick_from(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    pane = local_game(tmp_path, (80, 24), "--db", str(db))
    try:
        pane.wait_for(lambda s: "✓ fair" in s and "(you)" in s, "the dealt table")
        # A first turn in the log, which the replay opens at: a Wild turned first asks its player (ann, at
        # times) for a colour before any turn starts, and a game quit then replays from its first event.
        screen = pane.wait_for(lambda s: "YOUR TURN" in s or " to play" in s or "name the colour" in s,
                               "the first turn, or the first card's colour asked for")
        if "name the colour" in Table(screen).status:
            pane.keys("r")
            pane.wait_for(lambda s: "YOUR TURN" in s or " to play" in s, "the first turn")
        pane.quit_answering_yes()  # the game stops with the client: Q asks first
    finally:
        pane.close()
    listed = subprocess.run([UNONET, "export", "--db", str(db)], capture_output=True, text=True, timeout=DEADLINE)
    assert listed.returncode == 2 and "local game" in listed.stderr and "ann" in listed.stderr
    assert "playing, round 1" in listed.stderr and "give one of these with --table ID" in listed.stderr
    table_id = re.search(r"id (\S+)", listed.stderr).group(1)  # type: ignore[union-attr]
    exported = subprocess.run([UNONET, "export", "--db", str(db), "--table", table_id], capture_output=True,
                              text=True, timeout=DEADLINE)
    assert exported.returncode == 0 and table_id in exported.stdout.splitlines()[0]
    pane = Pane([UNONET, "replay", "--db", str(db)], client_env(tmp_path), (80, 24))
    try:
        pane.wait_for(lambda s: "which table? 1-1" in s and table_id in s, "the list to pick from")
        pane.keys("1", "Enter")
        # The whole screen of the first play, as the public sees it: a capture taken while the replay's first
        # frame was still being drawn read its counter beside the lobby's "waiting for players" once.
        pane.wait_for(lambda s: "move " in s and "public view" in s and "waiting for" not in s and "(you)" not in s,
                      "the replay at its first play, from the public's view, not the lobby's")
        pane.keys("Right")
        pane.keys("v")
        screen = pane.wait_for(lambda s: "seat 0" in s and "move " in s, "the next point of view")
        assert "move " in Table(screen).status or "move " in screen  # the counter stays after V
        pane.keys("q")
        pane.wait_for(lambda s: "CLIENT-EXITED" in s, "the replay to quit")
    finally:
        pane.close()
