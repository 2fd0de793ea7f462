"""The session log of spec 003: `session.md` as data (model), as Markdown (render, parse),
and built from a session's turns (build)."""
