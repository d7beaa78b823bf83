"""``python -m unonet.bots``: the same as ``unonet bot play`` (see `unonet.bots.cli`).

The host's bot workers run it too (``--address --table --seat --kind``, the token in UNONET_TOKEN).
"""

from __future__ import annotations

import sys

from unonet.bots.cli import build_parser, main, play

__all__ = ["build_parser", "main", "play"]

if __name__ == "__main__":
    sys.exit(main(prog="python -m unonet.bots"))
