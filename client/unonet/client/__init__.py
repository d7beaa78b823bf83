"""The Python client SDK for unonet: what the terminal client, every bot and any Python program use.

- `TableClient` (`unonet.client.table_client`): a typed asyncio client for one seat or spectator
  place, with deadlines, resuming event streams and idempotent command retries;
- `unonet.client.commands`: the commands a seat can send, as small frozen values;
- `unonet.client.errors`: every refusal as a typed exception (`UnonetError` and its subclasses);
- `Verifier` (`unonet.client.verify`), `unonet.client.audit` and `unonet.client.narrate`: checking
  the host's fairness from the events a seat receives, auditing a finished game's log, and telling
  events as text.

It needs only the generated protocol code (`unonet.v1`) and `unonet.fairness`, never `unonet.host`
or `unonet.engine`.
"""

from __future__ import annotations

from unonet.client import commands
from unonet.client.errors import (
    AlreadyExists,
    Cancelled,
    DataLoss,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    NotYourTurnError,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
    Unimplemented,
    UnonetError,
    from_rpc_error,
)
from unonet.client.table_client import CreatedTable, JoinedSeat, PingResult, TableClient
from unonet.client.verify import Verifier

__all__ = [
    "AlreadyExists",
    "Cancelled",
    "CreatedTable",
    "DataLoss",
    "DeadlineExceeded",
    "FailedPrecondition",
    "InvalidArgument",
    "JoinedSeat",
    "NotFound",
    "NotYourTurnError",
    "PermissionDenied",
    "PingResult",
    "ResourceExhausted",
    "TableClient",
    "Unavailable",
    "Unimplemented",
    "UnonetError",
    "Verifier",
    "commands",
    "from_rpc_error",
]
