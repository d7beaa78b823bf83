"""`HostCase`: what every suite asks of the one who runs it, a host to talk to (dm_env_rpc `compliance`).

A suite is a `unittest.IsolatedAsyncioTestCase` (so it runs under pytest or plain unittest, with no
plugin) with one abstract method, `serve`: start (or reach) the host under test, yield its plaintext
address, stop it on exit. Subclass a suite, say how to serve, and every test of the suite runs against
that host.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import unittest
from typing import Any, ClassVar

from unonet.client.conformance.remote import Remote, open_remote

__all__ = ["HostCase"]


class HostCase(unittest.IsolatedAsyncioTestCase, abc.ABC):
    """The base of every suite: `self.remote` is connected to the host `serve` gives, for each test.

    The suites themselves are abstract and say ``__test__ = False`` so that pytest does not collect
    them; a subclass is collected (`__init_subclass__` sets ``__test__`` back unless the subclass
    says otherwise). Import the module, not the class, into a test module (``from unonet.client
    import conformance`` then ``class TestOurHost(conformance.ContractSuite)``) so that plain
    unittest does not find the abstract class either.
    """

    __test__: ClassVar[bool] = False
    remote: Remote

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__test__" not in cls.__dict__:
            cls.__test__ = True

    @abc.abstractmethod
    def serve(self) -> contextlib.AbstractAsyncContextManager[str]:
        """Start or reach the host under test; yield its plaintext address (``"127.0.0.1:50051"``)
        while the test runs; stop it (if it was started) on exit. Called once per test, inside the
        test's event loop. The host must serve LobbyService, PlayService and WatchService (the fields
        suite also ChatService and TimeService), let anyone create a two-seat `standard` table that
        starts when both seats are joined, and keep a turn clock longer than a few seconds."""

    async def asyncSetUp(self) -> None:
        # unittest runs each test's loop in asyncio's debug mode, whose bookkeeping on every callback
        # slows long games several times over (and so changes what a host under load does): off.
        asyncio.get_running_loop().set_debug(False)
        address = await self.enterAsyncContext(self.serve())
        self.remote = await self.enterAsyncContext(open_remote(address))
