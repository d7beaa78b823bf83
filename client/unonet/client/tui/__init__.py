"""The terminal client: `unonet play` (a host's lobby, or a table) on a full-screen prompt-toolkit screen.

- `model.GameModel`: the view model, a pure function of what the seat received;
- `controller.Controller`: the one key map (keys to commands or hints, no I/O);
- `render`: every region of the screen as formatted text, from the model;
- `screen.GameScreen`: the layout and bindings around them; anything that feeds a `GameModel` (a live
  seat, a replayed log) can show it;
- `session.Session`: a live seat behind the screen (events, reconnects, pings, entropy, commands);
- `lobby`, `seats`, `play`: the lobby, the saved seat tokens and the command's entry.

It speaks to the host through `unonet.client.TableClient` only, never `unonet.host`.
"""
