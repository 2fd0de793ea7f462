"""Processor time, for the few tests that guard against a quadratic algorithm coming back.
They count CPU seconds (of this thread, and of the commands it waited for), which a loaded
machine does not inflate as it does wall time; how fast something is belongs in benchmarks/."""

import resource
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.thread_time() + children.ru_utime + children.ru_stime


def cpu_timed(call: Callable[[], T]) -> tuple[T, float]:
    """What `call()` returned and the CPU seconds it took, its child processes' included."""
    start = cpu_seconds()
    result = call()
    return result, cpu_seconds() - start
