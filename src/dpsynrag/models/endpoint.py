"""An answering model behind an OpenAI-compatible chat-completions endpoint (vLLM, TGI, Ollama, llama.cpp
server, OpenAI itself).

Answering is post-processing of a synthetic corpus: the prompts hold the user's question and retrieved
*synthetic* texts only, so any endpoint may see them. :class:`OpenAIChatModel` has the two methods a
:class:`~dpsynrag.rag.RAGAnswerer` calls on a language model (:meth:`~OpenAIChatModel.chat_prompt`,
:meth:`~OpenAIChatModel.generate_greedy`), so it answers for ``query`` and ``serve`` in place of a local
model. It cannot build a corpus: private prediction needs next-token logits, which chat endpoints do
not return.

Protocol: ``POST {base_url}/chat/completions`` with ``{"model", "messages", "temperature": 0,
"max_tokens"}`` (OpenAI API reference, "Create chat completion"); the answer is
``choices[0].message.content``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from dpsynrag.errors import ConfigError, EndpointError

ChatPrompt = tuple[tuple[str, str], ...]
"""A prompt for an endpoint: ``((role, content), ...)`` with roles ``system`` and ``user``."""

_RETRY_STATUS = {429, 500, 502, 503, 504}


class OpenAIChatModel:
    """Greedy (temperature 0) answers from an OpenAI-compatible chat-completions endpoint.

    Thread-safe: one keep-alive HTTP client (httpx) is shared by every call.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended).
        model: the model name the endpoint serves (``--answer-model``).
        api_key: sent as ``Authorization: Bearer KEY`` (None: no header). Never logged.
        timeout: seconds per request.
        retries: further attempts after a connection error or a 429/5xx answer (0.5 s, 1 s, ... apart).
        concurrency: requests in flight at once in :meth:`generate_greedy`.

    Raises:
        ConfigError: ``base_url`` is not an http(s) URL, ``model`` is empty, or a bad number.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 120.0,
                 retries: int = 2, concurrency: int = 4):
        import httpx

        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"`--answer-endpoint` must be an http:// or https:// URL. Found {base_url!r}.")
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("`--answer-model` must name the model the endpoint serves (it is empty).")
        if timeout <= 0 or retries < 0 or concurrency < 1:
            raise ConfigError(f"`timeout` must be > 0, `retries` >= 0, `concurrency` >= 1. Found {timeout}, {retries}, {concurrency}.")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"{model} @ {self.base_url}"
        self.retries, self.concurrency = int(retries), int(concurrency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self._transport_errors = (httpx.TransportError,)

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def chat_prompt(self, user: str, *, system: str | None = None) -> ChatPrompt:
        """The messages of one turn: the system message (if any), then the user message."""
        return ((("system", system),) if system else ()) + (("user", user),)

    def generate_greedy(self, prompts: Sequence[ChatPrompt], *, max_new_tokens: int, batch_size: int | None = None,
                        progress: bool = False, stop_strings: Sequence[str] | None = None, **_) -> list[str]:
        """One greedy answer per prompt, in order.

        Args:
            prompts: from :meth:`chat_prompt`.
            max_new_tokens: ``max_tokens`` of each request (>= 1; tokens of the endpoint's tokenizer).
            batch_size, progress: accepted for interface compatibility with
                :meth:`dpsynrag.models.LanguageModel.generate_greedy`; requests run ``concurrency`` at a time.
            stop_strings: sent as ``stop``.

        Returns:
            The answers (``choices[0].message.content``; "" when the endpoint returns none).

        Raises:
            ConfigError: ``max_new_tokens`` < 1.
            EndpointError: the endpoint cannot be reached, answers with an error status after the retries,
                or returns a body that is not a chat completion.
        """
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ConfigError(f"`max_new_tokens` must be an integer >= 1. Found {max_new_tokens!r}.")
        stops = [s for s in (stop_strings or []) if s]
        if len(prompts) <= 1 or self.concurrency == 1:
            return [self._complete(p, max_new_tokens, stops) for p in prompts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts))) as pool:
            return list(pool.map(lambda p: self._complete(p, max_new_tokens, stops), prompts))

    def _complete(self, prompt: ChatPrompt, max_tokens: int, stops: list[str]) -> str:
        payload = {
            "model": self.model,
            "messages": [{"role": role, "content": content} for role, content in prompt],
            "temperature": 0,
            "max_tokens": max_tokens,
            **({"stop": stops} if stops else {}),
        }
        url = f"{self.base_url}/chat/completions"
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._client.post(url, json=payload)
            except self._transport_errors as exc:
                if last:
                    raise EndpointError(
                        f"cannot reach the answering endpoint {self.base_url} (--answer-endpoint): {type(exc).__name__}."
                    ) from None
            else:
                if response.status_code < 400:
                    return _content(response, self.base_url)
                if last or response.status_code not in _RETRY_STATUS:
                    raise EndpointError(
                        f"the answering endpoint {self.base_url} (--answer-endpoint, model {self.model!r}) answered "
                        f"HTTP {response.status_code}: {_error_message(response)}"
                    )
            time.sleep(0.5 * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover


def _content(response, base_url: str) -> str:
    try:
        content = response.json()["choices"][0]["message"].get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise EndpointError(
            f"the answering endpoint {base_url} (--answer-endpoint) did not return a chat completion "
            "(no choices[0].message): is it OpenAI-compatible, and does the URL end in /v1?"
        ) from None
    return (content or "").strip() if isinstance(content, str) or content is None else str(content)


def _error_message(response) -> str:
    """The endpoint's own error message (OpenAI's ``{"error": {"message"}}``), at most 200 characters."""
    try:
        body = response.json()
        err = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
        text = err.get("message", err) if isinstance(err, dict) else err
    except ValueError:
        text = response.text
    text = " ".join(str(text).split())
    return (text[:200] + "...") if len(text) > 200 else (text or "(no message)")
