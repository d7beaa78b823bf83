"""League test helpers: a league file written to a temporary folder."""

from __future__ import annotations

import pytest
from league_files import league_file

from unonet.league import config as league_config


@pytest.fixture
def make_league(tmp_path):
    def make(**kwargs) -> league_config.LeagueConfig:
        return league_config.load(league_file(tmp_path, **kwargs))

    return make
