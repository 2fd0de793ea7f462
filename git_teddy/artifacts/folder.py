"""The session folder's layout: the names of the files a session branch's tree holds, for
the session and for each turn (docs/architecture.md, "The git mapping")."""

SESSION_LOG = "session.md"
SESSION_CONTEXT = "session.context"
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
