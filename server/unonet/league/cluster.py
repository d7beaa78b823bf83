"""`--scheduler tcp://ADDR`: a league's games in batches on a Dask distributed cluster.

Each Dask task is one batch of scheduled games, played on a worker with its own embedded host, host
database and bots (`network.NetworkedLeague`, the bots on the batch's event loop: a worker's thread
is the cluster's unit of parallelism; with `--inprocess`, on the engine in the worker), and
returns the batch's results. The runner records them in the one league database as each batch
finishes, keyed by game id. When a worker is lost mid-batch, the scheduler runs the batch again on
another worker (`retries`), from the same seeds; since a row is only ever added once per game id,
nothing is counted twice, and a batch that did finish is never rerun (its key is its first game's id
and the league's fingerprint, so a resubmitted batch is the same task).

A batch that still fails after its retries (its workers keep dying, or its games keep being aborted on
the worker: `failures.NoProgress` there) is never partly recorded: the other batches are, and the run
then stops with an `InfrastructureError` naming the failed batches (exit status 1), so a rerun plays them.
The bots' programs a worker starts are recorded in its scratch folder as on one machine
(`reaper.ProgramRecords`): a worker that died has its leftovers killed by the next batch on that machine.

Workers need the same `unonet` installed (and any `python = "module:Class"` bot importable), and the
league file's bots must be runnable there; nothing else travels but the league's settings and the
batch's game specs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

from unonet.league.config import LeagueConfig
from unonet.league.failures import InfrastructureError
from unonet.league.results import GameResult
from unonet.league.runner import Player, play_inprocess
from unonet.league.schedule import GameSpec

__all__ = ["batches", "dask_player", "play_batch"]

log = logging.getLogger(__name__)


def batches(specs: Sequence[GameSpec], size: int) -> list[list[GameSpec]]:
    """The games in batches of `size`, in schedule order."""
    return [list(specs[start : start + size]) for start in range(0, len(specs), size)]


def play_batch(config: LeagueConfig, specs: Sequence[GameSpec], inprocess: bool) -> list[GameResult]:
    """One Dask task: play the batch on this worker and return its results."""
    if inprocess:
        return list(play_inprocess(config, specs))
    from unonet.league.network import NetworkOptions, play_networked

    # One worker thread is one core: the batch's bots play on its host's event loop, not in a child.
    return list(play_networked(config, specs, NetworkOptions.from_settings(config.play, bot_processes=0)))


def dask_player(address: str, *, batch: int = 8, inprocess: bool = False, retries: int = 3) -> Player:
    """A player that sends batches of `batch` games to the Dask scheduler at `address`."""

    def play(config: LeagueConfig, specs: Sequence[GameSpec]) -> Iterator[GameResult]:
        from distributed import Client, as_completed

        prefix = f"unonet-league-{config.fingerprint()}"
        with Client(address, set_as_default=False) as client:  # type: ignore[no-untyped-call]
            futures = [
                client.submit(play_batch, config, chunk, inprocess, key=f"{prefix}-{chunk[0].game_id}",
                              retries=retries, pure=False)
                for chunk in batches(specs, batch)
            ]
            failed: list[str] = []
            for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
                try:
                    results = future.result()
                except Exception as error:  # its retries are spent: the other batches still count
                    log.warning("batch %s failed on the cluster: %s: %s", future.key, type(error).__name__, error)
                    failed.append(f"{future.key} ({type(error).__name__}: {error})")
                    continue
                yield from results
        if failed:
            raise InfrastructureError(
                f"{len(failed)} batch(es) of games could not be played on the cluster after {retries} retries "
                f"(the first: {failed[0]}); the other games are recorded: run the same command again to play these"
            )

    return play
