"""The `llm` provider: plans through simonw's llm library and its installed plugins.

Optional (`pip install 'git-teddy[llm]'`): llm is imported only when this provider is chosen.
The model is `teddy.model`, an llm model id or alias (`llm models`, `llm aliases`), else llm's
own default model (`llm models default`); keys come from llm's key store (`llm keys set NAME`)
or the variable its plugin names. The reply is streamed when the model can (the UI's status
line counts the characters received); tokens are taken from llm's usage when the plugin
reports them, and `finish_reason`/`stop_reason` "length"/"max_tokens" marks a cut-off reply.
Whatever a plugin raises while answering is a ProviderError naming the model, never a
traceback, and a key it quotes is redacted.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from git_teddy.llm.base import ChatMessage, Completion, ProviderError, token_count
from git_teddy.llm.prices import cost_of
from git_teddy.redact import redact
from git_teddy.settings import MODEL, Settings
from git_teddy.ui import UI

INSTALL_HINT = "pip install 'git-teddy[llm]' (or `pip install llm` beside git-teddy)"


@dataclass
class LlmProvider:
    """One llm model; `handle` is the llm.Model (typed Any: llm is optional)."""

    model: str  # llm's model id
    handle: Any
    settings: Settings
    ui: UI
    name: str = "llm"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        import llm

        history = [llm.system(system)] + [
            llm.user(m.content) if m.role == "user" else llm.assistant(m.content) for m in messages
        ]
        try:
            response = self.handle.prompt(messages=history, stream=self.handle.can_stream)
            text = "".join(self._received(response))
            usage = response.usage()
            details = response.response_json
        except llm.NeedsKeyException as error:
            raise ProviderError(f"no key for the llm model {self.model}", str(error)) from None
        except Exception as error:  # a plugin's own error types (openai's, httpx's...)
            said = redact(f"{type(error).__name__}: {error}")[0]  # a key quoted back by an API
            raise ProviderError(
                f"the llm model {self.model} failed: {said}",
                "check the model with `llm -m MODEL 'hello'`; its plugin's documentation "
                "says what this error means",
            ) from None
        tokens_in, tokens_out = token_count(usage.input), token_count(usage.output)
        served = getattr(self.handle, "model_name", None) or self.model
        return Completion(
            text=text,
            model=self.model,
            provider=self.name,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost_of(self.settings, [self.model, served], tokens_in, tokens_out),
            truncated=is_cut_off(details),
        )

    def _received(self, response: Iterable[str]) -> Iterable[str]:
        received = 0
        try:
            for chunk in response:
                received += len(chunk)
                self.ui.status(f"llm {self.model}: {received} characters")
                yield chunk
        finally:
            if received:
                self.ui.end_status()


def is_cut_off(details: object) -> bool:
    """Whether the reply llm kept (`response_json`) says the output limit cut it."""
    if not isinstance(details, dict):
        return False
    reason = details.get("finish_reason") or details.get("stop_reason")
    return reason in ("length", "max_tokens")


def llm_provider(settings: Settings, ui: UI) -> LlmProvider:
    """The llm model `teddy.model` names (an id or an alias), else llm's default model."""
    try:
        import llm
    except ImportError:
        raise ProviderError(
            "teddy.provider is llm, but simonw's llm library is not installed",
            f"{INSTALL_HINT}; or choose another provider: `git config teddy.provider openai`",
        ) from None
    name = (
        settings.text(MODEL) if settings.found(MODEL) is not None else str(llm.get_default_model())  # type: ignore[no-untyped-call]
    )
    try:
        handle = llm.get_model(name)
    except llm.UnknownModelError:
        raise ProviderError(
            f"llm knows no model or alias {name!r} ({MODEL.key})",
            "`llm models` lists the ids, `llm aliases` the aliases; `llm install PLUGIN` adds "
            f"models; then `git config {MODEL.key} ID`",
        ) from None
    return LlmProvider(handle.model_id, handle, settings, ui)
