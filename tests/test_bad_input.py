"""Bad input gets a clear error before any work: nothing runs, nothing is written."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import pytest

import compaction_guard as cg
from compaction_guard.detectors.lexical import LexicalDetector
from compaction_guard.receipt import verify_chain
from tests.support import CAP, READ_ONLY, chat

if TYPE_CHECKING:
    from pathlib import Path


class Spy:
    """A compactor that records whether it ran."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, context: Any) -> Any:
        self.calls += 1
        return context


def guard(tmp_path: Path, **kwargs: Any) -> cg.Guard:
    return cg.Guard([CAP], detectors=[LexicalDetector()], receipts=tmp_path / "r.jsonl", **kwargs)


def assert_nothing_happened(spy: Spy, tmp_path: Path, g: cg.Guard) -> None:
    assert spy.calls == 0
    assert not (tmp_path / "r.jsonl").exists()
    assert g.last_report is None


def tool_context(arguments_input: Any) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "count orders"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "count", "input": arguments_input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "3"}]},
    ]


@pytest.mark.parametrize("max_tokens", ["8000", -1, 0, True, float("nan"), float("inf")])
def test_bad_max_tokens_is_refused_before_the_compactor(tmp_path: Path, max_tokens: Any) -> None:
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(TypeError, match="max_tokens must be a positive number"):
        g.compact(chat("x"), compactor=spy, max_tokens=max_tokens)
    assert_nothing_happened(spy, tmp_path, g)


def test_max_tokens_on_a_context_it_cannot_trim_is_refused_before_the_compactor(
    tmp_path: Path,
) -> None:
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(cg.CodecError, match="max_tokens trimming works on lists"):
        g.compact("a plain string context", compactor=spy, max_tokens=100)
    assert_nothing_happened(spy, tmp_path, g)


def test_unreadable_context_shape_is_refused_before_the_compactor(tmp_path: Path) -> None:
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(cg.CodecError, match="the context is a set"):
        g.compact({"a", "b"}, compactor=spy)
    assert_nothing_happened(spy, tmp_path, g)


def test_a_codec_that_is_not_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="codec must be a ContextCodec"):
        guard(tmp_path, codec=object())
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(TypeError, match="codec must be a ContextCodec"):
        g.compact(chat("x"), compactor=spy, codec="auto")  # type: ignore[arg-type]
    assert_nothing_happened(spy, tmp_path, g)


def test_cyclic_tool_input_is_a_codec_error_naming_the_path(tmp_path: Path) -> None:
    loop: dict[str, Any] = {"week": "12"}
    loop["self"] = loop
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(cg.CodecError, match=r"message 1, content part 0: tool input contains "
                                              r"itself \(a cycle\) at \$\.self"):
        g.compact(tool_context(loop), compactor=spy)
    assert_nothing_happened(spy, tmp_path, g)


def test_very_deep_tool_input_is_a_codec_error_naming_the_path(tmp_path: Path) -> None:
    deep: Any = {}
    for _ in range(5000):
        deep = {"d": deep}
    g, spy = guard(tmp_path), Spy()
    with pytest.raises(cg.CodecError, match=r"nested deeper than 200 levels at \$(\.d)+"):
        g.compact(tool_context(deep), compactor=spy)
    assert_nothing_happened(spy, tmp_path, g)


def test_deep_tool_input_in_assert_present_is_a_codec_error_not_recursion() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    g = cg.Guard([CAP], detectors=[LexicalDetector()])
    with pytest.raises(cg.CodecError, match="nested deeper"):
        g.assert_present([*tool_context({"x": deep}), {"role": "user", "content": "[block]"}])


def test_dict_subclass_messages_are_messages(tmp_path: Path) -> None:
    g = guard(tmp_path)
    context = [OrderedDict(role="system", content="sys"), OrderedDict(role="user", content=CAP)]
    out = g.compact(context, compactor=lambda m: m)
    g.assert_present(out)
    g.assert_present([*context[:1], *[OrderedDict(m) for m in out[1:]]])
    assert g.last_report is not None
    assert g.last_report.findings[0].kind is cg.Kind.PRESERVED


def test_deep_nesting_with_receipts_does_not_block_a_compaction(tmp_path: Path) -> None:
    deep: Any = "leaf"
    for _ in range(150):
        deep = [deep]
    g = guard(tmp_path)
    context = [{"role": "user", "content": CAP, "metadata": deep}]
    out = g.compact(context, compactor=lambda m: m)
    g.assert_present(out)
    assert verify_chain(tmp_path / "r.jsonl").ok


class Message:
    def __init__(self, content: Any, role: str = "user") -> None:
        self.content = content
        self.role = role


def test_a_single_content_object_is_classified_like_a_list_of_one() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()], policy=cg.Policy.WARN)
    g.compact(Message(f"Notes. {CAP}"), compactor=lambda m: m)
    assert g.last_report is not None
    assert g.last_report.findings[0].kind is cg.Kind.PRESERVED
    assert g.last_report.shape == "content-objects"


def test_a_single_content_object_is_repaired_in_place() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()])
    out = g.compact(Message("Notes."), compactor=lambda m: m)
    assert isinstance(out, Message)
    assert out.content == f"Notes.\n\n{g.reassertion_block()}"
    g.assert_present(out)


# -- the registry -----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["\u200b\u200d", "\u2060 \ufeff", "\u00a0\u200e\u202e"])
def test_invisible_only_constraint_is_refused(text: str) -> None:
    with pytest.raises(cg.RegistryError, match="only invisible characters"):
        cg.Guard([text])


def test_a_mapping_of_constraints_is_refused_not_its_keys_registered() -> None:
    with pytest.raises(cg.RegistryError, match="got a mapping"):
        cg.Guard({"a": CAP})


def test_duplicate_text_error_names_the_earlier_constraint() -> None:
    g = cg.Guard([CAP])
    with pytest.raises(cg.DuplicateInvariantId, match="'The budget cap for this run is") as caught:
        g.add(CAP.upper())
    assert caught.value.invariant_id == g.invariants()[0].id
    assert "another id" not in str(caught.value)


def test_duplicate_id_error_names_the_earlier_constraint_and_how_to_replace_it() -> None:
    g = cg.Guard([])
    g.add(CAP, id="cap")
    with pytest.raises(cg.DuplicateInvariantId, match=r"'The budget cap.*remove\('cap'"):
        g.add(READ_ONLY, id="cap")


# -- pairing ----------------------------------------------------------------------------


def tool_chat() -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "q", "arguments": "{}"}}
    return [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": CAP},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "42 rows"},
        {"role": "user", "content": "go on"},
    ]


def orphaning(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A summariser that drops the call and keeps its result."""
    return [m for m in messages if "tool_calls" not in m]


def test_orphaned_tool_result_is_reported_under_repair() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()])
    out = g.compact(tool_chat(), compactor=orphaning)
    assert g.last_report is not None
    assert [(p.kind, p.message) for p in g.last_report.pairing] == [("orphan_result", 2)]
    assert any(m.get("role") == "tool" for m in out)  # reported, not silently dropped


def test_orphaned_tool_result_gates_under_raise() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()], policy=cg.Policy.RAISE)
    with pytest.raises(cg.InvariantViolation, match="orphan_result at message 2") as caught:
        g.compact(tool_chat(), compactor=orphaning)
    assert caught.value.report.pairing


def test_orphaned_tool_result_is_reported_under_warn_and_in_json() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()], policy=cg.Policy.WARN)
    g.compact(tool_chat(), compactor=orphaning)
    report = g.last_report
    assert report is not None
    assert cg.CompactionReport.from_json(report.to_json()).pairing == report.pairing


def test_clean_pairing_reports_nothing() -> None:
    g = cg.Guard([CAP], detectors=[LexicalDetector()])
    g.compact(tool_chat(), compactor=lambda m: m)
    assert g.last_report is not None
    assert g.last_report.pairing == ()
