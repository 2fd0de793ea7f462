"""The `teddy.*` settings: every key declared once (type, default, allowed values, one line
of help, its environment variable), read from the values git config holds and validated
when read.

An environment variable overrides each key: `teddy.refPrefix` by `TEDDY_REF_PREFIX`,
`teddy.execute.timeout` by `TEDDY_EXECUTE_TIMEOUT` (dots and camel-case humps become
underscores). Of several values the last one wins, as in git; an empty value means the default
(numbers excepted: git rejects an empty number too). Whole numbers take git's suffixes
k, m and g (times 1024, as `git config --type=int` reads them).

Layer 0: no git here, the caller hands over what `git config` holds. Cheap to import (the
context cache and session index answer before click loads): `re`, no dataclasses or
typing.
"""

import os
import re
from collections.abc import Mapping

from git_teddy.errors import TeddyError

DEFAULT = "default"
GIT_CONFIG = "git config"
ENVIRONMENT = "environment"
MODEL_PLACEHOLDER = "<model>"  # in the keys of the per-model price settings


def env_name(key: str) -> str:
    """`teddy.refPrefix` -> `TEDDY_REF_PREFIX`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).replace(".", "_").upper()


# ---- the kinds of setting ------------------------------------------------------------------


class Setting:
    """One key: its name, a line of help and a good value for hints (`example`). The last
    value counts (Paths: all of them); `parse` raises ValueError for one that is not
    `requirement`."""

    kind = "text"
    requirement = "text"
    default: object = None

    def __init__(self, key: str, help: str, example: str) -> None:
        self.key = key
        self.help = help
        self.example = example

    @property
    def env(self) -> str:
        return env_name(self.key)

    @property
    def shown_default(self) -> str:
        return "(none)"

    def is_unset(self, raw: str) -> bool:
        return not raw.strip()

    def parse(self, raw: str) -> object:
        return raw.strip()


class Text(Setting):
    """Free text (stripped; "" when not set and no default); `pattern`, when given, is what a
    valid value must match."""

    default: str

    def __init__(
        self,
        key: str,
        help: str,
        example: str,
        default: str = "",
        pattern: str | None = None,
        requirement: str = "text",
    ) -> None:
        super().__init__(key, help, example)
        self.default = default
        self.pattern = pattern  # compiled when first used: imports stay cheap
        self.requirement = requirement
        self.kind = "URL" if "URL" in requirement else "text"

    @property
    def shown_default(self) -> str:
        return self.default or "(none)"

    def parse(self, raw: str) -> str:
        value = raw.strip()
        if self.pattern and not re.fullmatch(self.pattern, value):
            raise ValueError(raw)
        return value


class Choice(Setting):
    """One of a few words, compared without case."""

    default: str

    def __init__(self, key: str, help: str, choices: tuple[str, ...], default: str) -> None:
        super().__init__(key, help, default)
        self.choices = choices
        self.default = default
        self.requirement = ", ".join(choices[:-1]) + f" or {choices[-1]}"
        self.kind = " | ".join(choices)

    @property
    def shown_default(self) -> str:
        return self.default

    def parse(self, raw: str) -> str:
        value = raw.strip().lower()
        if value not in self.choices:
            raise ValueError(raw)
        return value


_BOOLEAN_WORDS = {"true": True, "yes": True, "on": True, "1": True}
_BOOLEAN_WORDS |= {"false": False, "no": False, "off": False, "0": False}


class Flag(Setting):
    """On or off, in git's words for a boolean: true, yes, on, 1 or false, no, off, 0."""

    default: bool
    kind = "boolean"
    requirement = "true or false (yes/no, on/off, 1/0)"

    def __init__(self, key: str, help: str, default: bool) -> None:
        super().__init__(key, help, "false" if default else "true")
        self.default = default

    @property
    def shown_default(self) -> str:
        return "true" if self.default else "false"

    def parse(self, raw: str) -> bool:
        value = _BOOLEAN_WORDS.get(raw.strip().lower())
        if value is None:
            raise ValueError(raw)
        return value


_WHOLE = r"([+-]?[0-9]+)([kmgKMG]?)"  # patterns are compiled when first used
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


class Integer(Setting):
    """A whole number from `minimum` to `maximum`, with git's suffixes. Every one has a
    maximum: a value past what the code can use (a timeout no timer takes, a retry count
    nobody waits for) is refused when read, not met as an overflow later."""

    default: int

    def __init__(
        self, key: str, help: str, default: int, minimum: int, maximum: int, unit: str = ""
    ) -> None:
        super().__init__(key, help, str(default))
        self.default = default
        self.minimum = minimum
        self.maximum = maximum
        self.kind = f"whole number{' of ' + unit if unit else ''}"
        self.requirement = f"a whole number from {minimum} to {maximum}"

    @property
    def shown_default(self) -> str:
        return str(self.default)

    def is_unset(self, raw: str) -> bool:
        return False

    def parse(self, raw: str) -> int:
        match = re.fullmatch(_WHOLE, raw.strip())
        if match is None:
            raise ValueError(raw)
        value = int(match[1]) * _UNITS[match[2].lower()]
        if not self.minimum <= value <= self.maximum:
            raise ValueError(raw)
        return value


class Duration(Setting):
    """A length of time: a whole number with s, m, h, d or w (seconds without), read as
    seconds; 0 means never."""

    default: int
    kind = "duration"
    requirement = "a duration such as 30m, 8h or 2d (0: never)"

    def __init__(self, key: str, help: str, default: str, maximum: int) -> None:
        super().__init__(key, help, default)
        self.maximum = maximum
        self.shown = default
        self.default = self.parse(default)

    @property
    def shown_default(self) -> str:
        return self.shown

    def parse(self, raw: str) -> int:
        match = re.fullmatch(r"([0-9]+)([smhdw]?)", raw.strip().lower())
        if match is None:
            raise ValueError(raw)
        value = int(match[1]) * _SECONDS[match[2]]
        if value > self.maximum:
            raise ValueError(raw)
        return value


_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


class Number(Setting):
    """A number (fractions allowed) from 0 to `maximum`; no suffixes."""

    default: float

    def __init__(
        self,
        key: str,
        help: str,
        example: str,
        unit: str,
        default: float = 0.0,
        measure: str = "",
        shown: str = "",
        maximum: float = 1e6,
    ) -> None:
        super().__init__(key, help, example)
        self.default = default
        self.unit = unit
        self.maximum = maximum
        self.measure = measure or f"a number of {unit}"  # what a value is, for errors
        self.kind = f"number ({unit})"
        self.requirement = f"{self.measure} from 0 to {maximum:g}"
        self._shown = shown or f"{default:g}"

    @property
    def shown_default(self) -> str:
        return self._shown

    def is_unset(self, raw: str) -> bool:
        return False

    def parse(self, raw: str) -> float:
        value = float(raw)
        if not 0 <= value <= self.maximum:  # NaN fails every comparison
            raise ValueError(raw)
        return value

    def for_model(self, model: str) -> "Number":
        """The concrete key of a per-model template (`teddy.price.<model>.input`)."""
        key = self.key.replace(MODEL_PLACEHOLDER, model)
        return Number(
            key,
            self.help,
            self.example,
            self.unit,
            measure=self.measure,
            shown=self._shown,
            maximum=self.maximum,
        )


class Paths(Setting):
    """A multi-valued key: every value counts (the environment gives just one)."""

    kind = "path, repeatable"
    requirement = "a path"
    default: tuple[str, ...] = ()

    @property
    def shown_default(self) -> str:
        return "(none)"


# ---- the registry --------------------------------------------------------------------------

# One part of a ref name as git accepts it (`git check-ref-format`): no leading '.', no
# trailing '.' or '.lock' (git's lock files are `<ref>.lock`).
_REF_PART = r"(?!\.)[A-Za-z0-9._-]+(?<!\.)(?<!\.lock)"
_REF_PREFIX_RE = rf"/*{_REF_PART}(/{_REF_PART})*/*"

REF_PREFIX = Text(
    "teddy.refPrefix",
    "Prefix of session branches and keep refs: teddy/<session>/main, refs/teddy/keep/<session>.",
    "ai/",
    default="teddy/",
    pattern=rf"(?!.*\.\.){_REF_PREFIX_RE}",
    requirement=(
        "usable in a ref name (letters, digits, '-', '_', '.' and '/'; no part starting with"
        " '.' or ending with '.' or '.lock')"
    ),
)
CHANNEL = Text(
    "teddy.channel",
    "Channel recorded in a new session's log when --channel is not given.",
    "cli",
    default="cli",
    # One word: the session log's header line holds it (a space or newline would break it).
    pattern=r"[A-Za-z0-9][A-Za-z0-9._:@#+/-]{0,63}",
    requirement="one word of letters, digits and . _ : @ # + / - (at most 64 characters)",
)


def checked_channel(channel: str) -> str:
    """A channel given on the command line, held to teddy.channel's rule."""
    try:
        return CHANNEL.parse(channel)
    except ValueError:
        raise TeddyError(
            f"the channel must be {CHANNEL.requirement}, not {channel!r}",
            "name it with one word, e.g. `--channel slack-team`",
        ) from None


REMOTE = Text(
    "teddy.remote",
    "Remote that `git teddy push` and `git teddy fetch` use when none is named.",
    "origin",
    default="origin",
)
PUSH_AS_BRANCHES = Flag(
    "teddy.pushAsBranches",
    "Whether `git teddy push` puts session branches among the remote's branches (refs/heads/"
    "teddy/..., shown in a forge's web view, fetched by every plain `git fetch` and clone) "
    "instead of refs/teddy/sessions/..., which only `git teddy fetch` asks for.",
    default=False,
)
IDLE_TIMEOUT = Duration(
    "teddy.idleTimeout",
    "How long an active session may go without a commit before it reads as paused (spec 003: "
    "the session times out), resuming at its last turn; 0 never. Nothing is written: "
    "`list`, `stats` and `show` derive it from the last commit's time.",
    default="8h",
    maximum=366 * 86_400,
)
SUBAGENT_MODE = Choice(
    "teddy.subagentMode",
    "How session.md shows an INVOKEd agent's work: link (its own log in subagents/), "
    "embed or inline.",
    ("inline", "link", "embed"),
    "link",
)
PROVIDER = Choice(
    "teddy.provider",
    "Who answers when a turn is planned: openai (any OpenAI-compatible endpoint), anthropic, "
    "manual (the payload goes to a file and the clipboard, you paste the reply), replay, or "
    "llm (every model simonw's llm library and its plugins reach; `pip install "
    "'git-teddy[llm]'`, then teddy.model is an llm model id or alias). Unset: anthropic "
    "when ANTHROPIC_API_KEY is in the environment, else openai when OPENAI_API_KEY is, else "
    "manual.",
    ("openai", "anthropic", "manual", "replay", "llm"),
    "manual",
)
MODEL = Text(
    "teddy.model",
    "Model the openai and anthropic providers ask; unset: gpt-4.1 for openai, "
    "claude-sonnet-4-5 for anthropic. For the llm provider: an llm model id or alias "
    "(`llm models`), unset: llm's default model.",
    "gpt-4.1",
)
_URL = r"https?://\S+"
BASE_URL = Text(
    "teddy.baseUrl",
    "Endpoint of the openai or anthropic provider instead of the public API, e.g. "
    "http://localhost:11434/v1 for Ollama (which needs no API key).",
    "http://localhost:11434/v1",
    pattern=_URL,
    requirement="an http(s) URL",
)
REPLAY_DIR = Text(
    "teddy.replayDir",
    "Folder of reply files the replay provider answers with, one per request, in name order "
    "(for demos and tests).",
    "path/to/replies",
)
MAX_RETRIES = Integer(
    "teddy.maxRetries",
    "Times an invalid plan is sent back to the model with its problems before planning fails.",
    default=2,
    minimum=0,
    maximum=20,
)
MAX_TOKENS = Integer(
    "teddy.maxTokens",
    "Most tokens the anthropic provider may answer with (its max_tokens).",
    default=8192,
    minimum=1,
    maximum=10_000_000,
)
TIMEOUT = Integer(
    "teddy.timeout",
    "Seconds to wait for a model's HTTP answer.",
    default=120,
    minimum=1,
    maximum=86_400,
    unit="seconds",
)
HTTP_RETRIES = Integer(
    "teddy.httpRetries",
    "Times a model request is retried after a lost connection, HTTP 429 or 5xx.",
    default=3,
    minimum=0,
    maximum=20,
)
RETRY_DELAY = Number(
    "teddy.retryDelay",
    "Seconds before the first retry of a model request; each later retry waits twice as long "
    "(or as long as the server asks).",
    example="1",
    unit="seconds",
    default=1.0,
    maximum=600,
)
REPLY_TIMEOUT = Integer(
    "teddy.replyTimeout",
    "Seconds a model's whole reply may take, from the request to its last byte (teddy.timeout "
    "bounds each wait for the next byte); a stream of keep-alives ends here.",
    default=600,
    minimum=1,
    maximum=86_400,
    unit="seconds",
)
PRICE_INPUT = Number(
    "teddy.price.<model>.input",
    "USD per million input tokens of <model>, for cost figures; overrides or extends the "
    "built-in price table.",
    example="2.5",
    unit="USD per million tokens",
    measure="a price in USD per million tokens",
    shown="the built-in table",
)
PRICE_OUTPUT = Number(
    "teddy.price.<model>.output",
    "USD per million output tokens of <model> (as teddy.price.<model>.input).",
    example="10",
    unit="USD per million tokens",
    measure="a price in USD per million tokens",
    shown="the built-in table",
)
TOKENIZER = Text(
    "teddy.tokenizer",
    "tiktoken encoding that counts tokens; when it cannot be loaded, an offline one or "
    "characters/4 stands in (the context says which).",
    "cl100k_base",
    default="o200k_base",
)
CONTEXT_WINDOW = Integer(
    "teddy.contextWindow",
    "The model's context window in tokens: a request over it stops before it is sent, naming "
    "the biggest entries to drop; on resume, older phases of session.md are cut to fit. "
    "Unset: the window of a known model, else the default.",
    default=128_000,
    minimum=1,
    maximum=1024**4,
    unit="tokens",
)
MAX_RESOURCE_BYTES = Integer(
    "teddy.maxResourceBytes",
    "Bytes of each file or URL put into a turn's context; the rest is cut (and noted).",
    default=500_000,
    minimum=1,
    maximum=1024**3,
    unit="bytes",
)
MAP_TOKENS = Integer(
    "teddy.mapTokens",
    "Tokens (counted as characters/4) of the repository map every context starts with: the "
    "tracked files as a tree with sizes and symbols (line numbers), the most relevant first, "
    "the cut said; 0 leaves the map and the system information out.",
    default=1024,
    minimum=0,
    maximum=1_000_000,
    unit="tokens",
)
FETCH_TIMEOUT = Integer(
    "teddy.fetch.timeout",
    "Seconds to wait for a URL named in the context.",
    default=20,
    minimum=1,
    maximum=86_400,
    unit="seconds",
)
PROBE_TOOLS = Flag(
    "teddy.probeTools",
    "Whether System Information names the developer tools on PATH with their versions (each "
    "asked `--version` once, again only when PATH's executables change).",
    default=True,
)
WEB_ALLOW_PRIVATE = Flag(
    "teddy.web.allowPrivate",
    "Whether URLs of the context and READ may reach loopback, private, link-local and "
    "cloud-metadata addresses (an intranet wiki, a local server); by default only public "
    "addresses are fetched, checked at every redirect.",
    default=False,
)
REDACT_REQUESTS = Flag(
    "teddy.redactRequests",
    "Whether secrets are redacted from what the model is sent, as they are from every "
    "commit; when false the model gets them as they are and _context.log says so.",
    default=True,
)
APPLY = Choice(
    "teddy.apply",
    "Whether a turn's result is applied to your working tree: auto, ask (after execution) or "
    "never (it stays in the session).",
    ("auto", "ask", "never"),
    "auto",
)
AUTO_COMMIT = Flag(
    "teddy.autoCommit",
    "Whether an applied turn's result is committed to your branch (`git commit` of the "
    "turn's files only, your hooks run): the plan's title as subject, the turn's message "
    "and Teddy-Session/Teddy-Turn trailers below. Not when the turn merged with your edits "
    "of its files. `git teddy undo` removes such a commit while it is HEAD and unpushed.",
    default=False,
)
SIGN = Choice(
    "teddy.sign",
    "Whether session commits are signed like git's (gpg.format, user.signingKey): auto "
    "(when commit.gpgSign is set), always or never. Snapshots are never signed.",
    ("auto", "always", "never"),
    "auto",
)
EXECUTE_TIMEOUT = Integer(
    "teddy.execute.timeout",
    "Seconds a RUN action's command may take before it is stopped.",
    default=300,
    minimum=1,
    maximum=7 * 86_400,
    unit="seconds",
)
EXECUTE_OUTPUT_CAP = Integer(
    "teddy.execute.outputCap",
    "Bytes kept of each command's output (stdout and stderr each) in the report: its first "
    "and last lines and its first error, the cuts marked.",
    default=20_000,
    minimum=1,
    maximum=100_000_000,
    unit="bytes",
)
WORKTREE_LINK = Paths(
    "teddy.worktree.link",
    "An ignored path (such as .venv) linked into the scratch worktree where actions run; "
    "repeat the key for several.",
    ".venv",
)
WORKTREE_DEPENDENCIES = Flag(
    "teddy.worktree.linkDependencies",
    "Link the ignored dependency folders the project has (node_modules, .venv, venv, "
    "vendor/bundle) into the scratch worktree, as teddy.worktree.link does: its commands "
    "find the project's dependencies though it lives outside the project.",
    default=True,
)
WORKTREE_DIR = Text(
    "teddy.worktree.dir",
    "The folder (absolute, ~ allowed; outside every project) of the scratch worktrees where "
    "plans run, one pool per repository; default $XDG_CACHE_HOME/git-teddy, else "
    "~/.cache/git-teddy.",
    "~/.cache/git-teddy",
    pattern=r"[~/].*",
    requirement="an absolute path (or one that starts with ~)",
)
SECRET_FILES = Paths(
    "teddy.secretFiles",
    "A glob naming untracked files that hold secrets, left out of snapshots like ignored "
    "files (added to .env, .env.*, *.pem, *.key, id_rsa*, credentials*, *creds* and the "
    "like; a glob with / matches the path from the top); repeat the key for several.",
    "*.secret",
)
SEARCH_URL = Text(
    "teddy.searchUrl",
    "A SearxNG /search endpoint (JSON results) for RESEARCH actions.",
    "http://localhost:8888/search",
    pattern=_URL,
    requirement="an http(s) URL",
)

# In the order the docs list them: sessions, models, context, execution.
REGISTRY: tuple[Setting, ...] = (
    REF_PREFIX,
    CHANNEL,
    REMOTE,
    PUSH_AS_BRANCHES,
    SUBAGENT_MODE,
    IDLE_TIMEOUT,
    PROVIDER,
    MODEL,
    BASE_URL,
    REPLAY_DIR,
    MAX_RETRIES,
    MAX_TOKENS,
    TIMEOUT,
    REPLY_TIMEOUT,
    HTTP_RETRIES,
    RETRY_DELAY,
    PRICE_INPUT,
    PRICE_OUTPUT,
    TOKENIZER,
    CONTEXT_WINDOW,
    MAX_RESOURCE_BYTES,
    MAP_TOKENS,
    FETCH_TIMEOUT,
    PROBE_TOOLS,
    WEB_ALLOW_PRIVATE,
    REDACT_REQUESTS,
    APPLY,
    AUTO_COMMIT,
    SIGN,
    EXECUTE_TIMEOUT,
    EXECUTE_OUTPUT_CAP,
    WORKTREE_LINK,
    WORKTREE_DEPENDENCIES,
    WORKTREE_DIR,
    SECRET_FILES,
    SEARCH_URL,
)
PRICES = {"input": PRICE_INPUT, "output": PRICE_OUTPUT}
_PRICE_KEY_START = PRICE_INPUT.key.partition(MODEL_PLACEHOLDER)[0]  # teddy.price.
_PRICE_ENV_START = PRICE_INPUT.env.partition(MODEL_PLACEHOLDER.upper())[0]  # TEDDY_PRICE_
_PRICE_KEY = r"teddy\.price\.(.+)\.(input|output)"
_PRICE_ENV = r"TEDDY_PRICE_(.+)_(INPUT|OUTPUT)"


def is_template(setting: Setting) -> bool:
    return MODEL_PLACEHOLDER in setting.key


def _side(template: Setting) -> str:
    return template.key.rsplit(".", 1)[1]  # input or output


def registered(key: str) -> Setting | None:
    """The setting a concrete key names (a price key names its template), or None."""
    price = re.fullmatch(_PRICE_KEY, key)
    if price:
        return PRICES[price[2]]
    return next((s for s in REGISTRY if s.key.lower() == key.lower()), None)


# ---- reading them ----------------------------------------------------------------------------


class Found:
    """The values that count for one key, and where they came from."""

    def __init__(self, values: list[str], origin: str) -> None:
        self.values = values
        self.origin = origin

    @property
    def raw(self) -> str:
        return self.values[-1]  # git's rule: the last value wins


class Settings:
    """A read-only view of the teddy.* settings of one repository."""

    def __init__(self, git_values: Mapping[str, list[str]], environ: Mapping[str, str]) -> None:
        self._git = git_values  # keys lower-cased, as `git config --get-regexp` lists them
        self._environ = environ

    @classmethod
    def from_env(cls, git_values: Mapping[str, list[str]]) -> "Settings":
        return cls(git_values, os.environ)

    @classmethod
    def verified(cls, git_values: Mapping[str, list[str]]) -> "Settings":
        """The settings, every value checked (the first bad one raised): what every command
        reads before it acts, the fast paths included."""
        settings = cls.from_env(git_values)
        settings.check()
        return settings

    def replaced(self, setting: Setting, value: str) -> "Settings":
        """These settings with `setting` set to `value`, as its environment variable would."""
        return Settings(self._git, {**self._environ, setting.env: value})

    def found(self, setting: Setting) -> Found | None:
        override = self._environ.get(setting.env)
        if override is not None:
            return Found([override], ENVIRONMENT)
        values = self._git.get(setting.key.lower())
        return Found(list(values), GIT_CONFIG) if values else None

    def checked(self, setting: Setting) -> str | None:
        """The value that counts, validated; None means the default."""
        found = self.found(setting)
        if found is None or setting.is_unset(found.raw):
            return None
        try:
            setting.parse(found.raw)
        except ValueError:
            raise bad_value(setting, found) from None
        return found.raw

    def text(self, setting: Text) -> str:
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def choice(self, setting: Choice) -> str:
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def flag(self, setting: Flag) -> bool:
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def integer(self, setting: Integer) -> int:
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def duration(self, setting: Duration) -> int:
        """Seconds."""
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def number(self, setting: Number) -> float:
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def paths(self, setting: Paths) -> list[str]:
        found = self.found(setting)
        return [] if found is None else [v for v in found.values if v.strip()]

    def value(self, setting: Setting) -> object:
        """The value of any setting, typed as its kind reads it."""
        if isinstance(setting, Paths):
            return self.paths(setting)
        raw = self.checked(setting)
        return setting.default if raw is None else setting.parse(raw)

    def price(self, model: str, side: str) -> float | None:
        """`teddy.price.<model>.input` (side "input") or `.output`, or None when not set."""
        setting = PRICES[side].for_model(model)
        raw = self.checked(setting)
        return None if raw is None else setting.parse(raw)

    @property
    def ref_prefix(self) -> str:
        """`teddy.refPrefix` as refs use it: `teddy/`, `ai/`..."""
        return self.text(REF_PREFIX).strip("/") + "/"

    def prices_set(self, side: str) -> list[Setting]:
        """The keys of a price template (`side`: input or output) set in git config or the
        environment."""
        models = []
        for key in self._git:
            match = key.startswith(_PRICE_KEY_START) and re.fullmatch(_PRICE_KEY, key)
            if match and match[2] == side:
                models.append(match[1])
        for name in self._environ:
            match = name.startswith(_PRICE_ENV_START) and re.fullmatch(_PRICE_ENV, name)
            if match and match[2].lower() == side:  # a lower-case model gives back the name
                models.append(match[1].lower())
        return [PRICES[side].for_model(model) for model in dict.fromkeys(models)]

    def named(self, setting: Setting) -> list[Setting]:
        """`[setting]`, or for a per-model template its keys that are set."""
        return self.prices_set(_side(setting)) if is_template(setting) else [setting]

    def present(self) -> list[Setting]:
        """Every registered key, a per-model one once for each model it is set for."""
        return [named for setting in REGISTRY for named in self.named(setting)]

    def check(self) -> None:
        """Raise the first bad value: run before a command acts on any of them."""
        for setting in self.present():
            self.checked(setting)

    def listing(self) -> list["Entry"]:
        """What `git teddy config` shows: every setting (a per-model one once for each model
        set, else its template), its value and where that comes from."""
        return [self.entry(s) for setting in REGISTRY for s in self.named(setting) or [setting]]

    def entry(self, setting: Setting) -> "Entry":
        found = self.found(setting)
        origin = DEFAULT if found is None or is_template(setting) else found.origin
        try:
            return Entry(setting, origin, self.value(setting), None)
        except TeddyError as error:
            return Entry(setting, origin, found.raw if found else None, error)

    def unknown(self) -> list[str]:
        """`teddy.*` keys set in git config that no setting reads (typos, old names)."""
        return sorted(key for key in self._git if registered(key) is None)


class Entry:
    """One setting as `git teddy config` lists it; `error` when its value is bad."""

    def __init__(
        self, setting: Setting, origin: str, value: object, error: TeddyError | None
    ) -> None:
        self.setting = setting
        self.origin = origin
        self.value = value
        self.error = error

    @property
    def shown(self) -> str:
        """The value as text: lists joined, a default that is no value in words."""
        if is_template(self.setting):
            return self.setting.shown_default
        if isinstance(self.value, list):
            return ", ".join(self.value) or "(none)"
        if isinstance(self.value, float):
            return f"{self.value:g}"
        return str(self.value) if self.value not in (None, "") else "(none)"

    def as_json(self) -> dict[str, object]:
        setting = self.setting
        value = None if is_template(setting) or self.value == "" else self.value
        return {
            "key": setting.key,
            "value": value,
            "origin": self.origin,
            "env": setting.env,
            "type": setting.kind,
            "default": setting.shown_default,
            "help": setting.help,
            "problem": self.error.message if self.error else None,
        }


def bad_value(setting: Setting, found: Found) -> TeddyError:
    if found.origin == ENVIRONMENT:
        return TeddyError(
            f"{setting.key} (set by {setting.env}) must be {setting.requirement}, "
            f"not {found.raw!r}",
            f"fix or unset {setting.env} in your environment, e.g. "
            f"`export {setting.env}={setting.example}`",
        )
    return TeddyError(
        f"{setting.key} must be {setting.requirement}, not {found.raw!r}",
        f"fix it with `git config {setting.key} {setting.example}`, or unset it for the "
        f"default ({setting.shown_default}): `git config --unset-all {setting.key}`",
    )
