"""Hanging up a client's connection: the end a stream cut off gets when its status cannot reach the client.

A stream the host cuts off (too slow: fanout.py, service.py) ends with RESOURCE_EXHAUSTED /
SUBSCRIBER_TOO_SLOW. gRPC sends that status only after every message already handed to it, so a client
that stops reading (its HTTP/2 flow-control window stays shut, on a connection that is otherwise
healthy) would never see the status nor any end: the stream would stay open on its side until the host
shut down. The right end for it is an HTTP/2 reset of that stream, but grpcio's asyncio server offers
no way to cancel one call (`ServicerContext` has no `cancel`; core cancels a call only at the server's
shutdown). What the host can do is end the connection under the stream: it shuts down the TCP socket
grpc accepted for that peer, found among this process's open file descriptors by its two ends (a local
port this process listens on, and the peer `ServicerContext.peer()` names). grpc then sees the
connection close and ends its calls; the client sees its stream fail (UNAVAILABLE) and resumes from its
last event number, as after any broken connection. Any other call it had on that connection ends too:
commands are retried with their command ids, streams resume.

Linux only (it reads /proc/self/fd); elsewhere `hang_up` finds nothing and returns False, and the stream
ends when the client reads again.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from urllib.parse import unquote

__all__ = ["hang_up", "peer_address"]

_FDS = "/proc/self/fd"
Address = tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]


def peer_address(peer: str) -> Address | None:
    """The (address, port) of a peer as grpc names it ("ipv4:10.0.0.2:5678", "ipv6:[::1]:5678", the
    brackets perhaps percent-encoded); None for any other kind (a Unix socket)."""
    kind, _, rest = unquote(peer).partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    host, _, port = rest.rpartition(":")
    try:
        return _plain(ipaddress.ip_address(host.strip("[]"))), int(port)
    except ValueError:
        return None


def _plain(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An IPv4-mapped IPv6 address (a dual-stack socket's view of an IPv4 peer) as the IPv4 address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _ends(sock: socket.socket) -> tuple[Address, Address, bool] | None:
    """(local end, remote end, listening) of a TCP socket; None for any other file or an unconnected one."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        return None
    listening = bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
    local = sock.getsockname()
    try:
        remote = sock.getpeername()
    except OSError:  # not connected: a listening socket has no peer
        remote = ("0.0.0.0", 0)
    return ((_plain(ipaddress.ip_address(local[0])), local[1]),
            (_plain(ipaddress.ip_address(remote[0])), remote[1]), listening)


def hang_up(peer: str) -> bool:
    """Shut down this process's TCP connection to `peer` (a grpc peer string) that came in on a port it
    listens on. Returns whether one was found. Never raises for a file it cannot read."""
    wanted = peer_address(peer)
    if wanted is None or not os.path.isdir(_FDS):
        return False
    listening: set[int] = set()
    accepted: list[tuple[socket.socket, int]] = []
    for name in os.listdir(_FDS):
        try:
            sock = socket.socket(fileno=os.dup(int(name)))  # a copy: closing it leaves grpc's descriptor open
        except (OSError, ValueError):
            continue  # not a socket, or closed meanwhile
        try:
            ends = _ends(sock)
        except OSError:
            ends = None
        if ends is not None and ends[2]:
            listening.add(ends[0][1])
        if ends is not None and ends[1] == wanted:
            accepted.append((sock, ends[0][1]))
            continue
        sock.close()
    found = False
    for sock, port in accepted:
        if port in listening and not found:
            with contextlib.suppress(OSError):  # already closing: the same end
                sock.shutdown(socket.SHUT_RDWR)
            found = True
        sock.close()
    return found
