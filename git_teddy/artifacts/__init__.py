"""The formats a session stores (layer 0, pure): plan, report, turn record, session log,
the session folder's file names, trailers, names. They import nothing above them."""
