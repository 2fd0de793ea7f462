"""The session index (docs/architecture.md, spec 003): one row per session in
`<git-common-dir>/teddy/index.toon`, so that `git teddy list` and `git teddy stats` answer
from one file instead of reading every session's `session.md`.

The file is TOON (toon-format) and derived state: never pushed, rebuilt from refs at will.

    format: teddy-index/2
    prefix: teddy/
    generation: 7
    sessions[2]{id,status,started,...,tips,gen}:
      20261126-auth,active,"2026-11-26T12:00:00+00:00",...,main=4f2c...,7
      ...
    agents[3]{session,agent,turns,executed,failures,tokens,cost}:
      20261126-auth,pathfinder@1.0,2,2,1,1200,0.0045
      ...

Freshness: each query lists the session refs (one `git for-each-ref`) and compares every
session's branch tips with the `tips` its row was built from. Only sessions whose tips moved,
that appeared or vanished (or whose current branch changed) are read again, and the file is
rewritten atomically. `generation` counts rewrites; a row's `gen` is the generation that last
read its session. A file that does not read back (corrupt, another format) is rebuilt.

The modules, pure core first and I/O at the edges:

    rows       SessionRow, AgentRow, SessionIndex: what the file holds
    toontable  the tables read back, column by column
    toonfile   the file: decode, encode, load, save (atomically)
    stale      which sessions to read again
    build      rows from session logs, and the next generation of the index
    query      select and totals, for list and stats
    views      what list and stats print
    read       sessions read from git (only those that changed, together in three git
               processes however many they are)
    refresh    the entry point: refresh(), the index brought up to date

A warm query must stay well under a second over 10,000 sessions, so nothing heavy is imported
at load time: the TOON writer, the session log's pydantic models, yaml and dulwich are
imported only when a session has to be read or the file written. This package imports none
of its modules: callers import the ones they use. The agents table is decoded only by
queries that need it (`stats --group-by agent`) and by updates.
"""
