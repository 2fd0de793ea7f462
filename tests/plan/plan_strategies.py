"""Hypothesis strategies for plans whose every field the format can carry exactly."""

import string

from hypothesis import strategies as st

from git_teddy.artifacts.plan import (
    ChatWithUser,
    Conclude,
    Create,
    Edit,
    EditFile,
    Execute,
    Invoke,
    Memo,
    Plan,
    Prune,
    Read,
    Research,
)
from git_teddy.artifacts.plan.validate import check_rationale

# Anything but line ends and control characters: code blocks carry it all, fences included.
_CODE_CHARS = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x00"
) | st.sampled_from("`~\t #*-[]()<>!\\")
_INLINE = st.characters(
    whitelist_categories=("Lu", "Ll", "Lo", "Nd"), blacklist_characters="\x00"
) | st.sampled_from(" .,;:!?'\"()`~=+/@&%$")


def _stripped(text: str) -> bool:
    return text == text.strip() and bool(text)


code_line = st.text(_CODE_CHARS, max_size=30)
# Text of a code block: lines ending in "\n" (a block's text always does), or nothing.
block_text = st.lists(code_line, max_size=8).map(lambda lines: "".join(f"{ln}\n" for ln in lines))
# Text without its final newline, as FIND, REPLACE, commands and queries are given.
snippet = st.lists(code_line, min_size=1, max_size=6).map("\n".join)

one_line = st.text(_INLINE, min_size=1, max_size=40).filter(
    lambda text: _stripped(text) and not text.lower().startswith("(optional)")
)
optional_line = st.none() | one_line
word = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=8)
path_part = word | st.sampled_from(["café", "日本", "my file", "a.b"])
path = (
    st.lists(path_part, min_size=1, max_size=4)
    .map("/".join)
    .filter(lambda p: ".." not in p.split("/"))
)
url = st.lists(word, max_size=3).map(lambda parts: "https://example.com/" + "/".join(parts))


@st.composite
def message(draw: st.DrawFn) -> str:
    """Plain Markdown paragraphs: each line starts with a letter, so no line opens a block."""
    line = st.tuples(st.sampled_from(string.ascii_letters), st.text(_INLINE, max_size=40)).map(
        "".join
    )
    paragraphs = draw(st.lists(st.lists(line, min_size=1, max_size=3), min_size=1, max_size=3))
    return "\n\n".join("\n".join(lines) for lines in paragraphs).rstrip()


@st.composite
def rationale(draw: st.DrawFn) -> str:
    parts = ["### 1. Synthesis", "### 2. Justification", "### 3. Expected Outcome"]
    parts.append("### 4. State Dashboard")
    text = "\n".join(f"{heading}\n{draw(snippet)}" for heading in parts)
    if check_rationale(text, 1):  # a drawn line happened to look like a part's heading
        text = "\n".join(f"{heading}\nnothing" for heading in parts)
    return text


memo = st.builds(
    Memo,
    op=st.sampled_from(["+", "-"]),
    text=one_line.filter(lambda text: "#" not in text),
    comment=st.none() | one_line,
)
env_name = st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True)
env_value = st.text(_INLINE, max_size=20)

actions = st.one_of(
    st.builds(
        Create, path=path, description=optional_line, content=block_text, overwrite=st.booleans()
    ),
    st.builds(Read, resource=path, kind=st.just("file"), description=optional_line),
    st.builds(Read, resource=url, kind=st.just("url"), description=optional_line),
    st.builds(
        EditFile,
        path=path,
        description=optional_line,
        edits=st.lists(
            st.builds(Edit, find=snippet.filter(bool), replace=snippet), min_size=1, max_size=3
        ),
    ),
    st.builds(
        Execute,
        command=snippet.filter(str.strip),
        description=optional_line,
        expected_outcome=optional_line,
        cwd=st.none() | path,
        env=st.dictionaries(env_name, env_value, max_size=3),
    ),
    st.builds(
        Research,
        description=optional_line,
        queries=st.lists(snippet.filter(str.strip), min_size=1, max_size=3),
    ),
    st.builds(ChatWithUser, message=message()),
    st.builds(
        Invoke,
        agent=word,
        handoff_resources=st.lists(path, max_size=3),
        message=message(),
    ),
    st.builds(Conclude, handoff_resources=st.lists(path, max_size=3), message=message()),
    st.builds(Prune, resource=path | url, description=optional_line),
)

metadata_key = st.from_regex(r"[A-Za-z][A-Za-z ]{0,12}[A-Za-z]", fullmatch=True)

plans = st.builds(
    Plan,
    title=one_line.filter(lambda text: "#" not in text),
    metadata=st.dictionaries(metadata_key, one_line, max_size=4),
    rationale=rationale(),
    memos=st.lists(memo, max_size=4),
    actions=st.lists(actions, min_size=1, max_size=6),
)
