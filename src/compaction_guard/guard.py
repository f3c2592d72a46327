"""Guard: the registry, and the one call that wraps a compactor.

The only stateful module. `compact()` follows the numbered pipeline in docs/DESIGN.md,
"The composition in Guard.compact".
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from compaction_guard import block as _block
from compaction_guard import diff as _diff
from compaction_guard._budget import fit_to_budget
from compaction_guard._call import Call, elapsed_ms, run_compactor, start_call, validate_call
from compaction_guard._findings import check_pairing, detect, unverifiable
from compaction_guard._guard_receipt import open_receipt, seal_receipt
from compaction_guard._logging import log_report
from compaction_guard._policy import gates, refuse_if_gating
from compaction_guard._presence import (
    FOREIGN_BLOCK_MODES,
    find_authority,
    is_current_fast,
    is_editable,
    place_of,
    raise_unless_one_authority,
    stripped_places,
    verify_written_block,
    warn_foreign,
)
from compaction_guard._registry import Registry
from compaction_guard._token_counter import resolve_counter
from compaction_guard.codec import AutoCodec, ContextCodec, Rendering, try_render
from compaction_guard.detectors.base import DetectorChain
from compaction_guard.errors import CodecError, RegistryError
from compaction_guard.invariant import Invariant
from compaction_guard.receipt import resolve_key
from compaction_guard.report import (
    BlockBudget,
    BlockPlace,
    CompactionReport,
    Removal,
    excerpt,
)
from compaction_guard.taxonomy import Mode, Policy, Severity, Site
from compaction_guard.view import SummaryView

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from compaction_guard.detectors.base import Detector

__all__ = ["EMBEDDING_MODEL_ENV", "NLI_MODEL_ENV", "Guard", "check", "default_detectors"]



EMBEDDING_MODEL_ENV = "COMPACTION_GUARD_EMBEDDING_MODEL"
NLI_MODEL_ENV = "COMPACTION_GUARD_NLI_MODEL"


def default_detectors() -> list[Detector]:
    """Return the chain `Guard` uses when `detectors` is not given.

    Lexical always; the embedding tier reads the model named by
    COMPACTION_GUARD_EMBEDDING_MODEL, else the bundled one, and the NLI tier the directory
    named by COMPACTION_GUARD_NLI_MODEL; a tier whose extra or weights are missing stays
    unavailable with the reason (and install command) in each finding.
    """
    from compaction_guard.detectors.embedding import EmbeddingDetector  # noqa: PLC0415
    from compaction_guard.detectors.lexical import LexicalDetector  # noqa: PLC0415
    from compaction_guard.detectors.nli import NLIDetector  # noqa: PLC0415

    return [
        LexicalDetector(),
        EmbeddingDetector(model_path=os.environ.get(EMBEDDING_MODEL_ENV) or None),
        NLIDetector(model_dir=os.environ.get(NLI_MODEL_ENV) or None),
    ]


class Guard:
    """Keeps registered constraints in context across compaction and reports on each one.

    ```python
    guard = Guard(["The budget cap for this run is $500."])
    messages = guard.compact(messages, compactor=summarise)
    guard.assert_present(messages)  # before every model call
    ```
    Plain strings become BLOCK constraints. `detectors` replaces the default chain
    (lexical, then the embedding and NLI tiers when their extras and weights are here).
    `count_tokens(message) -> int` is the one token counter: it sizes the block (called on
    each block line, a str) and `compact(max_tokens=)` (each message); without it both use
    their character estimates. `token_estimator` is its deprecated, block-only spelling.
    `receipts` is a JSONL path: every `compact()` then seals one hash-chained receipt;
    `receipt_key` (bytes, or an environment variable's name) makes its digests HMAC-SHA256.
    """

    def __init__(
        self,
        invariants: Iterable[str | Invariant] = (),
        *,
        policy: Policy = Policy.REPAIR,
        detectors: Sequence[Detector] | None = None,
        codec: ContextCodec | None = None,
        fail_closed: bool = False,
        max_block_tokens: int = 1024,
        count_tokens: Callable[[Any], int] | None = None,
        token_estimator: Callable[[str], int] | None = None,
        on_report: Callable[[CompactionReport], object] | None = None,
        receipts: str | os.PathLike[str] | None = None,
        receipt_key: bytes | str | None = None,
        foreign_blocks: str = "raise",
    ) -> None:
        if isinstance(invariants, str) or not isinstance(invariants, Iterable):
            raise TypeError(
                "Guard() takes a list of constraints (strings or Invariants), got "
                f"{type(invariants).__name__}; wrap a single one: Guard([text])",
            )
        if isinstance(invariants, Mapping):
            raise RegistryError(
                "Guard() takes a list of constraints, got a mapping (iterating it would "
                "register its keys); pass list(mapping.values()), or Invariant(...) objects "
                "to keep your ids",
            )
        if foreign_blocks not in FOREIGN_BLOCK_MODES:
            raise ValueError(
                f"foreign_blocks must be 'raise' or 'report', got {foreign_blocks!r}",
            )
        self.foreign_blocks = foreign_blocks
        self.policy = Policy(policy)
        self.fail_closed = fail_closed
        self.max_block_tokens = max_block_tokens
        self.codec: ContextCodec = codec if codec is not None else AutoCodec()
        validate_call(self.codec, None, None)
        self.chain = DetectorChain(default_detectors() if detectors is None else detectors)
        self.on_report = on_report
        self.receipts = receipts
        # Read once, so a missing variable fails at construction, not mid-run.
        self._receipt_key = resolve_key(receipt_key)
        self.last_report: CompactionReport | None = None
        self.count_tokens, block_estimate = resolve_counter(count_tokens, token_estimator)
        self._registry = Registry(max_block_tokens=max_block_tokens, estimate=block_estimate)
        self._issued = False
        self._removed: list[Removal] = []
        for item in invariants:
            if isinstance(item, Invariant):
                self.add(item.text, id=item.id, severity=item.severity, source=item.source)
            else:
                self.add(item)

    # -- registry -------------------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        id: str | None = None,  # noqa: A002 - the seed's keyword
        severity: Severity = Severity.BLOCK,
        source: str | None = None,
    ) -> Invariant:
        """Register a constraint and return it.

        Raises DuplicateInvariantId when the id or the normalised text is registered,
        BudgetExceeded when the block would pass `max_block_tokens` (nothing is ever
        truncated), RegistryError for text a block cannot carry, TypeError for non-text.
        """
        return self._registry.add(text, custom_id=id, severity=severity, source=source)

    def remove(self, id: str, *, reason: str) -> Invariant:  # noqa: A002 - the seed's keyword
        """Unregister a constraint; the next report lists it under `removed` with `reason`."""
        invariant = self._registry.remove(id)
        self._removed.append(Removal(invariant_id=invariant.id, reason=reason))
        return invariant

    def invariants(self) -> tuple[Invariant, ...]:
        """Return the registered constraints in registration order."""
        return self._registry.invariants()

    @property
    def budget(self) -> BlockBudget:
        """Block tokens used by the registry out of `max_block_tokens`."""
        return BlockBudget(used=self._registry.used_tokens, limit=self.max_block_tokens)

    @property
    def block_checksum(self) -> str | None:
        """The checksum of the block the current registry renders to (None when empty)."""
        return self._registry.checksum

    # -- the block --------------------------------------------------------------------

    def reassertion_block(self) -> str:
        """Return the current sentinel block for the host to inject itself.

        From then on `assert_present` holds the context to it. Empty registry: "".
        """
        if not self._registry:
            return ""
        self._issued = True
        return self._registry.block_text()

    def summary_instructions(self) -> str:
        """Return a clause for the summariser's prompt that lists every constraint verbatim.

        It asks the summariser to carry each rule word for word or leave it out (the guard
        re-injects it), never to reword it. A request to the model, not a guarantee: the
        block stays the guarantee. Plain text, no block markers; empty registry: "".
        """
        if not self._registry:
            return ""
        rules = "\n".join(f"- {invariant.text}" for invariant in self.invariants())
        return f"{_INSTRUCTIONS_LEAD}\n{rules}\n{_INSTRUCTIONS_ASK}"

    @property
    def issued(self) -> bool:
        """Whether the guard has issued a block (by repair or `reassertion_block()`)."""
        return self._issued

    def assert_present(self, context: Any, *, codec: ContextCodec | None = None) -> None:
        """Raise BlockIntegrityError unless `context` carries the block the registry renders now.

        The block must be intact, current and the only guard-format text the model reads
        (another block, a bare `[block] <id> ::` line, in any message, part, tool result or
        thinking item, raises naming its place, unless `foreign_blocks="report"`). Before
        this guard placed a block, a context that holds every constraint verbatim also
        passes. Cost: a marker probe per message and one string compare; `codec` overrides
        the guard's codec for this call.
        """
        if not self._registry:
            return
        codec = codec or self.codec
        segments = codec.marked_segments(context)
        if is_current_fast(segments, self._registry.block_text()):
            return
        checksum = self._registry.checksum or ""
        authority = find_authority(segments, checksum)
        if not segments and not self._issued and self._holds_every_constraint(codec, context):
            return
        raise_unless_one_authority(
            authority, context, allow_foreign=self.foreign_blocks == "report", repin=_REPIN_HINT,
        )

    def _holds_every_constraint(self, codec: ContextCodec, context: Any) -> bool:
        """Whether every registered text sits verbatim in text the model reads (not tools)."""
        texts = [s.text for s in codec.render(context).segments if is_editable(s)]
        return all(any(inv.text in text for text in texts) for inv in self.invariants())

    # -- compaction -----------------------------------------------------------------

    def compact(
        self,
        context: Any,
        compactor: Callable[[Any], Any],
        *,
        max_tokens: float | None = None,
        method: str = "compactor",
        codec: ContextCodec | None = None,
    ) -> Any:
        """Run `compactor` on `context`, classify each constraint, apply the policy.

        Returns the compacted context (repaired under REPAIR, untouched under WARN).
        Raises InvariantViolation under RAISE on a gating finding (your `context` is
        untouched), CodecError for a shape it cannot read or write, and lets an
        exception from the compactor propagate. See `last_report` for the verdicts.
        `codec` overrides the guard's codec for this call (integrations use it).
        """
        # 0. Bad input fails here, before the compactor, the receipt or any rendering.
        call = start_call(
            compactor, context, codec=codec or self.codec, method=method, max_tokens=max_tokens,
        )
        # 1. Render the before side first: compactors may mutate their input. A context
        # the codec cannot read cannot be repaired either: only WARN goes on without it.
        before, before_error = try_render(call.codec, context)
        if before_error is not None and self.policy is not Policy.WARN and self._registry:
            raise CodecError(before_error)
        call.receipt = open_receipt(self.receipts, context, self._receipt_key)
        # 2. Run the compactor.
        after = run_compactor(call.compactor, context)
        if not self._registry:
            empty = CompactionReport(
                mode=Mode.OWNED, policy=self.policy, note="no invariants registered",
            )
            return self._seal_and_emit(empty, call, after)
        # 3. Diff and 4. detect: one finding per constraint; tool pairing of the output.
        draft, retained = self._classify(call.codec, before, before_error, after)
        draft = _replace(draft, pairing=check_pairing(after))
        # 5. Apply the policy: WARN observes, RAISE gates, REPAIR (and a clean RAISE)
        # re-injects the block; guard-format text the guard may not edit gates too.
        if self.policy is Policy.WARN:
            return self._seal_and_emit(self._observe(call.codec, draft, after), call, after)
        self._refuse_if_gating(draft, call)
        kept = frozenset() if draft.shape == "str" else retained
        output = self._repair(call.codec, after, keep=kept)
        draft = _replace(draft, repaired=True)
        # 6. Fit the budget: a group-safe trim to max_tokens; the block is never dropped.
        if max_tokens is not None:
            output, draft = fit_to_budget(
                output, draft, max_tokens, self._registry.block_text(),
                count_tokens=self.count_tokens,
            )
            self._verify_output(call.codec, output)
        draft = self._account_blocks(call.codec, draft, after, output, kept)
        self._refuse_if_gating(draft, call)
        warn_foreign(draft.foreign_blocks)
        # 7. Seal the receipt and 8. emit the report.
        return self._seal_and_emit(draft, call, output)

    def _observe(
        self, codec: ContextCodec, draft: CompactionReport, after: Any,
    ) -> CompactionReport:
        """Policy.WARN: name and log any rival guard-format text, change nothing."""
        draft = _replace(draft, foreign_blocks=self._foreign(codec, after))
        warn_foreign(draft.foreign_blocks)
        return draft

    def _refuse_if_gating(self, draft: CompactionReport, call: Call) -> None:
        """Policy.RAISE: emit the refused report, then raise InvariantViolation."""
        if self.policy is Policy.RAISE and gates(draft):
            refuse_if_gating(self.emit(_replace(draft, duration_ms=elapsed_ms(call.started))))

    def _foreign(self, codec: ContextCodec, context: Any) -> tuple[BlockPlace, ...]:
        """Name every guard-format text in `context` other than the one current block."""
        try:
            segments = codec.marked_segments(context)
        except CodecError:
            return ()  # an unreadable context: its findings are unverifiable already
        authority = find_authority(segments, self.block_checksum or "")
        return tuple(place_of(segment, what, context) for segment, what in authority.foreign)

    def _account_blocks(
        self, codec: ContextCodec, draft: CompactionReport, after: Any, output: Any,
        kept: frozenset[int],
    ) -> CompactionReport:
        """Record what repair removed from the compactor's text and what it had to leave."""
        foreign = self._foreign(codec, output)
        remaining = frozenset(
            s.text for s in codec.marked_segments(output) if not _block.is_only_blocks(s.text)
        ) if foreign else frozenset()
        stripped = stripped_places(codec.marked_segments(after), kept, remaining, after)
        return _replace(draft, foreign_blocks=foreign, stripped_blocks=stripped)

    def _classify(
        self,
        codec: ContextCodec,
        before: Rendering | None,
        before_error: str | None,
        after: Any,
    ) -> tuple[CompactionReport, frozenset[int]]:
        """Return the draft report and the indices of messages the compactor kept verbatim."""
        retained: frozenset[int] = frozenset()
        after_rendering, after_error = try_render(codec, after)
        invariants = self._registry.invariants()
        if after_rendering is None or before_error is not None:
            failure = after_error or before_error or "unreadable context"
            findings = unverifiable(invariants, failure, "codec.unrecognised")
            shape: str | None = None
            notes: tuple[str, ...] = (failure,)
        else:
            view = _diff.build_view(before, after_rendering, self._registry.texts())
            findings = detect(self.chain, invariants, view)
            shape, notes = after_rendering.shape, after_rendering.notes
            retained = frozenset(p.message for p in view.passages if p.site is Site.RETAINED)
        report = CompactionReport(
            mode=Mode.OWNED, findings=findings, policy=self.policy,
            block_checksum=self.block_checksum, fail_closed=self.fail_closed,
            shape=shape, note="; ".join(notes) or None,
        )
        return report, retained

    def check(self, summary_text: str) -> CompactionReport:
        """Classify every constraint against summary text you hold (mode `reasserted`).

        You inject `reassertion_block()` yourself; this only reports. Returns the report,
        also stored in `last_report` and passed to `on_report`.
        """
        if not isinstance(summary_text, str):
            raise TypeError(
                f"check() takes the summary text as a str, got {type(summary_text).__name__}",
            )
        started = time.perf_counter()
        stripped = _block.strip_current_blocks(summary_text, self.block_checksum)
        carried = frozenset(_diff.carried_ids(summary_text, self._registry.texts()))
        view = SummaryView(passages=SummaryView.from_summary(stripped).passages, carried=carried)
        note = None if self._registry else "no invariants registered"
        if not summary_text.strip():
            note = "the summary text is empty"
        report = CompactionReport(
            mode=Mode.REASSERTED, findings=detect(self.chain, self._registry.invariants(), view),
            policy=self.policy,
            block_checksum=self.block_checksum, fail_closed=self.fail_closed, shape="str",
            note=note,
        )
        return self.emit(_replace(report, duration_ms=elapsed_ms(started)))

    def report_unobserved(self, note: str) -> CompactionReport:
        """Record a compaction the guard could not see (mode `unobserved`).

        Every finding is `unverifiable`; integrations call this around opaque server-side
        compaction before re-asserting the block. Returns the emitted report.
        """
        findings = unverifiable(self._registry.invariants(), note, "mode.unobserved")
        report = CompactionReport(
            mode=Mode.UNOBSERVED, findings=findings, policy=self.policy,
            block_checksum=self.block_checksum, fail_closed=self.fail_closed, note=note,
        )
        return self.emit(report)

    def emit(self, report: CompactionReport) -> CompactionReport:
        """Attach pending removals and excerpts, log, store as `last_report`, call `on_report`.

        Returns the report as stored. Logging goes to the `compaction_guard` logger.
        """
        if self._removed:
            report = _replace(report, removed=(*report.removed, *self._removed))
            self._removed.clear()
        report = _with_excerpts(report, self._registry.invariants())
        log_report(report)
        self.last_report = report
        if self.on_report is not None:
            self.on_report(report)
        return report

    # -- internals ------------------------------------------------------------------

    def _repair(self, codec: ContextCodec, after: Any, *, keep: frozenset[int]) -> Any:
        block_text = self._registry.block_text()
        output = codec.inject(after, block_text, keep=keep)
        self._verify_output(codec, output)
        self._issued = True
        return output

    def _verify_output(self, codec: ContextCodec, output: Any) -> None:
        verify_written_block(
            codec, output, self._registry.block_text(), self.block_checksum or "",
        )

    def _seal_and_emit(self, draft: CompactionReport, call: Call, post: Any) -> Any:
        """Seal the receipt row (when receipts are on), emit the report; return `post`."""
        report = _replace(draft, duration_ms=elapsed_ms(call.started))
        if call.receipt is not None and self.receipts is not None:
            digest = seal_receipt(
                call.receipt, post, self.receipts, report,
                compactor=call.compactor, method=call.method,
            )
            report = _replace(report, receipt=digest)
        self.emit(report)
        return post


_INSTRUCTIONS_LEAD = "These rules are in force and must survive this summary exactly as written:"
_INSTRUCTIONS_ASK = (
    "Copy each rule above into the summary word for word, or leave it out entirely: it is "
    "re-inserted verbatim after the summary. Never reword, shorten, merge or soften a "
    "rule, and do not restate it with other values."
)

_REPIN_HINT = (
    "re-pin with guard.compact(context, compactor=lambda c: c), or inject "
    "guard.reassertion_block() into the context yourself"
)


def _replace(report: CompactionReport, **changes: Any) -> CompactionReport:
    return dataclasses.replace(report, **changes)


def _with_excerpts(report: CompactionReport, invariants: Sequence[Invariant]) -> CompactionReport:
    """Give each finding without one the first words of its registered constraint."""
    texts: dict[str, str] = {invariant.id: invariant.text for invariant in invariants}
    if all(f.excerpt is not None or f.invariant_id not in texts for f in report.findings):
        return report
    findings = tuple(
        f if f.excerpt is not None or f.invariant_id not in texts
        else dataclasses.replace(f, excerpt=excerpt(texts[f.invariant_id]))
        for f in report.findings
    )
    return _replace(report, findings=findings)


def check(invariants: Iterable[str | Invariant], summary_text: str) -> CompactionReport:
    """Classify `invariants` against `summary_text` without keeping a Guard around."""
    return Guard(invariants).check(summary_text)
