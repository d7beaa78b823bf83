"""A table's event streams: each stream's bounded queue, and handing it the events once they are durable.

The table numbers its events as it records them; nothing may leave the host before the input behind
an event is on disk, so `FanOut.publish` holds the numbers until the store says the group commit
holding them is durable, then offers all of that commit's numbers to every stream at once (one
wake-up per stream per commit). A stream too slow to take them is cut off (memory stays flat) and
resumes from its last number.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from unonet.host.store import Store

SUBSCRIBER_QUEUE = 2048


class Mailbox:
    """A stream's bounded queue of event numbers, with one writer (the table) and one reader (the stream).

    Every event goes through one of these per subscriber, so it is leaner than an asyncio.Queue: a
    command's events go in with one `extend`, the reader takes all that waits at once, and a future
    exists only while the reader is waiting.
    """

    __slots__ = ("_items", "_limit", "_waiter")

    def __init__(self, limit: int) -> None:
        self._items: collections.deque[int] = collections.deque()
        self._limit = limit
        self._waiter: asyncio.Future[None] | None = None

    def put(self, numbers: Sequence[int]) -> bool:
        """Queue the numbers and wake the reader; False (nothing queued) if they would overflow it."""
        if len(self._items) + len(numbers) > self._limit:
            return False
        self._items.extend(numbers)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # (a reader cancelled while it waited cancelled its future)
                waiter.set_result(None)
        return True

    def wait(self) -> asyncio.Future[None] | None:
        """A future done once something is queued; None if something already is. A future, not a
        coroutine: the reader awaits it directly, one frame fewer to resume each time a commit wakes
        every stream of every table it holds."""
        if self._items:
            return None
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter

    def take(self) -> list[int]:
        """Everything queued, oldest first."""
        items = list(self._items)
        self._items.clear()
        return items

    def qsize(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()


@dataclass
class Subscriber:
    """One WatchEvents stream. Its queue is bounded: a reader that falls too far behind is cut off."""

    seat: int | None
    # The first event number the table hands to `queue`: the stream reads the ones before it from
    # the log (its backlog), so none comes twice.
    first_queued: int = 1
    queue: Mailbox = field(default_factory=lambda: Mailbox(SUBSCRIBER_QUEUE))
    overflowed: bool = False
    store_failed: bool = False  # the store could not write the inputs behind the events it waits for
    task: asyncio.Task[Any] | None = None
    # The event loop time at which the stream's pending write began, 0.0 when none is pending: a single
    # watchdog (WatchService) cuts off a stream whose write stays pending too long, with no timer per write.
    writing_since: float = 0.0


class FanOut:
    """The streams of one table, and the events it hands them once their inputs are durable.

    `on_cut` is how the table forgets a stream this cuts off (its seat's connection count): the
    table owns its seats, the fan-out only its streams.
    """

    def __init__(self, store: Store, on_cut: Callable[[Subscriber], None]) -> None:
        self.subscribers: list[Subscriber] = []
        self._store = store
        self._on_cut = on_cut

    def add(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)

    def remove(self, subscriber: Subscriber) -> bool:
        """Forget a stream; False if it was already gone."""
        if subscriber not in self.subscribers:
            return False
        self.subscribers.remove(subscriber)
        return True

    def publish(self, numbers: Sequence[int]) -> None:
        """Hand one input's events to every stream once that input is durable: each waits for the group
        commit holding its own input. (An input recorded while the group before it is being committed
        joins the next group; its events once rode on the earlier group's callback and left when that
        group committed, before their own, which could still fail or die with the host: a number that
        left and was then reused.) A stream still wakes once per group commit, however many inputs
        the group holds, and no stream task waits on the store itself."""
        if numbers:
            batch = list(numbers)
            self._store.when_durable(lambda durable: self._deliver(batch, durable))

    def _deliver(self, numbers: list[int], durable: bool) -> None:
        for subscriber in list(self.subscribers):
            if not durable:  # the store failed: these events may never leave, so the stream ends
                self.cut_off(subscriber, store_failed=True)
                continue
            mine = numbers
            if numbers[0] < subscriber.first_queued:  # it subscribed after some of them: its backlog
                mine = [number for number in numbers if number >= subscriber.first_queued]
            if mine and not subscriber.queue.put(mine):
                self.cut_off(subscriber)

    def cut_off(self, subscriber: Subscriber, *, store_failed: bool = False) -> None:
        """End a stream and drop its queue (memory stays flat): a reader too slow to keep up, or, with
        `store_failed`, one waiting for events whose inputs the store could not write."""
        if store_failed:
            subscriber.store_failed = True
        else:
            subscriber.overflowed = True
        self._on_cut(subscriber)
        subscriber.queue.clear()
        if subscriber.task is None:
            return
        if store_failed and subscriber.writing_since:
            # A write in flight is let finish: cancelled, it would end the call in gRPC's core, where
            # no status (STORE_FAILED) can follow. The stream ends after it (`WatchService._write`);
            # a write that never finishes is cut off by the write watchdog, as any other.
            return
        subscriber.task.cancel()
