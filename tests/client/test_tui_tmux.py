"""End to end in a real terminal: the real `unonet play` under tmux against a real `unonet serve` with bots.

The test sends keys with ``tmux send-keys`` and reads the screen with ``tmux capture-pane``, waiting for
what the pane shows (each wait has a deadline). The first plays until the match's round ends and checks
the hand, a legal play going through, a dead key's hint and the scoreboard; the second stops the host
mid-round, starts it again on the same database and port, and checks that the client says it is
reconnecting, then resumes and plays on.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_pane import DEADLINE, PLAY_DEADLINE, UNONET, Pane, Table, client_env, free_port

from unonet.client.table_client import TableClient

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (make pytest installs it)"),
    pytest.mark.timeout(400),  # above every wait below: a loaded machine slows them, never fails them
]

class Host:
    """A `unonet serve` process on a fixed port and database, that can be stopped and started again."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.db = directory / "host.db"
        self.log = directory / "host.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [UNONET, "serve", "--listen", self.address, "--db", str(self.db), "--bot-delay", "0.02"],
                stdout=log, stderr=subprocess.STDOUT,
            )

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    running = Host(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def new_table(address: str, *, players: int = 4, target_score: int = 50) -> str:
    """A table whose other seats hold host bots: it starts when the player takes the last seat."""

    async def create() -> str:
        async with await TableClient.connect(address, connect_timeout=DEADLINE) as client:
            created = await client.create_table("standard", {"target_score": target_score}, players)
            await client.add_bots(players - 1, table_id=created.table_id)
            return created.table_id

    return asyncio.run(asyncio.wait_for(create(), DEADLINE))


def host_hand_size(address: str, table_id: str, seat: int) -> int:
    async def fetch() -> int:
        async with await TableClient.connect(address, connect_timeout=DEADLINE) as client:
            return (await client.get_table(table_id)).seats[seat].hand_size

    return asyncio.run(asyncio.wait_for(fetch(), DEADLINE))


def open_client(host: Host, table_id: str, tmp_path: Path) -> Pane:
    return Pane([UNONET, "play", host.address, "--table", table_id, "--name", "ann", "--colour-blind"],
                client_env(tmp_path))


def play_once(pane: Pane, screen: str) -> str:
    """Make one move from what the screen asks; returns what was done ("" for nothing)."""
    table = Table(screen)
    if "name the colour" in screen:
        pane.keys("r")
        return "colour"
    if "1 card: U calls UNO" in screen:
        pane.keys("u")
        return "uno"
    if "YOUR TURN" not in table.status:
        return ""
    if "P keeps it" in table.status:
        pane.keys("Enter" if table.chosen_is_playable else "p")
        return "play" if table.chosen_is_playable else "pass"
    pane.keys("Enter" if table.chosen_is_playable else "Space")
    return "play" if table.chosen_is_playable else "draw"


def asks_us(screen: str) -> bool:
    """Whether the screen asks something `play_once` answers."""
    return "name the colour" in screen or "U calls UNO" in screen or "YOUR TURN" in Table(screen).status


def moved_on(old: str, new: str) -> bool:
    """After a move: the hand changed, or it is no longer our turn, or a round ended."""
    before, after = Table(old), Table(new)
    return (after.hand_count != before.hand_count or "YOUR TURN" not in after.status or "SCORES" in new
            or after.status != before.status or after.hand != before.hand)


def scores_open(screen: str) -> bool:
    return "SCORES AFTER ROUND" in screen or "THE MATCH" in screen


def test_play_a_round_in_a_real_terminal(host: Host, tmp_path: Path) -> None:
    table_id = new_table(host.address, target_score=50)
    pane = open_client(host, table_id, tmp_path)
    try:
        screen = pane.wait_for(lambda s: "YOUR TURN" in Table(s).status, "our turn")
        assert "ann (you)" in screen and "basic-bot" in screen
        assert Table(screen).hand_count >= 7 and "┏━━━┓" in screen  # the dealt hand, a card chosen
        pane.keys("p" if "P keeps it" not in screen else "x")
        pane.wait_for(lambda s: "nothing to pass" in s or "does nothing here" in s, "a dead key's hint")
        played, seen_our_play = 0, False
        end = time.monotonic() + PLAY_DEADLINE
        while time.monotonic() < end:
            screen = pane.text()
            if scores_open(screen):
                break
            done = play_once(pane, screen)
            if done:
                screen = pane.wait_for(lambda s, old=screen: moved_on(old, s), f"the {done} to go through")
                played += done == "play"
                seen_our_play = seen_our_play or "ann plays" in screen
            else:
                time.sleep(0.05)
        screen = pane.wait_for(scores_open, "the scoreboard")
        assert played >= 1 and seen_our_play
        assert "refused" not in screen
        assert "total" in screen and "you" in screen
        pane.keys("q")
        pane.wait_for(lambda s: "CLIENT-EXITED" in s, "the client to quit")
    finally:
        pane.close()


def test_the_client_resumes_after_the_host_restarts_mid_round(host: Host, tmp_path: Path) -> None:
    table_id = new_table(host.address, target_score=500)
    pane = open_client(host, table_id, tmp_path)
    try:
        screen = pane.wait_for(lambda s: "YOUR TURN" in Table(s).status, "our turn")
        play_once(pane, screen)
        screen = pane.wait_for(lambda s, old=screen: moved_on(old, s), "our first move")
        if "name the colour" in screen:
            play_once(pane, screen)
            pane.wait_for(lambda s: "name the colour" not in s, "the colour named")
        host.stop()
        screen = pane.wait_for(lambda s: "RECONNECTING" in s and "reconnecting to the host" in s, "reconnecting")
        assert "YOUR TURN" not in screen and not Table(screen).any_playable  # nothing stale offered as playable
        host.start()
        screen = pane.wait_for(lambda s: "RECONNECTING" not in s, "the reconnection")
        assert "reconnect" not in screen.lower() and "unreachable" not in screen  # no stale line outlives it
        # Resumed where it left off: the hand on screen is the one the restarted host holds for the seat.
        pane.wait_for(lambda s: Table(s).hand_count == host_hand_size(host.address, table_id, 3),
                      "the host's hand size")
        # And it plays on: the next thing the restarted host asks of us goes through.
        screen = pane.wait_for(asks_us, "our next turn after the restart")
        done = play_once(pane, screen)
        screen = pane.wait_for(lambda s, old=screen: moved_on(old, s), f"the {done} after the restart")
        assert "gone" not in screen.lower()
        assert "refused" not in screen, screen
    finally:
        pane.close()


def test_unonet_local_seats_three_bots_and_you_and_quitting_stops_its_host(tmp_path: Path) -> None:
    """What `make play` runs: an embedded host on 127.0.0.1, three host bots and you; Q stops it all."""
    port = free_port()
    pane = Pane([UNONET, "local", "--name", "ann", "--bot-delay", "0.02", "--port", str(port)], client_env(tmp_path))
    try:
        # Before the start (a moment) the seats are empty; then three bots sit around ann.
        screen = pane.wait_for(lambda s: s.count(" cards bot") == 3, "the bots seated")
        assert "ann (you)" in screen
        pane.wait_for(lambda s: "✓ fair" in s, "the verified shuffle")
        # Q asks first, and says what quitting does; anything but y plays on.
        pane.keys("q")
        pane.wait_for(lambda s: "quit? This stops the game's host" in s, "Q asking first")
        pane.keys("n")
        screen = pane.wait_for(lambda s: "you play on" in s, "the game going on")
        assert "CLIENT-EXITED" not in screen
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) == 0  # the host still serves
        pane.keys("q")
        pane.wait_for(lambda s: "quit? This stops" in s, "Q asking again")
        pane.keys("y")
        pane.wait_for(lambda s: "CLIENT-EXITED" in s, "the client and its host to stop")
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0  # the embedded host is gone
    finally:
        pane.close()


# ------------------------------------------------------------------------------ a newcomer's match
# `make play`'s client driven by someone who knows nothing but what the ? overlay says: at every moment
# that asks something of the player, open the help, pick the first thing it offers (in the order a
# newcomer would try them) and press that very key. Following the help must never be refused.

#: What the help lists (a line's start, after the key column) -> the key a newcomer presses, in order.
HELP_CHOICES = (
    ("R G B Y     name the colour", "r"),
    ("B           react!", "b"),
    ("U           call UNO", "u"),
    ("C           catch a player", "c"),
    ("Enter       give the chosen card back", "Enter"),
    ("Enter       give the chosen card (then a seat number)", "Enter"),
    ("Enter       play the chosen card", "Enter"),
    ("Space       accept the draw", "Space"),
    ("Space       draw a card", "Space"),
    ("P           keep the card you drew", "p"),
)
#: Status lines that ask nothing of the player: no need for help then.
WAITING = ("to play", "shuffling", "waiting", "round over", "reconnecting", "sent")
#: Hints a newcomer may see without having done anything wrong: a race another player won.
RACE_HINTS = ("too late", "another player was faster", "race is lost")


def overlay_text(line: str) -> str:
    """What a line of an overlay box says, without the box's edges and the table showing beside it."""
    parts = line.split("│")  # the box's edges, and the table's beside them where they show
    return max(parts, key=lambda part: len(part.strip())).strip()


def choose_from_help(help_screen: str, screen: str) -> str:
    """The key a newcomer presses, from the help overlay's lines (and, for Enter, the chosen card)."""
    lines = [overlay_text(line) for line in help_screen.splitlines()]
    seats = next((line for line in lines if line.startswith("0-9         the seat to")), None)
    if seats is not None:  # swap hands with, give a card to, catch: the first seat offered
        return seats.rsplit(":", 1)[1].split(",")[0].strip()
    for start, key in HELP_CHOICES:
        if not any(line.startswith(start) for line in lines):
            continue
        if start.startswith("U") and "with your next play" in next(x for x in lines if x.startswith(start)):
            continue  # arming UNO for the next play: a newcomer plays and calls when one card is left
        if start.startswith("Enter       play") and not Table(screen).chosen_is_playable:
            # The chosen card cannot be played: the help says Left/Right choose, so look for a raised one.
            return "Right" if Table(screen).any_playable else ""
        return key
    return ""


def test_a_newcomer_finishes_a_whole_match_of_make_play_with_the_help_as_the_only_guide(tmp_path: Path) -> None:
    pane = Pane([UNONET, "local", "--name", "ann", "--bot-delay", "0.02", "--target-score", "40", "--pace", "0.1"],
                client_env(tmp_path), (80, 24))
    moves: list[str] = []
    try:
        pane.wait_for(lambda s: "✓ fair" in s, "the dealt table")
        end = time.monotonic() + PLAY_DEADLINE
        while time.monotonic() < end:
            screen = pane.text()
            if "THE MATCH" in screen:
                break
            if "Space closes the scores" in screen:  # a round's scores say how to go on
                pane.keys("Space")
                pane.wait_for(lambda s: "Space closes the scores" not in s or "THE MATCH" in s, "the scores closed")
                continue
            status = Table(screen).status
            if any(word in status for word in WAITING) or not status.strip():
                time.sleep(0.05)
                continue
            pane.keys("?")
            try:
                help_screen = pane.wait_for(lambda s: " KEYS " in s, "the help", deadline=5)
            except AssertionError:
                continue  # the moment passed before the help opened (a scoreboard came up, say)
            key = choose_from_help(help_screen, screen)
            if not key:
                pane.keys("Escape")
                pane.wait_for(lambda s: " KEYS " not in s, "the help closed", deadline=5)
                continue
            pane.keys(key)
            moves.append(key)
            after = pane.wait_for(lambda s, old=screen: " KEYS " not in s and moved_on(old, s), f"{key} to go through")
            hint = Table(after).hint
            # A refusal also leaves the turn where it was, so the wait above fails first; this names it.
            assert ("refused" not in hint and "does nothing" not in hint) or any(r in hint for r in RACE_HINTS), (
                f"the help's {key} was refused:\n{after}")
        screen = pane.wait_for(lambda s: "THE MATCH" in s, "the match's end")
        assert "N rematch" in screen and "total" in screen
        assert moves.count("Enter") >= 1, moves
        pane.quit_answering_yes()
    finally:
        pane.close()


# ------------------------------------------------------------------------- nothing lost by a stray key


def stored_tables(db: Path) -> list[str]:
    """The ids of the tables a stopped host kept in `db`."""
    from unonet.host.store import SqliteStore

    store = SqliteStore(db)
    try:
        return [stored.table_id for stored in store.tables()]
    finally:
        store.close()


def our_turn_hand(pane: Pane) -> list[str]:
    """Wait for our turn (closing a round's scores on the way) and return the hand it shows."""
    end = time.monotonic() + PLAY_DEADLINE
    while time.monotonic() < end:
        screen = pane.text()
        if "Space closes the scores" in screen:
            pane.keys("Space")
        elif "YOUR TURN" in Table(screen).status:
            return Table(screen).hand
        time.sleep(0.05)
    raise AssertionError(f"our turn never came:\n{pane.text()}")


def hand_at_our_turn_then_quit(command: list[str], env: dict[str, str], asked: str) -> list[str]:
    """Run `command` in a pane until our turn, and quit it with y: the hand our turn showed."""
    pane = Pane(command, env)
    try:
        hand = our_turn_hand(pane)
        pane.quit_answering_yes(asked)
        return hand
    finally:
        pane.close()


def test_make_play_keeps_its_match_and_resumes_it_after_q(tmp_path: Path) -> None:
    """`unonet local` on its database: quitting keeps the match, the next start offers it, and the
    resumed screen is where it was left (our turn, the same hand); answering n starts a new match."""
    db = tmp_path / "local.db"
    env = client_env(tmp_path)
    command = [UNONET, "local", "--name", "ann", "--bot-delay", "0", "--db", str(db)]
    hand = hand_at_our_turn_then_quit(command, env, "quit? This stops the game's host")
    (table_id,) = stored_tables(db)
    pane = Pane(command, env)
    try:
        screen = pane.wait_for(lambda s: "Resume it? [Y/n]" in s, "the offer to resume")
        assert "your last match is not over" in screen and "round 1" in screen and "you 0" in screen
        pane.keys("Enter")
        assert our_turn_hand(pane) == hand  # our turn still, our cards as we left them
        pane.quit_answering_yes("quit? This stops the game's host")
    finally:
        pane.close()
    assert stored_tables(db) == [table_id]  # resumed: no second table
    pane = Pane(command, env)
    try:
        pane.wait_for(lambda s: "Resume it? [Y/n]" in s, "the offer again")
        pane.keys("n", "Enter")
        our_turn_hand(pane)
        pane.quit_answering_yes("quit? This stops the game's host")
    finally:
        pane.close()
    assert len(stored_tables(db)) == 2 and table_id in stored_tables(db)  # a new match beside the old one


def test_unonet_host_restarted_on_its_database_reopens_its_seat_and_makes_no_second_table(tmp_path: Path) -> None:
    db, port = tmp_path / "lan.db", free_port()
    env = client_env(tmp_path)
    command = [UNONET, "host", "--listen", f"127.0.0.1:{port}", "--db", str(db), "--seats", "2", "--bots", "1",
               "--player", "ann", "--name", f"pace-{uuid.uuid4().hex[:6]}", "--bot-delay", "0"]
    hand = hand_at_our_turn_then_quit(command, env, "quit? This stops the host: everyone at this table is disconnected")
    (table_id,) = stored_tables(db)
    pane = Pane(command, env)
    try:
        assert our_turn_hand(pane) == hand  # the host's own seat, reopened where it was

        async def seats() -> tuple[list[str], list[tuple[str, bool]]]:
            async with await TableClient.connect(f"127.0.0.1:{port}", connect_timeout=DEADLINE) as client:
                listed = await client.list_tables()
                info = await client.get_table(table_id)
                return [t.table_id for t in listed], [(s.name, s.connected) for s in info.seats]

        listed, seated = asyncio.run(asyncio.wait_for(seats(), DEADLINE))
        assert listed == [table_id]  # no second table
        assert seated[0] == ("ann", True)  # and the host's seat is back, connected
        pane.quit_answering_yes("quit? This stops the host")
    finally:
        pane.close()
    assert stored_tables(db) == [table_id]
