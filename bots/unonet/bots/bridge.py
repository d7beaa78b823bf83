"""`ExecBot`: a bot that is any program speaking JSON lines on stdin and stdout (`unonet bot play --exec`).

The runner (`BotRunner`) still does everything with the network, the shuffle and the clock; the program
only chooses. For every decision it gets one line, a JSON object (docs/bots.md, "The JSON-lines bridge"):

    {"required":true,"kind":"decide","seat":1,"time_left_ms":9850,
     "view":{...SeatView...},"event":{...Event...},"actions":[{"rpc":"PlayCards","request":{...}}, ...]}

- `required`: true when the game waits for this seat (a turn, a colour, a target, a slap to answer);
  false for an optional reaction (a jump-in, a catch, an early UNO call). It always comes first, so a
  shell script can tell the two apart with one pattern.
- `kind`: "decide" or "react", the same distinction in words.
- `view` and `event`: the seat's view and the event that prompted the decision (null after a view
  read) in proto3 JSON (google.protobuf.json_format, field names as in the .proto files, enums by
  name, 64-bit numbers as strings).
- `actions`: every legal command, numbered from 0 in the order `unonet.bots.actions.enumerate_actions`
  documents, each as ``{"rpc": NAME, "request": {...}}``.
- `time_left_ms`: the milliseconds left to answer, or null without a clock.

It answers with one line: the index of an action (``0``), a command as ``{"rpc": ..., "request": ...}``
(proto3 JSON; table, token and command id are filled in), or ``null`` to let an optional chance go (for
a required decision, null means the safe default: Draw, else Pass). Answers are taken in order, one per
line received; an answer that comes after its decision's deadline, or after newer legal actions
overtook its question, is read and dropped. A line that is none of these is garbage, whichever
question it answers: logged once, and never sent (`BadAnswer`); the runner then treats the decision as
any it got wrong (nothing sent, the table's clock decides; the safe default at a table without one).
When the program exits or closes its stdout the seat is lost to it (`BotGone`: `unonet bot play` exits
1). At the match's end its stdin is closed.

The program runs in a session of its own (`unonet.bots.sessions`): a Ctrl-C at the terminal reaches its
supervisor, not it, and `close` ends it and everything it started: its stdin is closed, then after a
grace its process group gets SIGTERM, and after another its whole session SIGKILL.

A seed, when the runner has one for the seat (a league game: the bot's seed for that game), is in the
program's environment as UNONET_SEED, by the launch convention (`unonet.bots.launch.ENV_SEED`): a
program that seeds its own generator with it makes the same choices on a rerun. No line of the
protocol carries it, so programs written before it still work unchanged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from google.protobuf import json_format
from google.protobuf.message import Message

from unonet.bots.actions import BadCommand, command_from_json, command_to_json, enumerate_actions
from unonet.bots.faults import BadAnswer, BotGone, Fault, FaultKind
from unonet.bots.launch import seed_env
from unonet.bots.policy import Bot, BotState
from unonet.bots.sessions import exited, stop_session
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["ExecBot", "question"]

log = logging.getLogger(__name__)

# The longest answer line taken (an answer is an index or one command: a few hundred bytes).
_ANSWER_LIMIT = 64 * 1024


def _json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def question(
    view: views_pb2.SeatView,
    legal: actions_pb2.LegalActions,
    state: BotState,
    *,
    required: bool,
    actions: Sequence[cmd.Command],
) -> str:
    """The line a program gets for one decision (no newline), as the module describes it."""
    body: dict[str, Any] = {
        "required": required,
        "kind": "decide" if required else "react",
        "seat": state.seat,
        "time_left_ms": None if state.time_left is None else round(state.time_left * 1000),
        "view": _json(view),
        "event": None if state.prompt is None else _json(state.prompt),
        "actions": [command_to_json(action) for action in actions],
    }
    body["view"]["legal_actions"] = _json(legal)  # the ones this question is about
    return json.dumps(body, separators=(",", ":"))


def parse_answer(line: bytes, actions: Sequence[cmd.Command]) -> cmd.Command | None:
    """The command one answer line names. Raises BadAnswer for anything but an index, a command or null."""
    text = line.decode("utf-8", "replace").strip()
    try:
        value = json.loads(text)
    except ValueError:
        raise BadAnswer(f"not JSON: {text[:200]!r}") from None
    if value is None:
        return None
    if isinstance(value, bool):
        raise BadAnswer(f"not an index, a command or null: {text[:200]!r}")
    if isinstance(value, int):
        if not 0 <= value < len(actions):
            raise BadAnswer(f"index {value} is outside the {len(actions)} legal actions")
        return actions[value]
    try:
        return command_from_json(value)
    except BadCommand as error:
        raise BadAnswer(str(error)) from None


class ExecBot(Bot):
    """A policy run as a child process that speaks the JSON-lines protocol (see the module).

    Use it as ``async with ExecBot(["./my-bot", "--flag"]) as bot: await BotRunner(bot).run(...)``:
    the program starts on entry and is stopped on exit (`close`: stdin closed, then SIGTERM, then SIGKILL
    to its whole session, so a program that ignores both still ends, and so does whatever it started). `env` is its
    environment (default: ours); with a `seed` it has UNONET_SEED set to it (see the module).
    Raises ValueError for no program or a seed outside 0 .. 2**64 - 1.
    """

    kind = "exec"

    def __init__(
        self, argv: Sequence[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
        seed: int | None = None,
    ) -> None:
        if not argv:
            raise ValueError("the program to run is missing")
        self.argv = list(argv)
        self.cwd = cwd
        self.env = seed_env(seed, env)
        self.process: asyncio.subprocess.Process | None = None
        # The questions whose answers are still to come though the runner no longer waits for them (their
        # deadline passed, or newer legal actions overtook them): each one's event number and actions.
        self._owed: list[tuple[int, list[cmd.Command]]] = []
        self._lock = asyncio.Lock()
        #: Garbage among the answers dropped (`_drop`): faults the runner never saw, kept here.
        self.dropped_faults: list[Fault] = []

    async def start(self) -> None:
        """Start the program in a session of its own (its stderr goes where ours goes)."""
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            limit=_ANSWER_LIMIT,
            start_new_session=True,
        )

    async def close(self, grace: float = 2.0) -> int | None:
        """Close its stdin and give it `grace` seconds to exit; then SIGTERM its process group and, after
        `sessions.TERM_GRACE_S`, SIGKILL every process left in its session (also when it exited by itself
        but left children behind). Returns its exit status."""
        process = self.process
        if process is None:
            return None
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        await exited(process, grace)
        return await stop_session(process)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        raise TypeError("ExecBot decides asynchronously: the runner awaits decide_async")

    async def decide_async(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        return await self._ask(view, view.legal_actions, state, required=True)

    async def respond_async(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        view = views_pb2.SeatView(seat=state.seat) if state.view is None else state.view
        return await self._ask(view, legal, state, required=False)

    def on_match_end(self, ended: events_pb2.MatchEnded, state: BotState) -> None:
        """The match is over: the program's stdin is closed, so it can exit."""
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()

    async def _ask(
        self, view: views_pb2.SeatView, legal: actions_pb2.LegalActions, state: BotState, *, required: bool
    ) -> cmd.Command | None:
        process = self.process
        if process is None or process.stdin is None or process.stdout is None:
            raise BotGone("the program was not started")
        actions = enumerate_actions(legal, len(view.hand))
        line = question(view, legal, state, required=required, actions=actions)
        async with self._lock:
            try:
                process.stdin.write(line.encode() + b"\n")
                await process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as error:
                raise BotGone(f"the program closed its input ({error}); {await self._status()}") from None
            try:
                while self._owed:
                    self._drop(await self._read_line(process))
                answer = await self._read_line(process)
            except asyncio.CancelledError:
                # Its answer, when it comes, is for this question: read, checked and dropped.
                self._owed.append((view.event_number, actions))
                raise
        return parse_answer(answer, actions)

    def _drop(self, line: bytes) -> None:
        """The answer to a question the runner no longer waits for: dropped, and logged when it is not
        an answer at all (garbage is a fault wherever it comes; a late or overtaken answer is not)."""
        number, actions = self._owed.pop(0)
        try:
            parse_answer(line, actions)
        except BadAnswer as error:
            self.dropped_faults.append(Fault(FaultKind.GARBAGE, number, f"{error} (an answer dropped)", False))
            log.error("garbage answer to the question of event %d, which the table had overtaken: %s; dropped",
                      number, error)
            return
        log.debug("dropped the answer to the overtaken or late question of event %d: %r", number, line[:200])

    async def _read_line(self, process: asyncio.subprocess.Process) -> bytes:
        assert process.stdout is not None
        try:
            line = await process.stdout.readline()
        except ValueError:  # longer than the limit
            raise BadAnswer(f"an answer longer than {_ANSWER_LIMIT} bytes") from None
        if not line:
            raise BotGone(f"the program closed its output; {await self._status()}")
        return line

    async def _status(self) -> str:
        assert self.process is not None
        code = await exited(self.process, 1.0)  # not wait(): a child it left may hold its pipes
        return "it is still running" if code is None else f"it exited with status {code}"
