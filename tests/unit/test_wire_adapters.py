"""The adapter seam: every `api` a preset may name has exactly one wire adapter."""

from __future__ import annotations

from typing import get_args

from aish.endpoints import Api
from aish.llm.adapters import ADAPTER_NAMES, WireAdapter, adapter_for
from aish.llm.types import ModelTarget


def test_the_config_names_and_the_adapters_agree() -> None:
    assert set(get_args(Api)) == ADAPTER_NAMES


def test_each_api_gets_its_own_adapter() -> None:
    target = ModelTarget(name="t", endpoint="http://127.0.0.1:1/v1", model="m")
    urls = {}
    for api in get_args(Api):
        adapter = adapter_for(api)
        assert isinstance(adapter, WireAdapter)
        urls[api] = adapter.chat_url(target)
    assert urls == {
        "openai": "http://127.0.0.1:1/v1/chat/completions",
        "anthropic": "http://127.0.0.1:1/v1/messages",
    }
