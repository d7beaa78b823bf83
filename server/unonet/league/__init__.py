"""unonet.league: bot-vs-bot leagues with multiplayer ratings, duplicate deals and crash-safe results.

A league is stages that hand data on (STYLE.md): `config` reads the league file, `schedule` lists the
games (which deal, which seats), `inprocess` plays them (trusted Python bots straight on the engine),
`results` records one row per finished game in SQLite, idempotent by game id, and `standings` and
`report` rate and report, pure functions of the recorded rows. `runner` ties them together for
`unonet league run` (`docs/leagues.md`).
"""
