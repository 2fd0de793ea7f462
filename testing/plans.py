"""Plan text (spec 004) built from actions, as a model would reply it."""

RATIONALE = """## Rationale
````text
### 1. Synthesis
Synthesis.
### 2. Justification
Justification.
### 3. Expected Outcome
Outcome.
### 4. State Dashboard
- Task: in progress
````
"""
CONCLUDE = "### `CONCLUDE`\nAll done.\n"
INVOKE = "### `INVOKE`\n- **Agent:** Dev\n\nWrite the file.\n"


def plan_text(*actions: str, memos: str = "", agent: str = "Dev") -> str:
    """A plan by `agent` (its `**Agent:**` header: the agent planning the turn)."""
    memo_block = f"## Memos\n````\n{memos}\n````\n\n" if memos else ""
    head = f"# A plan\n- **Agent:** {agent}\n\n{RATIONALE}\n{memo_block}## Action Plan\n\n"
    return head + "\n".join(actions)


def create(path: str, content: str) -> str:
    head = f"### `CREATE`\n- **File Path:** [{path}](/{path})\n- **Description:** New file.\n"
    return f"{head}````\n{content}````\n"


def edit(path: str, find: str, replace: str) -> str:
    return (
        f"### `EDIT`\n- **File Path:** [{path}](/{path})\n- **Description:** Change it.\n\n"
        f"`FIND:`\n````\n{find}\n````\n`REPLACE:`\n````\n{replace}\n````\n"
    )


def execute(command: str) -> str:
    head = "### `EXECUTE`\n- **Description:** Run.\n- **Expected Outcome:** Works.\n"
    return f"{head}````shell\n{command}\n````\n"


# A no-op EXECUTE: a plan with one runs in a pooled scratch worktree (a plan without runs on
# the files it names alone), for the tests of the worktrees themselves.
WORKTREE = execute("true")


def read(path: str) -> str:
    return f"### `READ`\n- **Resource:** [{path}](/{path})\n- **Description:** Look.\n"
