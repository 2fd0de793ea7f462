"""Choosing and configuring the provider from `teddy.*` settings and the environment."""

import os
from collections.abc import Mapping
from pathlib import Path

from git_teddy.llm.anthropic import API_VERSION, DEFAULT_MAX_TOKENS, AnthropicProvider
from git_teddy.llm.anthropic import DEFAULT_BASE_URL as ANTHROPIC_URL
from git_teddy.llm.base import Provider, ProviderError
from git_teddy.llm.http import Endpoint, HttpPolicy
from git_teddy.llm.manual import ManualProvider
from git_teddy.llm.openai import DEFAULT_BASE_URL as OPENAI_URL
from git_teddy.llm.openai import OpenAIProvider
from git_teddy.llm.replay import ReplayProvider
from git_teddy.settings import Settings, env_name
from git_teddy.ui import UI

PROVIDERS = ("openai", "anthropic", "manual", "replay")
DEFAULT_TIMEOUT = 120
DEFAULT_RETRIES = 3
DEFAULT_RETRY_DELAY = 1.0


def provider_from_settings(
    settings: Settings, derived_dir: Path, environ: Mapping[str, str] | None = None, *, ui: UI
) -> Provider:
    """The provider `teddy.provider` names (manual when unset), showing its progress and
    asking for pastes through `ui`. API keys come from `environ` (default: the process
    environment) only, never from git config."""
    name = (settings.get("teddy.provider") or "manual").strip().lower()
    env = os.environ if environ is None else environ
    if name == "openai":
        return _openai(settings, env, ui)
    if name == "anthropic":
        return _anthropic(settings, env, ui)
    if name == "manual":
        return ManualProvider(derived_dir / "manual", ui)
    if name == "replay":
        return _replay(settings, derived_dir)
    raise ProviderError(
        f"unknown provider {name!r} in teddy.provider",
        f"use one of {', '.join(PROVIDERS)}: `git config teddy.provider openai`",
    )


def _openai(settings: Settings, env: Mapping[str, str], ui: UI) -> OpenAIProvider:
    model = _model(settings, "openai", "gpt-4.1")
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


def _anthropic(settings: Settings, env: Mapping[str, str], ui: UI) -> AnthropicProvider:
    model = _model(settings, "anthropic", "claude-sonnet-4-5")
    key = _key(env, "ANTHROPIC_API_KEY")
    base = _base_url(settings, ANTHROPIC_URL, key, "anthropic", "ANTHROPIC_API_KEY")
    headers = {"anthropic-version": API_VERSION} | ({"x-api-key": key} if key else {})
    url = base + "/v1/messages"
    endpoint = Endpoint("anthropic", url, model, "ANTHROPIC_API_KEY", key, headers)
    max_tokens = settings.get_int("teddy.maxTokens", DEFAULT_MAX_TOKENS)
    if max_tokens < 1:
        raise ProviderError(
            f"teddy.maxTokens must be at least 1, not {max_tokens}",
            f"fix it with `git config teddy.maxTokens {DEFAULT_MAX_TOKENS}`",
        )
    policy = _policy(settings)
    return AnthropicProvider(model, endpoint, policy, settings, ui, max_tokens)


def _replay(settings: Settings, derived_dir: Path) -> ReplayProvider:
    folder = settings.get("teddy.replayDir")
    if not folder:
        raise ProviderError(
            "the replay provider needs a folder of replies (teddy.replayDir)",
            "`git config teddy.replayDir path/to/replies` (one file per reply, in name order)",
        )
    path = Path(folder).expanduser().resolve()  # a relative path is taken from the current folder
    if not path.is_dir():
        raise ProviderError(
            f"teddy.replayDir {folder!r} is not a folder",
            "point it at a folder of reply files: `git config teddy.replayDir path/to/replies`",
        )
    return ReplayProvider(path, derived_dir / "replay")


def _model(settings: Settings, provider: str, example: str) -> str:
    model = (settings.get("teddy.model") or "").strip()
    if not model:
        raise ProviderError(
            f"the {provider} provider needs a model (teddy.model)",
            f"name one: `git config teddy.model {example}`",
        )
    return model


def _key(env: Mapping[str, str], provider_variable: str) -> str | None:
    """TEDDY_API_KEY wins: it is the deliberate choice for this tool over a general key."""
    return env.get("TEDDY_API_KEY") or env.get(provider_variable) or None


def _base_url(
    settings: Settings, default: str, key: str | None, provider: str, key_variable: str
) -> str:
    configured = (settings.get("teddy.baseUrl") or "").strip()
    if configured and not configured.startswith(("http://", "https://")):
        raise ProviderError(
            f"teddy.baseUrl {configured!r} is not an http(s) URL",
            "e.g. `git config teddy.baseUrl http://localhost:11434/v1` for Ollama",
        )
    if not configured and key is None:
        # The public API always needs a key; a local server (Ollama...) may not.
        raise ProviderError(
            f"no API key for {provider}: set {key_variable} or TEDDY_API_KEY",
            f"export {key_variable}=... (keys are read from the environment only)",
        )
    return (configured or default).rstrip("/")


def _policy(settings: Settings) -> HttpPolicy:
    timeout = settings.get_int("teddy.timeout", DEFAULT_TIMEOUT)
    retries = settings.get_int("teddy.httpRetries", DEFAULT_RETRIES)
    delay = _float(settings, "teddy.retryDelay", DEFAULT_RETRY_DELAY)
    if timeout < 1 or retries < 0:
        raise ProviderError(
            "teddy.timeout must be at least 1 and teddy.httpRetries at least 0",
            f"e.g. `git config teddy.timeout {DEFAULT_TIMEOUT}`, "
            f"`git config teddy.httpRetries {DEFAULT_RETRIES}`",
        )
    return HttpPolicy(timeout=float(timeout), retries=retries, retry_delay=delay)


def _float(settings: Settings, key: str, default: float) -> float:
    value = settings.get(key)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0:
        raise ProviderError(
            f"{key} must be a number of seconds, not {value!r}",
            f"fix it with `git config {key} {default:g}` (or unset {env_name(key)})",
        )
    return number
