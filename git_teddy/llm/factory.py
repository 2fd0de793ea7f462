"""Choosing and configuring the provider from `teddy.*` settings and the environment.

Each provider's module is imported when it is chosen: a command that plans from a file, or
with one provider, does not load the others (nor the manual one's clipboard tools).
"""

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from git_teddy.llm.base import Provider, ProviderError
from git_teddy.settings import (
    BASE_URL,
    HTTP_RETRIES,
    MAX_TOKENS,
    MODEL,
    PROVIDER,
    REPLAY_DIR,
    REPLY_TIMEOUT,
    RETRY_DELAY,
    TIMEOUT,
    Settings,
)
from git_teddy.ui import UI

if TYPE_CHECKING:
    from git_teddy.llm.anthropic import AnthropicProvider
    from git_teddy.llm.http import HttpPolicy
    from git_teddy.llm.openai import OpenAIProvider
    from git_teddy.llm.replay import ReplayProvider


def provider_from_settings(
    settings: Settings, derived_dir: Path, environ: Mapping[str, str] | None = None, *, ui: UI
) -> Provider:
    """The provider `teddy.provider` names, else the one whose key the environment holds
    (keyed_provider), else manual; showing its progress and asking for pastes through `ui`.
    API keys come from `environ` (default: the process environment) only, never from git
    config."""
    env = os.environ if environ is None else environ
    name = settings.choice(PROVIDER)
    if settings.found(PROVIDER) is None and (keyed := keyed_provider(env)):
        name, variable = keyed
        model = settings.text(MODEL) if settings.found(MODEL) else DEFAULT_MODELS[name]
        ui.progress(
            f"note: planning with {name} {model} ({variable} is set); "
            f"`git config {PROVIDER.key} ...` and `{MODEL.key}` choose another"
        )
    if name == "openai":
        return _openai(settings, env, ui)
    if name == "anthropic":
        return _anthropic(settings, env, ui)
    if name == "replay":
        return _replay(settings, derived_dir)
    from git_teddy.llm.manual import ManualProvider

    return ManualProvider(derived_dir / "manual", ui)


# With teddy.provider unset, the first of these whose key is in the environment plans (no key:
# the manual provider). Anthropic first: a user who set its key meant it for tools like this.
KEYED_PROVIDERS = (("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY"))
# The model each asks when teddy.model is unset.
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}


def keyed_provider(env: Mapping[str, str]) -> tuple[str, str] | None:
    """(provider, key variable) of the first provider whose key `env` holds."""
    return next(((name, var) for name, var in KEYED_PROVIDERS if env.get(var)), None)


def _openai(settings: Settings, env: Mapping[str, str], ui: UI) -> "OpenAIProvider":
    from git_teddy.llm.http import Endpoint
    from git_teddy.llm.openai import OPENAI_URL, OpenAIProvider

    model = _model(settings, "openai")
    key = _key(env, "OPENAI_API_KEY")
    base = _base_url(settings, OPENAI_URL, key, "openai", "OPENAI_API_KEY")
    endpoint = Endpoint(
        provider="openai",
        url=base + "/chat/completions",
        model=model,
        key_env="OPENAI_API_KEY",
        secret=key,
        headers={"Authorization": f"Bearer {key}"} if key else {},
    )
    return OpenAIProvider(model, endpoint, _policy(settings), settings, ui)


def _anthropic(settings: Settings, env: Mapping[str, str], ui: UI) -> "AnthropicProvider":
    from git_teddy.llm.anthropic import ANTHROPIC_URL, API_VERSION, AnthropicProvider
    from git_teddy.llm.http import Endpoint

    model = _model(settings, "anthropic")
    key = _key(env, "ANTHROPIC_API_KEY")
    base = _base_url(settings, ANTHROPIC_URL, key, "anthropic", "ANTHROPIC_API_KEY")
    headers = {"anthropic-version": API_VERSION} | ({"x-api-key": key} if key else {})
    url = base + "/v1/messages"
    endpoint = Endpoint("anthropic", url, model, "ANTHROPIC_API_KEY", key, headers)
    max_tokens = settings.integer(MAX_TOKENS)
    policy = _policy(settings)
    return AnthropicProvider(model, endpoint, policy, settings, ui, max_tokens)


def _replay(settings: Settings, derived_dir: Path) -> "ReplayProvider":
    from git_teddy.llm.replay import ReplayProvider

    folder = settings.text(REPLAY_DIR)
    if not folder:
        raise ProviderError(
            f"the replay provider needs a folder of replies ({REPLAY_DIR.key})",
            f"`git config {REPLAY_DIR.key} {REPLAY_DIR.example}` (one file per reply, in name "
            "order)",
        )
    path = Path(folder).expanduser().resolve()  # a relative path is taken from the current folder
    if not path.is_dir():
        raise ProviderError(
            f"{REPLAY_DIR.key} {folder!r} is not a folder",
            f"point it at a folder of reply files: `git config {REPLAY_DIR.key} "
            f"{REPLAY_DIR.example}`",
        )
    return ReplayProvider(path, derived_dir / "replay")


def _model(settings: Settings, provider: str) -> str:
    """teddy.model, else the provider's own default (gpt-4.1 is no name for Anthropic)."""
    if settings.found(MODEL) is None:
        return DEFAULT_MODELS[provider]
    model = settings.text(MODEL)
    if not model:
        raise ProviderError(
            f"the {provider} provider needs a model ({MODEL.key})",
            f"name one: `git config {MODEL.key} {DEFAULT_MODELS[provider]}`",
        )
    return model


def _key(env: Mapping[str, str], provider_variable: str) -> str | None:
    """TEDDY_API_KEY wins: it is the deliberate choice for this tool over a general key."""
    return env.get("TEDDY_API_KEY") or env.get(provider_variable) or None


def _base_url(
    settings: Settings, default: str, key: str | None, provider: str, key_variable: str
) -> str:
    configured = settings.text(BASE_URL)
    if not configured and key is None:
        # The public API always needs a key; a local server (Ollama...) may not.
        raise ProviderError(
            f"no API key for {provider}: set {key_variable} or TEDDY_API_KEY",
            f"export {key_variable}=... (keys are read from the environment only)",
        )
    return (configured or default).rstrip("/")


def _policy(settings: Settings) -> "HttpPolicy":
    from git_teddy.llm.http import HttpPolicy

    return HttpPolicy(
        timeout=float(settings.integer(TIMEOUT)),
        retries=settings.integer(HTTP_RETRIES),
        retry_delay=settings.number(RETRY_DELAY),
        reply_timeout=float(settings.integer(REPLY_TIMEOUT)),
    )
