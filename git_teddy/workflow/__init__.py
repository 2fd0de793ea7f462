"""Workflows from session logs (spec 003, docs/workflows.md): the markup as data and its
renderer (model), its parser and validator (markup, with a step's fields in fields), the
extract of a session log (extract), and the messages that ask a model to refine an extract
(refine)."""
