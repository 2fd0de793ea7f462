"""Fault suite, redaction (issue 25, item 2): every secret of the labelled corpus is redacted,
no look-alike is, and the product's own source holds nothing the redactor flags.

The corpus (testing/secret_corpus.py) is made at run time: 130+ fake secrets of 30+ kinds,
each case the issue found missed (Hugging Face, Stripe, bare npm and PyPI tokens, base64,
a token split over two lines, prose, a bare AWS secret key, file names), and 100 texts that
only look like secrets.
"""

from collections import Counter
from pathlib import Path

import pytest

import git_teddy
from git_teddy.redact import KINDS, find_secrets, redact
from testing.secret_corpus import LOOKALIKES, SECRETS, LookAlike, Secret


def test_the_corpus_is_as_big_as_the_issue_asks() -> None:
    assert len(SECRETS) >= 100
    assert len(Counter(secret.kind for secret in SECRETS)) >= 20
    assert len(LOOKALIKES) >= 100


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s.kind)
def test_every_secret_of_the_corpus_is_redacted(secret: Secret) -> None:
    redacted, findings = redact(secret.text)
    assert secret.secret not in redacted
    assert findings
    assert {finding.kind for finding in findings} <= set(KINDS)
    assert redact(redacted)[0] == redacted  # idempotent


@pytest.mark.parametrize("lookalike", LOOKALIKES, ids=lambda s: s.kind)
def test_no_lookalike_is_redacted(lookalike: LookAlike) -> None:
    assert redact(lookalike.text) == (lookalike.text, [])


def test_a_token_split_over_two_lines_is_redacted_in_both_parts() -> None:
    (split,) = [s for s in SECRETS if s.kind == "split-token"][:1]
    head = split.text.split('"')[1]
    redacted = redact(split.text)[0]
    assert head not in redacted and split.secret not in redacted
    assert redacted.count("[REDACTED:github-token]") == 2


def test_the_products_own_source_holds_nothing_flagged() -> None:
    """False positives on real code: every module of git_teddy is scanned."""
    package = Path(git_teddy.__file__).parent
    flagged = {
        str(path.relative_to(package)): [f.kind for f in findings]
        for path in sorted(package.rglob("*"))
        if path.suffix in {".py", ".xml", ".md", ".yaml"}
        and (findings := find_secrets(path.read_text(encoding="utf-8")))
    }
    assert flagged == {}
