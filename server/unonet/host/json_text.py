"""JSON text as the store keeps it: the journal's entries and the command book's requests, two a command.

The very text `json.dumps` writes, from one encoder made once and without its check for circular
references (the host's values are trees of dicts, lists and scalars): half the time of `json.dumps`
for a journal entry (1.6-2.4 us against 3.2-4.5), which checks every container it enters.
"""

from __future__ import annotations

import json

dumps = json.JSONEncoder(check_circular=False).encode
