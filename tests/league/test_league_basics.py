"""The league's pure stages: the league file, schedules, finishing orders, ratings and statistics."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from unonet.engine import Card, Color, Rank, Scoring
from unonet.league import config as league_config
from unonet.league.order import match_ranks, round_ranks, scores
from unonet.league.results import GameResult
from unonet.league.schedule import cycle_length, schedule
from unonet.league.standings import head_to_head, mean_interval, rating_history, standings, wilson_interval

FILE = """
[league]
name = "t"
seed = 3
games = 10
table_size = 3

[[bot]]
name = "a"
kind = "random"
[[bot]]
name = "b"
kind = "random"
[[bot]]
name = "c"
kind = "random"
[[bot]]
name = "d"
kind = "random"
"""


def parsed(text: str, tmp_path: Path) -> league_config.LeagueConfig:
    path = tmp_path / "league.toml"
    path.write_text(text)
    return league_config.load(path)


def test_league_file_defaults(tmp_path):
    config = parsed(FILE, tmp_path)
    assert config.table_sizes == (3,)
    assert config.duplicate is True
    assert config.unit is league_config.GameUnit.ROUND
    assert config.db == tmp_path / "league.sqlite"
    assert [bot.name for bot in config.bots] == ["a", "b", "c", "d"]
    assert config.ruleset().name == "standard"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("games = 10", "games = 0"), "positive"),
        (("table_size = 3", "table_size = 5"), "needs at least 5 bots"),
        (("table_size = 3", "table_size = 11"), "2 to 10"),
        (('name = "t"', 'name = "t"\npreset = "nope"'), "unknown preset"),
        (('name = "t"', 'name = "t"\n[league.rules]\nstackin = true'), "unknown rule option"),
        (('name = "t"', 'name = "t"\n[league.rules]\nscoring = "most"'), "must be one of"),
        (('name = "t"', 'name = "t"\nschedule = "gauntlet"'), "challenger"),
        (('name = "b"\nkind = "random"', 'name = "a"\nkind = "random"'), "unique"),
        (('name = "d"\nkind = "random"', 'name = "d"\npython = "nocolon"'), "module:Class"),
        (('name = "d"\nkind = "random"', 'name = "d"\nkind = "random"\nexec = "x"'), "exactly one"),
        (("seed = 3", "seed = true"), "must be a int"),
    ],
)
def test_league_file_refusals(tmp_path, change, message):
    with pytest.raises(league_config.LeagueFileError, match=message):
        parsed(FILE.replace(*change), tmp_path)


def test_not_toml_is_refused(tmp_path):
    with pytest.raises(league_config.LeagueFileError, match="not valid TOML"):
        parsed("[league\n", tmp_path)


def test_round_robin_balances_seats_every_cycle(tmp_path):
    config = parsed(FILE, tmp_path)
    games = schedule(config)
    assert cycle_length(config) == 4 * 3  # C(4, 3) groups, 3 rotations each
    assert len(games) == 12  # 10 rounded up to one whole cycle
    seats = Counter((name, seat) for game in games for seat, name in enumerate(game.seats))
    assert set(seats.values()) == {3}  # each bot in each seat exactly 3 times
    assert [game.game_id for game in games[:2]] == ["g000001", "g000002"]


def test_duplicate_deals_share_a_deal_across_rotations(tmp_path):
    config = parsed(FILE, tmp_path)
    games = schedule(config)
    by_deal: dict[int, list] = {}
    for game in games:
        by_deal.setdefault(game.deal, []).append(game)
    assert len(by_deal) == 4
    for same in by_deal.values():
        assert len({game.seed for game in same}) == 1
        assert sorted(game.rotation for game in same) == [0, 1, 2]
        # every bot of the group plays the deal from every seat
        for seat in range(3):
            assert len({game.seats[seat] for game in same}) == 3
    independent = schedule(parsed(FILE.replace("seed = 3", "seed = 3\nduplicate = false"), tmp_path))
    assert len({game.seed for game in independent}) == len(independent)


def test_gauntlet_seats_the_challenger_in_every_game(tmp_path):
    config = parsed(FILE.replace('name = "t"', 'name = "t"\nschedule = "gauntlet"\nchallenger = "c"'), tmp_path)
    games = schedule(config)
    assert all("c" in game.seats for game in games)
    assert Counter(game.seats.index("c") for game in games) == {0: 6, 1: 6, 2: 6}


def test_round_order_winner_then_points_left_ties_shared():
    assert round_ranks(2, [10, 5, 0, 10]) == (3, 2, 1, 3)
    assert round_ranks(0, [0, 7, 7], forfeited={1}) == (1, 3, 2)


def test_match_order_reads_the_scoring():
    assert match_ranks({1}, [300, 510, 300, 40], Scoring.WINNER_TAKES) == (2, 1, 2, 4)
    assert match_ranks({3}, [300, 510, 120, 40], Scoring.LOWEST_WINS) == (3, 4, 2, 1)
    assert match_ranks({0}, [90, 520, 300], Scoring.ELIMINATION, eliminated={1}) == (1, 3, 2)


def test_scores_share_tied_places_and_sum_to_half_the_table():
    assert scores((1, 2, 3)) == (1.0, 0.5, 0.0)
    assert scores((1, 1, 3, 4)) == pytest.approx((5 / 6, 5 / 6, 1 / 3, 0.0))
    assert sum(scores((1, 2, 2, 4, 5))) == pytest.approx(2.5)


def test_hand_points_are_card_points():
    from unonet.league.order import hand_points

    assert hand_points([Card(Color.RED, Rank.SEVEN), Card(Color.BLACK, Rank.WILD)]) == 57


def test_wilson_interval_known_values():
    # Wilson (1927) / Newcombe (1998) table: 5 of 10 -> 0.2366 to 0.7634; 0 of 10 -> 0 to 0.2775.
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert mean_interval([1.0, 0.0, 1.0, 0.0])[1:] == pytest.approx((0.5 - 0.5658, 0.5 + 0.5658), abs=1e-3)


def result(index: int, seats: tuple[str, ...], ranks: tuple[int, ...]) -> GameResult:
    return GameResult(f"g{index:06d}", index, 0, index, index, 0, seats, ranks, (0,) * len(seats),
                      ("played",) * len(seats), 1, "inprocess", 0.0)


def test_ratings_are_openskill_plackett_luce_without_drift():
    games = [result(i, ("a", "b", "c"), (1, 2, 3)) for i in range(20)]
    history = rating_history(games, ["a", "b", "c"])
    # the same numbers as OpenSkill's own model, with tau = 0
    rater = PlackettLuce(tau=0.0)
    a, b, c = (rater.rating(name=n) for n in "abc")
    [[a], [b], [c]] = rater.rate([[a], [b], [c]], ranks=[1.0, 2.0, 3.0])
    assert history[1].ratings["a"] == pytest.approx((a.mu, a.sigma))
    assert history[1].ratings["c"] == pytest.approx((c.mu, c.sigma))
    # no drift: a fixed bot's uncertainty only shrinks
    sigmas = [point.ratings["b"][1] for point in history]
    assert all(later <= earlier for earlier, later in itertools.pairwise(sigmas))
    table = standings(games, ["a", "b", "c"])
    assert [line.name for line in table] == ["a", "b", "c"]
    assert table[0].ordinal == pytest.approx(table[0].mu - 3 * table[0].sigma)
    assert table[0].win_rate == 1.0 and table[2].points_per_game == 0.0


def test_head_to_head_counts_ties_as_half():
    games = [result(1, ("a", "b", "c"), (1, 2, 2)), result(2, ("b", "a"), (1, 2))]
    matrix = head_to_head(games, ["a", "b", "c"])
    assert matrix["a"]["b"] == (0.5, 2)
    assert matrix["b"]["c"] == (0.5, 1)
    assert matrix["c"]["a"] == (0.0, 1)


def test_heads_up_pairs_find_both_seatings_of_each_deal(tmp_path):
    from unonet.league.pairs import heads_up_pairs

    games = [
        GameResult("g1", 0, 0, 1, 99, 0, ("a", "b"), (1, 2), (0, 9), ("played",) * 2, 1, "inprocess", 0.0),
        GameResult("g2", 1, 0, 1, 99, 1, ("b", "a"), (1, 2), (0, 4), ("played",) * 2, 1, "inprocess", 0.0),
        GameResult("g3", 2, 0, 2, 77, 0, ("a", "b"), (2, 1), (3, 0), ("played",) * 2, 1, "inprocess", 0.0),
    ]
    [pair] = heads_up_pairs(games, "a", "b")  # deal 2 is only half recorded
    assert (pair.deal, pair.seed, pair.scores, pair.game_ids) == (1, 99, (1.0, 0.0), ("g1", "g2"))
