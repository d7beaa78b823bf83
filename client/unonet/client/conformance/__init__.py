"""The unonet.v1 conformance suites, as importable abstract tests (as dm_env_rpc's `compliance` ships).

A host, a reimplementation of one, or a bot author's mock is held to the protocol by subclassing a
suite and saying how to reach it; the suites speak only the generated `unonet.v1` stubs over the wire
and import no host::

    import contextlib
    from unonet.client import conformance

    class TestMyHost(conformance.ContractSuite):
        @contextlib.asynccontextmanager
        async def serve(self):
            server, port = await start_my_host("127.0.0.1:0")  # or yield a running host's address
            try:
                yield f"127.0.0.1:{port}"
            finally:
                await server.stop(None)

Run it with pytest or ``python -m unittest``. Import the module (as above), not the classes, into a
test module, so that only the subclass is collected.

- `ContractSuite` (`contract.py`): the promises every client relies on: tables created, joined and
  viewed; events numbered from 1 without gaps for players and spectators; no hidden card reaching
  another seat or a spectator; refusals with their machine reason in `unonet-error-bin` and in the
  standard `grpc-status-details-bin`; `*_UNSPECIFIED` refused; a retried command id applied once; a
  subscriber resuming after the last number it saw; ListTables paging newest first, never repeating.
- `FieldsSuite` (`fields.py`): a dozen seeded matches at once over every preset and the options that
  make rare events happen, with host bots and stub clients (`players.py`), after which every field of
  every message the host sends must have been set at least once and every kind of event sent, both
  read from the generated descriptors (`coverage.py`).

The host must serve LobbyService, PlayService and WatchService (the fields suite also ChatService and
TimeService), let anyone create a two-seat `standard` table that starts when both seats are joined,
and keep a turn clock longer than a few seconds (the default). Each test creates its own tables, so a
shared host is fine.
"""

from __future__ import annotations

from unonet.client.conformance.case import HostCase
from unonet.client.conformance.contract import ContractSuite
from unonet.client.conformance.fields import FieldsSuite
from unonet.client.conformance.remote import Remote

__all__ = ["ContractSuite", "FieldsSuite", "HostCase", "Remote"]
