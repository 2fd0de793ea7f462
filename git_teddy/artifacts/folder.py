"""The session folder's layout: the names of the files a session branch's tree holds, for
the session and for each turn (docs/architecture.md, "The git mapping")."""

# Bytes of a session file read whole (a teammate's may be any size): more is read cut, shown
# with cut_note's mark, and never parsed.
SESSION_FILE_LIMIT = 8 * 1024 * 1024

SESSION_LOG = "session.md"
SESSION_CONTEXT = "session.context"
STEERING = "steering.yaml"  # the user's steering of the branch (artifacts/sessionlog/steering.py)
SUBAGENTS_DIR = "subagents"  # subagents/<id>.md: an INVOKEd agent's own log

# In each turn's folder (`01/`, `02-branch-01/`...):
TURN_RECORD = "turn.yaml"
PLAN = "plan.md"
REPORT = "report.md"
USER_PROMPT = "user_prompt.txt"
SYSTEM_PROMPT = "system_prompt.xml"
TURN_CONTEXT = "turn.context"
CONTEXT_LOG = "_context.log"  # exactly what the model received
ATTEMPTS_DIR = "attempts"  # replies that failed validation, and their problems


def cut_note(size: int, shown: int) -> str:
    """The mark closing a file shown cut."""
    return f"\n[... cut: the file holds {size} bytes, {shown} shown (git-teddy's limit)]\n"
