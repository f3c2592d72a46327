"""The embedding layer: confirms that a constraint left no semantic trace, nothing else.

Cosine similarity is blind to negation and to $500 vs $5000, so this layer may only issue
DROPPED. See docs/DESIGN.md, "Detector chain" (promises 2 and 12).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from compaction_guard._extras import require
from compaction_guard.detectors.base import Abstain, Detector, LayerVerdict
from compaction_guard.errors import MissingExtraError
from compaction_guard.normalize import split_sentences, words
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from types import ModuleType

    from compaction_guard.invariant import Invariant
    from compaction_guard.view import SummaryView

__all__ = ["BUNDLED_MODEL", "DEFAULT_FLOOR", "DEFAULT_HUB_ID", "MODEL_ENV", "EmbeddingDetector"]

# Calibrated with the offline minilm-m2v-int8 model on 70 hand-made paraphrase pairs
# (tests/detectors/test_embedding.py); score = max cosine over sentences and adjacent pairs.
# Acronyms spelled out score like unrelated text (0.131 for "No PHI in Slack." against
# "Keep patient health records out of chat."), hence the acronym rule in `detect`. The 46
# other paraphrases: lowest 0.294, 0.299, 0.305; the 15 written after 0.25 was chosen:
# lowest 0.294. Rules buried verbatim in a long sentence: lowest 0.372. Off-topic text:
# -0.029 to 0.213; summaries of other agent work: 0.029 to 0.549 (91 of 528 pairs confirmed).
DEFAULT_FLOOR = 0.25
DEFAULT_HUB_ID = "minishlab/potion-base-8M"
# The model DEFAULT_FLOOR was calibrated on ships inside the package (8 MB, Apache-2.0, see
# its README.md), so `pip install ".[embeddings]"` gets a calibrated tier with no network.
BUNDLED_MODEL = Path(__file__).resolve().parents[1] / "models" / "minilm-m2v-int8"
MODEL_ENV = "COMPACTION_GUARD_EMBEDDING_MODEL"

_FEATURE = "the embedding tier"
_ACRONYM_CHARS = range(2, 7)
_EVIDENCE_CHARS = 240
_TRUTHY = frozenset({"1", "true", "yes", "on"})


class _Encoder(Protocol):
    """What the layer needs from a model: `encode(sentences) -> (n, dim) array`."""

    def encode(self, sentences: list[str], /, **kwargs: Any) -> Any:
        """Embed each sentence as one row."""
        ...


@dataclass(frozen=True, slots=True)
class _Units:
    """One view's sentences and their unit-length embeddings, encoded once per view."""

    sentences: tuple[str, ...]
    words: frozenset[str]  # casefolded, for the acronym check
    vectors: Any  # (n, dim) float32, rows of norm 1 (or 0 for sentences with no tokens)
    pair_norms: Any  # (n - 1,) norms of vectors[i] + vectors[i + 1]


class _NoModelError(Exception):
    """No weights could be located; the message says what to pass."""


class EmbeddingDetector(Detector):
    """Confirm absence when no sentence of the view is close to the constraint.

    Weights come from, first found: `model` (a loaded model2vec StaticModel or any object
    with a compatible `encode`); `model_path` (a directory, an installed package that ships
    one, or, only with `allow_network=True`, a hub id); the COMPACTION_GUARD_EMBEDDING_MODEL
    environment variable (read the same way); the bundled BUNDLED_MODEL, on which
    DEFAULT_FLOOR was calibrated. The network is used only when asked for, never by default.
    Issues DROPPED when the best cosine is below `floor`; abstains otherwise, and always
    when the rule names an acronym (PII, K8s) that the view does not contain.
    """

    layer = "embedding"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        model: _Encoder | None = None,
        floor: float = DEFAULT_FLOOR,
        allow_network: bool = False,
    ) -> None:
        if not -1.0 <= floor <= 1.0:
            raise ValueError(f"floor is a cosine similarity in [-1, 1], got {floor!r}")
        if model_path is None:
            model_path = os.environ.get(MODEL_ENV) or None
        if model_path is None and BUNDLED_MODEL.is_dir():
            model_path = BUNDLED_MODEL
        self.model_path = model_path
        self.floor = floor
        self.allow_network = allow_network
        self._model = model
        self._label = _model_label(model) if model is not None else _path_label(model_path)
        self._reason: str | None = None
        self._np: ModuleType | None = None
        self._cached: tuple[SummaryView, _Units] | None = None

    @property
    def unavailable(self) -> str | None:
        """Why the layer cannot run (loads the model on first call), or None."""
        self._ensure_loaded()
        return self._reason

    def detect(self, invariant: Invariant, view: SummaryView) -> LayerVerdict | Abstain:
        """Return DROPPED when every view sentence scores below `floor`, else Abstain."""
        self._ensure_loaded()
        if self._reason is not None:
            return Abstain(reason=self._reason)
        units = self._units(view)
        unmatched = sorted(a for a in _acronyms(invariant.text) if a.casefold() not in units.words)
        if unmatched:
            return Abstain(
                reason=(
                    f"the rule names {', '.join(unmatched)}, which the view does not contain; "
                    "a static model cannot match an acronym with its spelled-out form"
                ),
            )
        parts = split_sentences(invariant.text)
        probes = self._encode([invariant.text, *parts] if len(parts) > 1 else [invariant.text])
        if not probes.any():
            return Abstain(reason=f"{self._label} has no vocabulary for this constraint")
        if not units.sentences:
            return self._absent(score=0.0, best=None, units=units)
        score, best = self._best_match(probes, units)
        if score >= self.floor:
            return Abstain(
                reason=(
                    f"closest text scores {score:.3f}, not below the floor {self.floor}; "
                    "similarity cannot certify presence, so the question escalates"
                ),
                evidence={"model": self._label, "score": score, "best_sentence": best},
            )
        return self._absent(score=score, best=best, units=units)

    def _absent(self, *, score: float, best: str | None, units: _Units) -> LayerVerdict:
        evidence = {
            "model": self._label,
            "floor": self.floor,
            "best_sentence": best,
            "sentences": len(units.sentences),
        }
        return LayerVerdict(kind=Kind.DROPPED, rule="below_floor", evidence=evidence, score=score)

    def _best_match(self, probes: Any, units: _Units) -> tuple[float, str]:
        """Max cosine of any probe against any sentence or adjacent pair of sentences."""
        assert self._np is not None  # noqa: S101 - set by _ensure_loaded before any encode
        np = self._np
        sims = probes @ units.vectors.T  # (probes, n)
        row, col = np.unravel_index(int(np.argmax(sims)), sims.shape)
        score, best = float(sims[row, col]), units.sentences[col]
        if len(units.sentences) > 1:
            # The pair embedding is the normalised sum of two unit vectors, so its cosine
            # follows from the sentence cosines without a second encode pass.
            with np.errstate(divide="ignore", invalid="ignore"):
                pairs = (sims[:, :-1] + sims[:, 1:]) / units.pair_norms
            pairs = np.nan_to_num(pairs, nan=0.0, posinf=0.0, neginf=0.0)
            p_row, p_col = np.unravel_index(int(np.argmax(pairs)), pairs.shape)
            if float(pairs[p_row, p_col]) > score:
                score = float(pairs[p_row, p_col])
                best = f"{units.sentences[p_col]} {units.sentences[p_col + 1]}"
        return score, best[:_EVIDENCE_CHARS]

    def _units(self, view: SummaryView) -> _Units:
        """Encode the view's sentences once; later constraints reuse the result."""
        if self._cached is not None and (self._cached[0] is view or self._cached[0] == view):
            return self._cached[1]
        sentences = tuple(s for passage in view.passages for s in split_sentences(passage.text))
        assert self._np is not None  # noqa: S101 - set by _ensure_loaded before any encode
        np = self._np
        # Transcripts repeat lines (tool boilerplate, quoted rules): encode each text once.
        unique = {s: i for i, s in enumerate(dict.fromkeys(sentences))}
        encoded = self._encode(list(unique)) if unique else np.zeros((0, 1), "float32")
        vectors = encoded[[unique[s] for s in sentences]] if sentences else encoded
        pair_norms = np.linalg.norm(vectors[:-1] + vectors[1:], axis=1)
        vocabulary = frozenset(w.casefold() for p in view.passages for w in words(p.text))
        units = _Units(sentences, vocabulary, vectors, pair_norms)
        self._cached = (view, units)
        return units

    def _encode(self, sentences: list[str]) -> Any:
        assert self._model is not None  # noqa: S101 - set by _ensure_loaded
        assert self._np is not None  # noqa: S101 - set by _ensure_loaded
        np = self._np
        raw = self._model.encode(sentences, show_progress_bar=False, use_multiprocessing=False)
        vectors = np.asarray(raw, dtype="float32").reshape(len(sentences), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

    def _ensure_loaded(self) -> None:
        if self._reason is not None or (self._model is not None and self._np is not None):
            return
        try:
            self._np = require("numpy", extra="embeddings", feature=_FEATURE)
            if self._model is None:
                self._model = self._load()
        except (MissingExtraError, _NoModelError) as exc:
            self._reason = str(exc)
        except Exception as exc:  # noqa: BLE001 - weights and hub errors vary; the layer degrades
            self._reason = (
                f"{_FEATURE} could not load {self._label} ({type(exc).__name__}: {exc}); "
                "pass model_path= a directory holding a model2vec model "
                "(config.json, model.safetensors, tokenizer.json)"
            )

    def _load(self) -> _Encoder:
        model2vec = require("model2vec", extra="embeddings", feature=_FEATURE)
        folder = _local_folder(self.model_path)
        if folder is None:
            folder = self._hub_folder()
        model: _Encoder = model2vec.StaticModel.from_pretrained(folder)
        return model

    def _hub_folder(self) -> Path:
        """Resolve a hub id to a local snapshot, only when the caller allowed the network."""
        repo_id = DEFAULT_HUB_ID if self.model_path is None else os.fspath(self.model_path)
        if not self.allow_network:
            raise _NoModelError(_missing_model_reason(self.model_path))
        hub = require("huggingface_hub", extra="embeddings", feature=_FEATURE)
        offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUTHY
        try:
            folder = hub.snapshot_download(
                repo_id,
                local_files_only=offline,
                allow_patterns=["*.json", "*.safetensors", "README.md"],
            )
        except FileNotFoundError as exc:  # the hub's LocalEntryNotFoundError
            if not offline:
                raise
            raise _NoModelError(
                f"HF_HUB_OFFLINE is set and {repo_id!r} is not in the local hub cache; "
                "unset HF_HUB_OFFLINE or pass model_path= a local model directory",
            ) from exc
        return Path(folder)


def _acronyms(text: str) -> set[str]:
    """Short words with inner capitals or mixed digits: PII, EU, K8s, 2FA, v2."""
    found = set()
    for word in words(text):
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        if len(word) in _ACRONYM_CHARS and (mixed or any(c.isupper() for c in word[1:])):
            found.add(word)
    return found


def _local_folder(model_path: str | os.PathLike[str] | None) -> Path | None:
    """Return the directory named by `model_path` or by an installed package, if any."""
    if model_path is None:
        return None
    path = Path(model_path).expanduser()
    if path.is_dir():
        return path
    name = os.fspath(model_path)
    if not all(part.isidentifier() for part in name.split(".")):
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    return package_dir if (package_dir / "config.json").is_file() else None


def _missing_model_reason(model_path: str | os.PathLike[str] | None) -> str:
    if model_path is None:
        return (
            f"{_FEATURE} has no model (the bundled {BUNDLED_MODEL.name} is not installed "
            "here): pass model_path= a directory holding a model2vec model (config.json, "
            f"model.safetensors, tokenizer.json) or an installed package that ships one, set "
            f"{MODEL_ENV}, or pass allow_network=True to fetch {DEFAULT_HUB_ID!r} from the hub"
        )
    return (
        f"{_FEATURE} found no model at {os.fspath(model_path)!r}: it is neither a directory "
        "nor an installed package holding config.json, model.safetensors and tokenizer.json; "
        "fix the path, or pass allow_network=True to treat it as a hub id"
    )


def _path_label(model_path: str | os.PathLike[str] | None) -> str:
    return DEFAULT_HUB_ID if model_path is None else os.fspath(model_path)


def _model_label(model: object) -> str:
    name = getattr(model, "base_model_name", None)
    return name if isinstance(name, str) and name else type(model).__name__
