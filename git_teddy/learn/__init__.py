"""`git teddy learn`: a session's failures and user corrections as training cases (spec 003)."""
