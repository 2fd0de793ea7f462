"""Named fault points for the fault suite: with `TEDDY_TEST_KILL_AT=<step>` in the
environment, the process kills itself (SIGKILL, as `kill -9` would) when it reaches that
step, so a test can check what an interrupted command leaves behind and what the next one
makes of it. Unset (always, outside tests), `reached` only reads one environment variable."""

import os
import signal

KILL_AT = "TEDDY_TEST_KILL_AT"


def reached(step: str) -> None:
    """Mark `step` (e.g. `execute.applied`); die here if the fault suite asked to."""
    if os.environ.get(KILL_AT) == step:
        os.kill(os.getpid(), signal.SIGKILL)
