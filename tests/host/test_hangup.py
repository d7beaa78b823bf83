"""hangup.py: the connection of a peer grpc names is found among this process's sockets and shut down,
and nothing else is: not a socket this process opened as a client, not one to another peer."""

from __future__ import annotations

import asyncio
import ipaddress
import sys

import pytest

from unonet.host.hangup import hang_up, peer_address

TIMEOUT = 10


@pytest.mark.parametrize(("peer", "address"), [
    ("ipv4:127.0.0.1:5678", ("127.0.0.1", 5678)),
    ("ipv6:[::1]:5678", ("::1", 5678)),
    ("ipv6:%5B::1%5D:5678", ("::1", 5678)),
    ("ipv6:[::ffff:10.0.0.2]:80", ("10.0.0.2", 80)),  # a dual-stack socket's view of an IPv4 peer
    ("unix:/tmp/socket", None),
    ("ipv4:not-an-address:1", None),
])
def test_a_peer_is_read_as_grpc_names_it(peer: str, address: tuple[str, int] | None) -> None:
    expected = None if address is None else (ipaddress.ip_address(address[0]), address[1])
    assert peer_address(peer) == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="hang_up reads /proc/self/fd")
async def test_only_the_accepted_connection_of_that_peer_is_hung_up() -> None:
    accepted: dict[int, asyncio.StreamReader] = {}  # by the client's port

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted[writer.get_extra_info("peername")[1]] = reader

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        _, other_writer = await asyncio.open_connection("127.0.0.1", port)
        local = writer.get_extra_info("sockname")
        async with asyncio.timeout(TIMEOUT):
            while len(accepted) < 2:
                await asyncio.sleep(0.01)  # the server's accept callbacks run
        assert not hang_up(f"ipv4:127.0.0.1:{port}"), "a client socket of this process is not hung up"
        assert not hang_up("ipv4:127.0.0.1:1"), "nobody there"
        assert hang_up(f"ipv4:{local[0]}:{local[1]}")
        assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""  # the client sees its connection end
        other_writer.write(b"still here")
        await other_writer.drain()
        other = accepted[other_writer.get_extra_info("sockname")[1]]
        assert await asyncio.wait_for(other.readexactly(10), TIMEOUT) == b"still here"
        for opened in (writer, other_writer):
            opened.close()
    finally:
        server.close()
        await server.wait_closed()
