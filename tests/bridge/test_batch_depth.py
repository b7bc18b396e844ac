"""A batch with one over-deep entry answers that entry with its own error and every other
entry as usual (issue 40, item 9: one error object, its 999 valid entries no answer)."""

from __future__ import annotations

import orjson

from .helpers import ATTACK, request


def deep(depth: int) -> orjson.Fragment:
    return orjson.Fragment(("[" * depth + "1" + "]" * depth).encode())


def test_a_batch_with_one_over_deep_entry_answers_each_valid_entry(ask):
    batch = [request(i, "attack.resolve", {**ATTACK, "seed": i}) for i in range(999)]
    batch.insert(500, request("deep", "attack.resolve", {**ATTACK, "extra": deep(100)}))
    replies = ask(orjson.dumps(batch).decode())
    assert isinstance(replies, list) and len(replies) == 1000
    error = replies[500]["error"]
    assert replies[500]["id"] == "deep" and error["code"] == -32602
    assert error["data"]["path"].startswith("$.params.extra[0]")
    assert "max_depth" in error["data"]["reason"]
    assert [reply["id"] for reply in replies[:500] + replies[501:]] == list(range(999))
    assert all("result" in reply for reply in replies[:500] + replies[501:])
