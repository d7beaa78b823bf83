"""The league file: a TOML document (read with `tomllib`) naming the bots, the tables and the games.

    [league]
    name = "demo"
    seed = 7                 # every deal and every bot's seed derive from it
    games = 48               # at least this many games (rounded up to whole cycles, see schedule)
    table_size = 4           # or table_sizes = [3, 4]
    preset = "standard"      # a ruleset preset; [league.rules] overrides its options
    game = "round"           # "round" (the default) or "match": what one game is
    schedule = "round-robin" # or "gauntlet" (then: challenger = "NAME")
    duplicate = true         # duplicate deals (the default): each deck replayed with the seats rotated
    seat_draws = true        # per-seat draw streams (the default for heads-up duplicate leagues)
    deals = "book.deals"     # a deal book (`deals.py`): the deals' seeds from a file, not from `seed`

    games_at_once = 8        # how the games are played (`PlaySettings`; the values here are the defaults)
    turn_time = 10.0         # seconds a bot has for each decision
    time_bank = 0.0          # extra seconds per seat for the whole game, after a turn's own time ran out
    strikes = 2              # turns timed out before the host forfeits the seat (a time loss); 0: never
    restarts = 3             # times a crashed or hung bot is started again in one game
    game_time_limit = 300.0  # seconds before a game still running is ended as a stall
    standings_every = 0      # print the standings every N games (0: not by games) ...
    standings_interval = 300.0  # ... and every this many seconds (0: not by time)

    [[bot]]
    name = "rnd"
    kind = "random"          # a built-in kind; or python = "module:Class", exec = "CMD", launch = "CMD"
    seed = 1                 # optional: added to the league's seed for this bot

Everything is checked when the file is read: a `LeagueFileError` names the key at fault. Every setting
of `PlaySettings` and `Reporting` can be overridden on the command line (`unonet league run --turn-time
2`, ...); they decide how games are played out and reported, not which games a league plays, so they
are not part of its fingerprint (a league may be resumed with a longer turn clock; each game's log keeps
the clock it was played under).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unonet.engine import PRESETS, Ruleset, RulesetError, find_ruleset
from unonet.league.deals import DealBookError, derived_seed, read_book

__all__ = [
    "BotSpec", "GameUnit", "LeagueConfig", "LeagueFileError", "PlaySettings", "Reporting", "load", "parse",
    "play_settings", "reporting", "with_deal_book",
]

SOURCES = ("kind", "python", "exec", "launch")


class LeagueFileError(ValueError):
    """The league file cannot be run: the message names the key and what is wrong with it."""


class GameUnit(enum.Enum):
    """What one league game is: one round (scored by points left in hand) or a whole match."""

    ROUND = "round"
    MATCH = "match"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One entrant: its unique `name`, where its policy comes from (`source` is one of SOURCES, `target`
    the kind, `module:Class` or command line), and the seed offset its games derive its seed from."""

    name: str
    source: str
    target: str
    seed: int = 0


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """How a league's games are played out (over gRPC; in-process games have no clock, so only the steps
    limit, `LeagueConfig.max_steps`, applies there). The defaults are the documented ones.

    - `games_at_once`: games in flight at a time (on each Dask worker, per batch);
    - `turn_time`: seconds a seat has for each decision (the table's ClockSettings.turn_time);
    - `time_bank`: extra seconds per seat for the whole game, spent only once a turn's own time ran out;
    - `strikes`: turns timed out before the host forfeits the seat (a time loss); 0 never forfeits;
    - `restarts`: times a bot whose program crashed or hung (or whose runner raised) is started again
      in one game, after which its seat leaves (a forfeit);
    - `game_time_limit`: seconds after which a game still running is ended as a stall.
    """

    games_at_once: int = 8
    turn_time: float = 10.0
    time_bank: float = 0.0
    strikes: int = 2
    restarts: int = 3
    game_time_limit: float = 300.0


@dataclass(frozen=True, slots=True)
class Reporting:
    """When a long run prints the standings: every `standings_every` games and every `standings_interval`
    seconds (0 turns either off; by default every five minutes)."""

    standings_every: int = 0
    standings_interval: float = 300.0


#: The league-file keys of `PlaySettings` and `Reporting`, with the type each takes.
PLAY_KEYS: dict[str, type] = {"games_at_once": int, "turn_time": float, "time_bank": float, "strikes": int,
                              "restarts": int, "game_time_limit": float}
REPORTING_KEYS: dict[str, type] = {"standings_every": int, "standings_interval": float}


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    """A checked league file. `fingerprint()` identifies what the results depend on, so a results
    database is never resumed under a different league."""

    name: str
    seed: int
    games: int
    table_sizes: tuple[int, ...]
    preset: str
    rules: tuple[tuple[str, Any], ...]
    unit: GameUnit
    schedule: str
    challenger: str | None
    duplicate: bool
    bots: tuple[BotSpec, ...]
    db: Path
    max_steps: int = 20_000
    # Per-seat draw streams (unonet.engine.draws): each seat draws the pile's cards in its own order
    # from the deal's seed, never by the pile's order, so the rotated replays of a deal give each seat
    # the same draws for as long as the pile holds them. On by default for heads-up duplicate leagues,
    # where bench/league_sprt.py measures it; docs/leagues.md has the figures.
    seat_draws: bool = False
    play: PlaySettings = PlaySettings()
    reporting: Reporting = Reporting()
    # A deal book (`unonet.league.deals`): deal k is dealt from the book's k-th seed instead of one derived
    # from `seed`, so other leagues (a new version of a bot, an SPRT) play the very same deals.
    deal_book: tuple[int, ...] | None = None
    deal_book_path: Path | None = None

    def deal_seed(self, deal: int) -> int:
        """The seed of deal number `deal` (from 1): the book's, or derived from the league's seed.
        Raises LeagueFileError when the book has fewer deals."""
        if self.deal_book is None:
            return derived_seed(self.seed, deal)
        if deal > len(self.deal_book):
            raise LeagueFileError(
                f"the deal book {self.deal_book_path} has {len(self.deal_book)} deals; this league needs deal {deal}: "
                "make a longer one (unonet league deals --count N) or play fewer games"
            )
        return self.deal_book[deal - 1]

    def ruleset(self) -> Ruleset:
        """The ruleset every game is played under (the preset with `[league.rules]` applied)."""
        return _ruleset(self.preset, dict(self.rules))

    def game_ruleset(self) -> Ruleset:
        """The ruleset a game's table is set up with: a round game is a match to 1 point, so a host
        table ends with the round (the finishing order reads the hands, not the score)."""
        ruleset = self.ruleset()
        return ruleset.replace(target_score=1) if self.unit is GameUnit.ROUND else ruleset

    def bot(self, name: str) -> BotSpec:
        """The entrant called `name`. Raises KeyError for an unknown one."""
        for spec in self.bots:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def fingerprint(self) -> str:
        """A digest of everything that decides which games are played and how (not the game count,
        so a league can be extended, and not the database path)."""
        data = {
            "seed": self.seed,
            "table_sizes": self.table_sizes,
            "preset": self.preset,
            "rules": [[k, str(v)] for k, v in self.rules],
            "unit": self.unit.value,
            "schedule": self.schedule,
            "challenger": self.challenger,
            "duplicate": self.duplicate,
            "bots": [dataclasses.astuple(spec) for spec in self.bots],
        }
        if self.seat_draws:  # only when on, so the leagues recorded before keep their fingerprint
            data["seat_draws"] = True
        if self.deal_book is not None:  # the deals themselves, not the file's name or place
            data["deal_book"] = hashlib.sha256(" ".join(map(str, self.deal_book)).encode()).hexdigest()
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def load(path: str | Path) -> LeagueConfig:
    """Read and check a league file. Raises LeagueFileError (also for a file that is not TOML)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LeagueFileError(f"cannot read {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise LeagueFileError(f"{path} is not valid TOML: {error}") from error
    return parse(data, default_db=path.with_suffix(".sqlite"), base=path.parent)


def parse(data: dict[str, Any], *, default_db: Path, base: Path | None = None) -> LeagueConfig:
    """Check a league file's parsed TOML. Raises LeagueFileError naming the key at fault."""
    league = _table(data, "league")
    unknown = set(data) - {"league", "bot"}
    if unknown:
        raise LeagueFileError(f"unknown top-level key(s): {', '.join(sorted(unknown))}")
    known = {"name", "seed", "games", "table_size", "table_sizes", "preset", "rules", "game", "schedule",
             "challenger", "duplicate", "seat_draws", "db", "max_steps", "deals", *PLAY_KEYS, *REPORTING_KEYS}
    unknown = set(league) - known
    if unknown:
        raise LeagueFileError(f"unknown key(s) in [league]: {', '.join(sorted(unknown))}")
    bots = _bots(data.get("bot"))
    sizes = _sizes(league)
    if max(sizes) > len(bots):
        raise LeagueFileError(f"table size {max(sizes)} needs at least {max(sizes)} bots; the file has {len(bots)}")
    preset = _get(league, "preset", str, "standard")
    rules = _table(league, "rules", required=False)
    _ruleset(preset, rules)
    try:
        unit = GameUnit(_get(league, "game", str, "round"))
    except ValueError:
        raise LeagueFileError("league.game must be 'round' or 'match'") from None
    schedule = _get(league, "schedule", str, "round-robin")
    if schedule not in ("round-robin", "gauntlet"):
        raise LeagueFileError("league.schedule must be 'round-robin' or 'gauntlet'")
    challenger = league.get("challenger")
    if schedule == "gauntlet":
        if not isinstance(challenger, str) or challenger not in {b.name for b in bots}:
            raise LeagueFileError("a gauntlet needs league.challenger, the name of one of the bots")
    elif challenger is not None:
        raise LeagueFileError("league.challenger is only for schedule = 'gauntlet'")
    games = _get(league, "games", int, 0)
    if games < 1:
        raise LeagueFileError("league.games must be a positive number of games")
    db = Path(_get(league, "db", str, str(default_db)))
    duplicate = _get(league, "duplicate", bool, True)
    seat_draws = _get(league, "seat_draws", bool, duplicate and sizes == (2,))
    if seat_draws and not duplicate:
        raise LeagueFileError("league.seat_draws is for duplicate deals: it needs duplicate = true")
    if base is not None and not db.is_absolute() and "db" in league:
        db = base / db
    book_path: Path | None = None
    book: tuple[int, ...] | None = None
    if "deals" in league:
        book_path = Path(_get(league, "deals", str, ""))
        if base is not None and not book_path.is_absolute():
            book_path = base / book_path
        try:
            book = read_book(book_path)
        except DealBookError as error:
            raise LeagueFileError(f"league.deals: {error}") from error
    return LeagueConfig(
        name=_get(league, "name", str, "league"),
        seed=_get(league, "seed", int, 0),
        games=games,
        table_sizes=sizes,
        preset=preset,
        rules=tuple(sorted(rules.items())),
        unit=unit,
        schedule=schedule,
        challenger=challenger,
        duplicate=duplicate,
        bots=bots,
        db=db,
        max_steps=_get(league, "max_steps", int, 20_000),
        seat_draws=seat_draws,
        play=play_settings({key: league[key] for key in PLAY_KEYS if key in league}, "league."),
        reporting=reporting({key: league[key] for key in REPORTING_KEYS if key in league}, "league."),
        deal_book=book,
        deal_book_path=book_path,
    )


def with_deal_book(config: LeagueConfig, path: Path) -> LeagueConfig:
    """`config` dealt from the deal book at `path` (`--deals`). Raises LeagueFileError."""
    try:
        book = read_book(path)
    except DealBookError as error:
        raise LeagueFileError(f"--deals: {error}") from error
    return dataclasses.replace(config, deal_book=book, deal_book_path=path)


def play_settings(values: dict[str, Any], where: str = "", base: PlaySettings | None = None) -> PlaySettings:
    """`base` (default: the defaults) with `values` (PLAY_KEYS) applied, each checked; `where` prefixes the
    names in errors ("league." for the file, "--" for the command line). Raises LeagueFileError."""
    settings = dataclasses.replace(base or PlaySettings(), **_checked(values, PLAY_KEYS, where))
    if settings.games_at_once < 1:
        raise LeagueFileError(f"{where}games_at_once must be at least 1")
    if settings.turn_time <= 0 or settings.game_time_limit <= 0:
        raise LeagueFileError(f"{where}turn_time and {where}game_time_limit must be positive numbers of seconds")
    if settings.time_bank < 0 or settings.strikes < 0 or settings.restarts < 0:
        raise LeagueFileError(f"{where}time_bank, {where}strikes and {where}restarts cannot be negative")
    return settings


def reporting(values: dict[str, Any], where: str = "", base: Reporting | None = None) -> Reporting:
    """`base` with `values` (REPORTING_KEYS) applied, each checked. Raises LeagueFileError."""
    settings = dataclasses.replace(base or Reporting(), **_checked(values, REPORTING_KEYS, where))
    if settings.standings_every < 0 or settings.standings_interval < 0:
        raise LeagueFileError(f"{where}standings_every and {where}standings_interval cannot be negative (0 is off)")
    return settings


def _checked(values: dict[str, Any], kinds: dict[str, type], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        kind = kinds[key]
        ok = isinstance(value, int | float) if kind is float else isinstance(value, kind)
        if not ok or isinstance(value, bool):
            wanted = "number" if kind is float else "whole number"
            raise LeagueFileError(f"{where}{key} must be a {wanted}, not {value!r}")
        out[key] = kind(value)
    return out


def _table(data: dict[str, Any], key: str, *, required: bool = True) -> dict[str, Any]:
    value = data.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise LeagueFileError(f"the file needs a [{key}] table" if value is None else f"{key} must be a table")
    return value


def _get(table: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = table.get(key, default)
    # bool is an int in Python: refuse `games = true`.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise LeagueFileError(f"league.{key} must be a {kind.__name__}, not {value!r}")
    return value


def _sizes(league: dict[str, Any]) -> tuple[int, ...]:
    if "table_size" in league and "table_sizes" in league:
        raise LeagueFileError("give league.table_size or league.table_sizes, not both")
    raw = league.get("table_sizes", [league.get("table_size", 4)])
    if not isinstance(raw, list) or not raw:
        raise LeagueFileError("league.table_sizes must be a non-empty list of table sizes")
    for size in raw:
        if not isinstance(size, int) or isinstance(size, bool) or not 2 <= size <= 10:
            raise LeagueFileError(f"a table seats 2 to 10 players, not {size!r}")
    return tuple(sorted(set(raw)))


def _bots(raw: Any) -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        raise LeagueFileError("a league needs at least two [[bot]] entries")
    specs: list[BotSpec] = []
    for index, entry in enumerate(raw):
        where = f"bot #{index + 1}"
        if not isinstance(entry, dict):
            raise LeagueFileError(f"{where} must be a table")
        unknown = set(entry) - {"name", *SOURCES, "seed"}
        if unknown:
            raise LeagueFileError(f"unknown key(s) in {where}: {', '.join(sorted(unknown))}")
        given = [key for key in SOURCES if key in entry]
        if len(given) != 1:
            raise LeagueFileError(f"{where} needs exactly one of {', '.join(SOURCES)}")
        source = given[0]
        target = entry[source]
        if not isinstance(target, str) or not target.strip():
            raise LeagueFileError(f"{where}: {source} must be a non-empty string")
        name = entry.get("name", target if source == "kind" else "")
        if not isinstance(name, str) or not name or any(ch in name for ch in ",\n\t"):
            raise LeagueFileError(f"{where} needs a name (no commas, tabs or newlines)")
        seed = entry.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise LeagueFileError(f"{where}: seed must be an integer")
        if source == "python" and ":" not in target:
            raise LeagueFileError(f"{where}: python must be 'module:Class', not {target!r}")
        specs.append(BotSpec(name, source, target, seed))
    names = [spec.name for spec in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise LeagueFileError(f"bot names must be unique; repeated: {', '.join(duplicates)}")
    return tuple(specs)


def _ruleset(preset: str, rules: dict[str, Any]) -> Ruleset:
    if preset not in PRESETS:
        raise LeagueFileError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    fields = {field.name: field for field in dataclasses.fields(Ruleset) if field.name != "name"}
    base = PRESETS[preset]
    overrides: dict[str, Any] = {}
    for key, value in rules.items():
        if key not in fields:
            raise LeagueFileError(f"unknown rule option league.rules.{key}")
        current = getattr(base, key)
        if isinstance(current, enum.Enum):
            try:
                value = type(current)(value)
            except ValueError:
                choices = ", ".join(repr(member.value) for member in type(current))
                raise LeagueFileError(f"league.rules.{key} must be one of {choices}") from None
        elif type(value) is not type(current):
            raise LeagueFileError(f"league.rules.{key} must be a {type(current).__name__}, not {value!r}")
        overrides[key] = value
    try:
        return find_ruleset(preset, **overrides)
    except RulesetError as error:
        raise LeagueFileError(f"league.rules: {error}") from error
