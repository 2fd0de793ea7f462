"""Benchmark: secret redaction throughput, and whether it grows linearly with the text.

For normal text (seeded code, log and prose lines with a few secrets) and for adversarial
texts (long runs that would make a backtracking pattern quadratic), prints MB/s of
`redact` at 1, 4 and 16 MB and the time ratio between consecutive sizes: linear is about 4x
per 4x size, quadratic would be about 16x. Medians of a few runs. Asserts nothing.
Run with `.venv/bin/python benchmarks/bench_redact.py`.
"""

import argparse
import itertools
import random
import statistics
import string
import sys
import time
from collections.abc import Callable

from git_teddy.redact import redact

MB = 1 << 20
SIZES_MB = (1, 4, 16)
ALNUM = string.ascii_letters + string.digits

# Lines of ordinary text; every few hundred lines one holds a (fake, runtime-built) secret.
ORDINARY = [
    "def handle(self, request: Request) -> Response:",
    "    token_count = len(tokens)  # counted with tiktoken",
    '    password = os.environ["PASSWORD"]',
    "2024-05-01T12:00:00Z INFO fetched https://github.com/owner/repo in 120 ms",
    "commit 3f1c2a9b7d4e5f60718293a4b5c6d7e8f9012345 (HEAD -> main, origin/main)",
    "The model replied with a plan of three steps; the second one touched auth.py.",
    '{"id": "123e4567-e89b-12d3-a456-426614174000", "status": "ok", "retries": 3}',
    '  File "/usr/lib/python3.11/site-packages/requests/auth.py", line 42, in __call__',
    "",
]


def _fake(rng: random.Random, length: int) -> str:
    return "".join(rng.choices(ALNUM, k=length))


def _secret_lines(rng: random.Random) -> list[str]:
    return [
        "export GITHUB_TOKEN=" + "gh" + "p_" + _fake(rng, 36),
        "aws_access_key_id = " + "AK" + "IA" + _fake(rng, 16).upper(),
        f'"client_secret": "{_fake(rng, 24)}",',
        f"DATABASE_URL=postgres://app:{_fake(rng, 16)}@db:5432/app",
        "Authorization: Bearer " + _fake(rng, 40),
    ]


def normal_text(size: int, seed: int) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    length = 0
    while length < size:
        line = rng.choice(ORDINARY) if rng.random() > 0.003 else rng.choice(_secret_lines(rng))
        lines.append(line)
        length += len(line) + 1
    return "\n".join(lines)[:size]


def repeated(unit: str) -> Callable[[int, int], str]:
    return lambda size, _seed: (unit * (size // len(unit) + 1))[:size]


TEXTS: dict[str, Callable[[int, int], str]] = {
    "normal text, a few secrets": normal_text,
    "one run of 'a'": repeated("a"),
    "BEGIN without END": repeated("-----BEGIN RSA PRIVATE KEY-----\n"),
    "'x://' repeated": repeated("x://"),
    "'x://u:p' repeated": repeated("x://u:p"),
    "'eyJ' repeated": repeated("eyJ"),
    "'token=' repeated": repeated("token="),
    "'password=\"x' repeated": repeated('password="x'),
}


def median_seconds(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        redact(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure")
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()

    header = "".join(f"{f'{size} MB':>10}" for size in SIZES_MB)
    ratios = "".join(f"{f'x{b // a}':>8}" for a, b in itertools.pairwise(SIZES_MB))
    print(f"{'text':<28}{header}   (MB/s){ratios}   (time ratio; linear ~4)")
    for name, make in TEXTS.items():
        seconds = [median_seconds(make(size * MB, args.seed), args.runs) for size in SIZES_MB]
        speeds = "".join(f"{size / s:10.1f}" for size, s in zip(SIZES_MB, seconds, strict=True))
        steps = "".join(f"{b / a:8.1f}" for a, b in itertools.pairwise(seconds))
        print(f"{name:<28}{speeds}         {steps}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
