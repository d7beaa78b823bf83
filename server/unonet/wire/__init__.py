"""unonet.wire: the one place that knows both engine objects and protobuf messages (STYLE.md).

The host renders engine events, views and legal actions through it and reads requests as engine
actions (`convert`); a bot that simulates reads its seat's views and events back into an engine position
and the constraints on the cards it cannot see (`knowledge`). It imports `unonet.engine` and the
generated `unonet.v1`, never the host, the client or the bots, so both sides share it.
"""
