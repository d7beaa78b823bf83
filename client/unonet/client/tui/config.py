"""The player's settings, kept between runs in a small TOML file: name, colour-blind, bell, title, pace,
and the last new-table form.

The file is ``$XDG_CONFIG_HOME/unonet/config.toml`` (``~/.config/unonet/config.toml`` when
XDG_CONFIG_HOME is unset), read with the standard `tomllib` and written with `tomli_w`. The client
writes it when a setting changes on the screen (K, the settings overlay O, a table created from the
lobby's form); flags given on the command line override it for that run and are not written. A file
that cannot be read (missing, damaged, a value of the wrong type) gives the defaults for what it
cannot say, never an error: settings are a convenience. docs/config.md lists every key.

    name = "ann"
    colour_blind = false
    bell = true
    title = true
    pace = 0.6

    [new_table]
    preset = "house"
    seats = 4
    ...
"""

from __future__ import annotations

import logging
import os
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from unonet.client.tui.controller import UiState

__all__ = ["Config", "PlayerSettings", "config_path", "load", "player_settings", "save"]

log = logging.getLogger(__name__)


def config_path() -> Path:
    """Where the settings live (not created)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "unonet" / "config.toml"


@dataclass(slots=True)
class Config:
    """The settings. `new_table` holds the last new-table form's values (`table_form.NewTable.remember`)."""

    name: str = ""
    colour_blind: bool = False
    bell: bool = True
    title: bool = True
    pace: float = 0.6
    new_table: dict[str, Any] = field(default_factory=dict)


def _typed(data: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    return value if isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)) else default


def load(path: Path | None = None) -> Config:
    """The settings in `path` (default `config_path()`); defaults for whatever is missing or unreadable."""
    try:
        with (path or config_path()).open("rb") as stream:
            data = tomllib.load(stream)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return Config()
    defaults = Config()
    table = data.get("new_table")
    return Config(
        name=_typed(data, "name", str, defaults.name)[:32],
        colour_blind=_typed(data, "colour_blind", bool, defaults.colour_blind),
        bell=_typed(data, "bell", bool, defaults.bell),
        title=_typed(data, "title", bool, defaults.title),
        pace=min(3.0, max(0.0, _typed(data, "pace", float, defaults.pace))),
        new_table=dict(table) if isinstance(table, dict) else {},
    )


def save(config: Config, path: Path | None = None) -> None:
    """Write the settings whole (a temporary file renamed over the old one: never half a file).

    Raises OSError when the directory cannot be written."""
    target = path or config_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"name": config.name, "colour_blind": config.colour_blind, "bell": config.bell,
                            "title": config.title, "pace": round(config.pace, 2)}
    if not config.name:
        del data["name"]
    if config.new_table:
        data["new_table"] = config.new_table
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".config-")
    try:
        with os.fdopen(handle, "wb") as stream:
            tomli_w.dump(data, stream)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


@dataclass(frozen=True, slots=True)
class PlayerSettings:
    """The settings a run starts with (the file's, the flags over them) and how to keep later changes."""

    name: str
    screen: UiState
    path: Path | None = None

    def session_args(self) -> dict[str, Any]:
        """What `Session` (through `play_joined`, `play_table`) takes: the settings and a writer."""
        return {"settings": self.screen, "on_settings": self.keep}

    def keep(self, ui: UiState) -> None:
        """Write the screen's settings to the file (called when one changed on the screen)."""
        config = load(self.path)
        config.colour_blind, config.bell, config.title, config.pace = ui.colour_blind, ui.bell, ui.title, ui.pace
        try:
            save(config, self.path)
        except OSError:
            log.warning("could not write the settings to %s", self.path or config_path(), exc_info=True)


def player_settings(*, name: str | None, colour_blind: bool | None, bell: bool | None, pace: float | None,
                    default_name: str, path: Path | None = None) -> PlayerSettings:
    """The settings of this run: each flag given (not None) over the file's value, else the file's."""
    config = load(path)
    screen = UiState(colour_blind=config.colour_blind if colour_blind is None else colour_blind,
                     bell=config.bell if bell is None else bell, title=config.title,
                     pace=config.pace if pace is None else min(3.0, max(0.0, pace)))
    return PlayerSettings(name or config.name or default_name, screen, path)
