"""`unonet demo`: an embedded host, a table of bots, and a spectator narrating the match over gRPC."""

from __future__ import annotations

import asyncio

import grpc

from unonet.client.narrate import describe
from unonet.client.verify import Verifier
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import (
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    rules_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)


async def run_demo(*, players: int = 4, preset: str = "standard", target_score: int = 200, seed: int | None = None,
                   quiet: bool = False) -> list[int]:
    """Play one bots-only match; print the narration; return the winners' seats."""
    server, port, host = await create_server("127.0.0.1:0", host=Host())
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
            watch = watch_service_pb2_grpc.WatchServiceStub(channel)
            created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
                name="demo", preset=preset, seat_count=players, manual_start=True,
                overrides=rules_pb2.Ruleset(target_score=target_score)), timeout=10)
            table_id = created.table.table_id
            spectator = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table_id, name="narrator", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR), timeout=10)
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=spectator.token))
            await lobby.StartTable(lobby_service_pb2.StartTableRequest(
                table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=10)
            names = [f"bot-{i}" for i in range(players)]
            verifier = Verifier(table_id)  # the narrator checks the host's fairness as any client can
            async for response in stream:
                event = response.event
                verifier.feed(event)
                line = describe(event, names)
                kind = event.WhichOneof("payload")
                if kind == "shuffle_revealed":
                    checks = sum(verifier.checks.values())
                    line = f"shuffle of round {event.shuffle_revealed.round_number} verified ({checks} checks so far)"
                if line and not quiet:
                    print(f"{event.number:5d}  {line}")
                if kind == "match_ended":
                    verifier.finish()
                    return list(event.match_ended.winner_seats)
    finally:
        await host.stop()
        await server.stop(grace=None)
    return []


def main(players: int, preset: str, target_score: int) -> int:
    winners = asyncio.run(run_demo(players=players, preset=preset, target_score=target_score))
    return 0 if winners else 1
