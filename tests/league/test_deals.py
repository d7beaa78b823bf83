"""Deal books (issue 31, point 6): `unonet league deals` writes a file of deal seeds; a league or an SPRT
that takes it plays exactly those deals, whatever its own seed or bots, so two runs, or a new version of
a bot, are measured on the same deals."""

from __future__ import annotations

import subprocess
import sys

import pytest
from league_files import league_file

from unonet.league import config as league_config
from unonet.league.config import LeagueFileError
from unonet.league.deals import DealBookError, derived_seed, read_book
from unonet.league.results import Results
from unonet.league.runner import play_inprocess, run_league
from unonet.league.schedule import schedule
from unonet.league.sprt_run import sprt_config


def deals(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unonet.cli", "league", "deals", *args], capture_output=True,
                          text=True, timeout=60)


def test_a_book_from_a_seed_holds_that_leagues_deals_and_a_fresh_one_new_deals(tmp_path):
    book = tmp_path / "book.deals"
    assert deals(str(book), "--count", "6", "--seed", "11").returncode == 0
    assert read_book(book) == tuple(derived_seed(11, deal) for deal in range(1, 7))
    assert book.read_text().startswith("# unonet deal book v1\n")
    fresh = tmp_path / "fresh.deals"
    assert deals(str(fresh), "--count", "50").returncode == 0
    assert len(set(read_book(fresh))) == 50
    assert deals(str(fresh), "--count", "0").returncode == 2


def test_a_league_with_a_book_plays_the_books_deals_whatever_its_seed(tmp_path):
    book = tmp_path / "book.deals"
    deals(str(book), "--count", "12", "--seed", "11")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    own = league_config.load(league_file(tmp_path / "a", games=12, size=3, bots=3))  # seed 11, no book
    path = league_file(tmp_path / "b", games=12, size=3, bots=3, extra=f'deals = "{book}"')
    path.write_text(path.read_text().replace("seed = 11", "seed = 999"))  # another league seed, the same book
    booked = league_config.load(path)
    assert booked.seed == 999
    assert [spec.seed for spec in schedule(booked)] == [spec.seed for spec in schedule(own)]
    assert booked.fingerprint() != own.fingerprint()  # the book is part of what the league is
    # With its own seed again (the seatings are shuffled from it), the same bots play the very same games.
    path.write_text(path.read_text().replace("seed = 999", "seed = 11"))
    booked = league_config.load(path)
    for one, other in zip(play_inprocess(own, schedule(own)), play_inprocess(booked, schedule(booked)), strict=True):
        assert one.same_play(other)


def test_a_new_version_of_a_bot_meets_the_same_deals(tmp_path):
    book = tmp_path / "book.deals"
    deals(str(book), "--count", "40")
    leagues = []
    for folder, kind in (("old", "random"), ("new", "greedy")):
        (tmp_path / folder).mkdir()
        lines = f'[[bot]]\nname = "mine"\nkind = "{kind}"\n'
        leagues.append(league_config.load(league_file(tmp_path / folder, games=8, size=2, bots=1, bot_lines=lines,
                                                      extra=f'deals = "{book}"')))
    old, new = leagues
    assert old.fingerprint() != new.fingerprint()
    assert [(s.deal, s.seed) for s in schedule(old)] == [(s.deal, s.seed) for s in schedule(new)]
    assert {s.seed for s in schedule(old)} <= set(read_book(book))


def test_an_sprt_takes_a_book(tmp_path):
    book = tmp_path / "book.deals"
    deals(str(book), "--count", "5", "--seed", "3")
    config = sprt_config("greedy", "random", db=tmp_path / "s.sqlite", deals=book, max_games=10)
    assert [spec.seed for spec in schedule(config)][::2] == list(read_book(book))


@pytest.mark.parametrize(("text", "message"), [
    ("1\n2\n", "not a deal book"),
    ("# unonet deal book v1\n12\nseven\n", ":3: 'seven' is not a deal seed"),
    ("# unonet deal book v1\n# none\n", "holds no deals"),
    (f"# unonet deal book v1\n{1 << 64}\n", "not a deal seed"),
])
def test_a_bad_book_is_refused_naming_the_line(tmp_path, text, message):
    book = tmp_path / "bad.deals"
    book.write_text(text)
    with pytest.raises(DealBookError, match=message):
        read_book(book)
    with pytest.raises(LeagueFileError, match=message):
        league_config.load(league_file(tmp_path, extra=f'deals = "{book}"'))


def test_a_book_too_short_for_the_league_is_refused_before_anything_is_played(tmp_path):
    book = tmp_path / "short.deals"
    deals(str(book), "--count", "2")
    path = league_file(tmp_path, games=12, size=3, bots=3)
    run = subprocess.run([sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--inprocess",
                          "--deals", str(book)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "has 2 deals; this league needs deal 3" in run.stderr
    assert not (tmp_path / "league.sqlite").exists()
    config = league_config.load(path)
    run_league(config)  # without the book it plays
    with Results(config.db) as db:
        assert db.count() == 12
