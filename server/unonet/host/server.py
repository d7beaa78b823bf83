"""Building and running a host server: grpc.aio, health checking, reflection, optional TLS, SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from unonet.host.announce import Announcer, announcer_for
from unonet.host.host import DEFAULT_KEEP_FINISHED_S, Host
from unonet.host.limits import Limits
from unonet.host.pace import INSTANT, Pace
from unonet.host.reflection import enable_server_reflection
from unonet.host.service import add_services
from unonet.host.store import SERVE_SYNCHRONOUS, SqliteStore, Store
from unonet.host.threads import HelperThreads
from unonet.host.undecodable import Registering

log = logging.getLogger(__name__)
# What the transport accepts: well above the 64 KiB the handlers allow (service.MAX_REQUEST_BYTES),
# so an oversized request reaches them and is refused with its reason, MESSAGE_TOO_LARGE; only one
# beyond this gets the library's bare RESOURCE_EXHAUSTED.
MAX_TRANSPORT_MESSAGE_BYTES = 4 * 1024 * 1024


async def create_server(
    address: str = "127.0.0.1:0",
    *,
    host: Host | None = None,
    tls: tuple[bytes, bytes] | None = None,
) -> tuple[grpc.aio.Server, int, Host]:
    """A started-ready server bound to `address` (port 0 picks a free port); returns (server, port, host).

    The caller awaits `server.start()`. Requests over 64 KiB are refused with RESOURCE_EXHAUSTED
    (reason MESSAGE_TOO_LARGE).
    """
    host = host if host is not None else Host()
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_TRANSPORT_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    names = add_services(server, host)
    health_servicer = health.aio.HealthServicer()
    # Registered as ours are: unparsable request bytes get INVALID_ARGUMENT, not UNKNOWN and a traceback.
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, Registering(server))  # type: ignore[arg-type]
    for name in [*names, ""]:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    enable_server_reflection([*names, health.SERVICE_NAME], server)  # v1 and v1alpha
    if tls is not None:
        credentials = grpc.ssl_server_credentials([(tls[1], tls[0])])
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    if tls is None:  # bot worker processes reach the host over loopback (bot_workers.py)
        bound = address.rpartition(":")[0]
        near = bound if bound not in ("", "0.0.0.0", "[::]", "localhost") else "127.0.0.1"
        host.workers.address = f"{near}:{port}"
    return server, port, host


GC_YOUNG_THRESHOLD = 3_000
# Allocations between two full collections, the same as the thresholds before (10,000, 10, 10).
GC_FULL_EVERY = 1_000_000


def gc_thresholds(young: int = GC_YOUNG_THRESHOLD) -> tuple[int, int, int]:
    """`gc.set_threshold`'s three for a young threshold of `young`: ten young collections a middle one,
    and as many middle ones a full one as keep `GC_FULL_EVERY` allocations between full collections."""
    return young, 10, max(10, round(GC_FULL_EVERY / (young * 10)))


def tune_garbage_collector() -> None:
    """For a long-running host: what exists after start-up (modules, restored tables) is frozen out of
    every later collection, and the youngest generation is collected every 3,000 allocations rather
    than 700, so that a command's short-lived objects mostly die before a collection looks at them.

    The threshold trades CPU against pauses, each a stall of every table; measured with the collector's
    own callbacks (bench/README.md, "Garbage collection"). Against 10,000: the middle generation's
    pauses 3 times shorter (on bench/host.py's fresh hosts the longest 26-28 -> 7-9 ms; in process at
    100 tables with full windows a mean of 47 -> 16 ms), for 0.4% (host flat out) to 1.1% (in process)
    more of the host's CPU. A full collection walks everything the host keeps, whatever the threshold
    (~0.3 s for 100 tables with full windows), so the oldest threshold keeps them as rare as before: a
    smaller young threshold alone made them 3 times as frequent."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*gc_thresholds())


async def announce_or_warn(announcer: Announcer) -> Announcer | None:
    """Start the LAN announcement; a host that cannot announce still serves (it is dialled by address)."""
    try:
        await announcer.start()
    except Exception as error:  # OSError (no multicast here) or zeroconf's refusal: say so, keep serving
        log.warning("cannot announce on the LAN: %s", error)
        print(f"not announced on the LAN ({error}); clients dial the address", flush=True)
        return None
    print(f"announced on the LAN as {announcer.instance!r} at {', '.join(announcer.addresses)}", flush=True)
    return announcer


async def serve(address: str, db: str | None, *, tls_cert: str | None = None, tls_key: str | None = None,
                pace: Pace = INSTANT, fair_shuffle: bool = True,
                keep_finished_s: float = DEFAULT_KEEP_FINISHED_S,
                commit_interval_s: float | None = None, batch_helper_threads: bool = True,
                announce_as: str | None = None, limits: Limits | None = None,
                synchronous: str = SERVE_SYNCHRONOUS, accept_lost_marks: bool = False) -> None:
    """Run a host until SIGTERM or SIGINT, then shut down gracefully (in-flight calls get a grace period).

    `pace`: how fast host bots act at a table with a person (pace.py).
    `fair_shuffle` off: tables created by this run deal without commitments (restored ones keep theirs).
    `batch_helper_threads`: gRPC's threads may not preempt the event loop's (threads.py; Linux).
    `announce_as`: publish the host on the LAN under that name (announce.py) while it serves, and
    withdraw it before shutting down. `limits`: the host's limits on load (limits.py; None: the defaults).
    `synchronous`: SQLite's, FULL (an acknowledged input survives a power loss) or NORMAL (a process kill).
    `accept_lost_marks`: serve the tables whose sent marks were lost (SqliteStore) instead of quarantining them.
    The host's bot worker processes share its stderr: their warnings come beside its own log lines."""
    stop = asyncio.Event()  # the handlers come first: a SIGTERM right after "listening" must stop us cleanly
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    # Group commits paced by load (commit_pacing.py) unless `commit_interval_s` fixes their least interval.
    store: Store = SqliteStore(db or "unonet.db", commit_interval_s=commit_interval_s, synchronous=synchronous,
                               accept_lost_marks=accept_lost_marks)
    host = Host(store, pace=pace, fair_shuffle=fair_shuffle, keep_finished_s=keep_finished_s,
                limits=limits)
    restored = host.restore()
    tune_garbage_collector()
    tls = (Path(tls_cert).read_bytes(), Path(tls_key).read_bytes()) if tls_cert and tls_key else None
    server, port, _ = await create_server(address, host=host, tls=tls)
    await server.start()
    helpers = HelperThreads()
    if batch_helper_threads:
        helpers.start()
    host.start_drivers()
    bound = address.rsplit(":", 1)[0]
    print(f"unonet host listening on {bound}:{port} ({restored} tables restored)", flush=True)
    announcer = None
    if announce_as is not None:
        announcer = await announce_or_warn(announcer_for(bound, port, announce_as, host, tls=tls is not None))
    await stop.wait()
    log.info("shutting down")
    if announcer is not None:
        await announcer.stop()
    helpers.stop()
    # The shutdown order: the bot workers (while the host still answers them: none sees it vanish
    # mid-move), serving, the host's readers, then the store.
    await host.stop_bot_workers()
    await server.stop(grace=5)
    await host.stop()
    store.close()
