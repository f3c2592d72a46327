"""The embedding layer: lazy loading, offline sources, and absence-only verdicts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from compaction_guard.detectors import embedding
from compaction_guard.detectors.base import Abstain, Detector, DetectorChain, LayerVerdict
from compaction_guard.detectors.embedding import DEFAULT_FLOOR, EmbeddingDetector
from compaction_guard.invariant import Invariant
from compaction_guard.taxonomy import Kind, Site
from compaction_guard.view import Passage, SummaryView

if TYPE_CHECKING:
    from pathlib import Path

MakeInvariant = Callable[[str], Invariant]

# Hand-made (rule, paraphrase) pairs, in the order they were written. A first floor of 0.20
# from the first 35 was broken by acronym expansions in the next 20 (0.131, 0.182); the
# acronym rule and the floor of 0.25 come from those 55, and the last 15 were written
# afterwards as a held-out check.
PARAPHRASES = (
    (
        "The database orders_prod is production. Read-only queries only.",
        "Treat orders_prod as the live production DB and never write to it, only run SELECTs.",
    ),
    (
        "The budget cap for this run is $500.",
        "Spending for this session must stay under 500 dollars in total.",
    ),
    (
        "Never email customers directly; all outreach goes through the support queue.",
        "Do not contact clients by mail yourself, route every message via the support ticket queue.",
    ),
    (
        "Do not delete any files under /var/log.",
        "Files in /var/log must be left in place, no removals there.",
    ),
    (
        "Customer PII must not leave the EU region.",
        "Personal data about customers has to stay inside European Union data centres.",
    ),
    (
        "Limit API calls to the pricing service to 10 requests per minute.",
        "The pricing service may be called at most ten times each minute.",
    ),
    (
        "Only deploy to staging; production deploys need approval from the release manager.",
        "Ship to the staging environment only, since pushing to prod requires the release manager to sign off.",
    ),
    (
        "Retain audit logs for at least 400 days.",
        "Audit logs have to be kept for a minimum of 400 days.",
    ),
    (
        "Use Python 3.11 for all new services.",
        "Every newly created service should run on Python 3.11.",
    ),
    (
        "Do not retry failed payments more than 3 times.",
        "A failed payment may be retried three times at most.",
    ),
    (
        "All SQL must go through the read replica at replica.db.internal.",
        "Route every query to the read replica host replica.db.internal.",
    ),
    (
        "The maintenance window is Sunday 02:00-04:00 UTC; no changes outside it.",
        "Changes are only allowed during the Sunday 02:00-04:00 UTC maintenance slot.",
    ),
    (
        "Never commit secrets such as .env files to the repository.",
        "Credentials, including anything in .env, must never be checked into git.",
    ),
    (
        "Send the weekly report only to reports@acme.example.",
        "The weekly report goes to reports@acme.example and nobody else.",
    ),
    ("Keep GPU spend below 2,000 USD per month.", "Monthly GPU costs must not exceed 2,000 USD."),
    (
        "Do not modify the schema of the payments table.",
        "The payments table's schema has to stay exactly as it is, no ALTERs.",
    ),
    (
        "Use only approved vendors from the procurement list.",
        "Purchases may only go to vendors on the procurement department's approved list.",
    ),
    (
        "Timeouts for outbound HTTP calls must be 30 seconds or less.",
        "Any outgoing HTTP request needs a timeout no longer than 30 seconds.",
    ),
    (
        "Back up the analytics warehouse before any migration.",
        "Take a backup of the analytics warehouse prior to running migrations.",
    ),
    (
        "Never force-push to the main branch.",
        "Force pushes to main are not allowed under any circumstances.",
    ),
    (
        "Customer PII must not leave the EU region.",
        "Personally identifiable information about clients stays in Europe.",
    ),
    ("Do not use the prod DB for tests.", "Testing must never touch the production database."),
    ("The budget cap for this run is $500.", "Don't spend more than five hundred dollars."),
    (
        "Never force-push to the main branch.",
        "Rewriting history on main with git push --force is off limits.",
    ),
    (
        "Respond to P1 incidents within 15 minutes.",
        "Top-priority outages need an answer in a quarter of an hour.",
    ),
    (
        "All PRs need two approvals before merge.",
        "Every pull request must be reviewed and approved by 2 people before it is merged.",
    ),
    (
        "Use UTC timestamps in all logs.",
        "Log lines should carry times in Coordinated Universal Time.",
    ),
    (
        "Do not scrape LinkedIn.",
        "Collecting data from LinkedIn pages with a crawler is not permitted.",
    ),
    (
        "K8s pods must request no more than 4 GiB of memory.",
        "Each Kubernetes pod's memory request is capped at 4 GiB.",
    ),
    ("No PHI in Slack.", "Protected health information must never be posted in chat channels."),
    (
        "Rotate API keys every 90 days.",
        "Credentials for the API get replaced on a three-month cycle.",
    ),
    ("Keep the S3 bucket private.", "The storage bucket on AWS must not be publicly accessible."),
    (
        "Ask before running destructive shell commands like rm -rf.",
        "Get the user's OK before anything that deletes data from the terminal, e.g. rm -rf.",
    ),
    ("The SLA target is 99.9% uptime.", "We promised three nines of availability."),
    (
        "Only the on-call engineer may restart the billing cluster.",
        "Restarts of the billing cluster are reserved for whoever is on call.",
    ),
    (
        "Never run migrations on Friday afternoons.",
        "Schema migrations are banned on Friday after lunch.",
    ),
    (
        "Refunds above $250 require a manager's approval.",
        "A manager has to sign off on any refund over $250.",
    ),
    (
        "Do not share the staging credentials outside the platform team.",
        "Only the platform team may see the staging login details.",
    ),
    ("Cap each batch job at 8 CPU cores.", "No batch job should use more than 8 cores."),
    (
        "Store backups in two separate regions.",
        "Every backup must exist in a pair of distinct regions.",
    ),
    ("No PHI in Slack.", "Keep patient health records out of chat."),
    (
        "Use TLS 1.2 or newer for every external connection.",
        "External connections must be encrypted with TLS version 1.2 at minimum.",
    ),
    (
        "Translate user-facing strings before release.",
        "All text that customers see has to be localised prior to shipping.",
    ),
    (
        "Alert the SRE channel when error rate exceeds 2%.",
        "If more than 2% of requests fail, notify the site reliability engineers' channel.",
    ),
    (
        "Do not print API tokens in logs.",
        "Secrets such as API tokens must never appear in log output.",
    ),
    (
        "Require SSO for the admin console.",
        "Administrators must sign in to the console through single sign-on.",
    ),
    (
        "No PII in support tickets.",
        "Never paste personal identifying details into helpdesk requests.",
    ),
    ("Keep all data in the EU.", "Everything must be stored within the European Union."),
    (
        "Get CFO sign-off for contracts over $50k.",
        "Contracts above $50k need approval from the chief financial officer.",
    ),
    (
        "ETL jobs run only at night.",
        "Extract-transform-load pipelines may execute after dark only.",
    ),
    ("Don't touch the CI config.", "Leave the continuous integration settings alone."),
    ("Use 2FA on every account.", "Two-factor authentication is mandatory for all logins."),
    ("Answer in English only.", "All replies have to be written in English."),
    (
        "Never reboot the primary during business hours.",
        "The main server must not be restarted while the office is open.",
    ),
    ("Keep PRs under 400 lines.", "Pull requests should stay below 400 changed lines."),
    ("Never delete user accounts.", "Removing anybody's login profile is forbidden."),
    ("Keep responses short.", "Answers should be brief."),
    ("Do not merge without green builds.", "Code may only land once the pipeline passes."),
    ("Ask the user before spending money.", "Get consent prior to any purchase."),
    (
        "Prefer composition over inheritance.",
        "Build objects by combining parts rather than subclassing.",
    ),
    (
        "Only contact vendors by phone after 9am.",
        "Calls to suppliers must wait until nine in the morning.",
    ),
    ("Do not reformat unrelated code.", "Leave the style of untouched files alone."),
    ("Invoices must be paid within 30 days.", "Bills are due no later than 30 days after issue."),
    (
        "Staging data is synthetic; never copy production records into it.",
        "Real customer rows must not be imported into the test environment, which holds fake data only.",
    ),
    (
        "Write commit messages in the imperative mood.",
        "Phrase each commit summary as a command, like 'Add parser'.",
    ),
    (
        "Don't expose internal hostnames in public docs.",
        "Names of our private servers must stay out of documentation anyone can read.",
    ),
    (
        "Escalate outages to the incident commander.",
        "When the service is down, hand the situation to whoever leads incident response.",
    ),
    ("The freeze starts on December 15.", "No deploys from the 15th of December onward."),
    ("Keep secrets in the vault.", "Passwords and keys are stored only in the secrets manager."),
    (
        "Avoid blocking calls in the event loop.",
        "Nothing synchronous that waits should run inside the async loop.",
    ),
)

# Summaries of agent work on other matters; the rule left no trace in them.
WORK_SUMMARIES = (
    "Summary: we traced late shipments to a timezone bug in the nightly export and drafted a fix for review.",
    "The agent refactored the billing module, added unit tests for proration, and opened a pull request.",
    "We upgraded the web server, restarted the workers, and verified the health checks pass.",
    "The team benchmarked three caching strategies and picked write-through for the catalogue service.",
    "The user asked for a summary of last quarter's sales; the agent produced a chart of revenue by month.",
    "We cleaned up the README, fixed two typos in the onboarding guide and renamed the docs folder.",
    "The customer reported a broken checkout page; we reproduced it in Firefox and filed a ticket.",
    "We drafted the quarterly newsletter and scheduled it for Tuesday morning.",
)

# Text about something else entirely, each paired with a rule it says nothing about.
OFF_TOPIC = (
    (
        "Refunds above $250 require a manager's approval.",
        "The hikers followed the ridge trail to the summit and camped beside a lake.",
    ),
    (
        "Never run migrations on Friday afternoons.",
        "The orchestra rehearsed the second movement and the violins tuned their strings.",
    ),
    (
        "The budget cap for this run is $500.",
        "We talked about our favourite novels. She loves mystery stories and he prefers poetry.",
    ),
    (
        "Do not delete any files under /var/log.",
        "The kids built a sandcastle on the beach and watched the seagulls.",
    ),
    (
        "Never force-push to the main branch.",
        "The cat slept in the sun all afternoon while rain fell over the hills.",
    ),
    (
        "The database orders_prod is production. Read-only queries only.",
        "We planned a birthday picnic in the park with sandwiches, lemonade and games for the children.",
    ),
)


def _view(*texts: str, site: Site = Site.SUMMARY) -> SummaryView:
    return SummaryView(
        passages=tuple(Passage(text=t, site=site, message=i) for i, t in enumerate(texts))
    )


class _BagOfWords:
    """A tiny encoder: one dimension per known word; records every call."""

    def __init__(self, vocabulary: list[str]) -> None:
        self.vocabulary = vocabulary
        self.calls: list[list[str]] = []

    def encode(self, sentences: list[str], /, **_: Any) -> Any:
        import numpy as np

        self.calls.append(list(sentences))
        out = np.zeros((len(sentences), len(self.vocabulary)), dtype="float32")
        for row, sentence in enumerate(sentences):
            for word in sentence.lower().replace(".", " ").split():
                if word in self.vocabulary:
                    out[row, self.vocabulary.index(word)] += 1
        return out


@pytest.fixture
def numpy_installed() -> None:
    pytest.importorskip("numpy", reason="the [embeddings] extra is not installed")


def test_embedding_detector_subclasses_the_protocol() -> None:
    assert Detector in EmbeddingDetector.__mro__
    assert EmbeddingDetector.layer == "embedding"


@pytest.mark.parametrize("module", ["model2vec", "numpy"])
def test_embedding_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    reason = EmbeddingDetector(tmp_path).unavailable
    assert reason is not None
    assert f"needs {module};" in reason
    assert "pip install 'compaction-guard[embeddings]'" in reason


def test_embedding_missing_extra_abstains_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_invariant: MakeInvariant
) -> None:
    monkeypatch.setitem(sys.modules, "model2vec", None)
    outcome = EmbeddingDetector(tmp_path).detect(make_invariant("Budget cap $500."), _view("x"))
    assert isinstance(outcome, Abstain)
    assert "pip install 'compaction-guard[embeddings]'" in outcome.reason


def test_embedding_chain_skips_missing_extra_and_records_the_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_invariant: MakeInvariant
) -> None:
    monkeypatch.setitem(sys.modules, "model2vec", None)
    result = DetectorChain([EmbeddingDetector(tmp_path)]).run(
        make_invariant("Budget cap $500."), _view("x")
    )
    assert result.decided_by == "chain.exhausted"
    assert "pip install 'compaction-guard[embeddings]'" in result.trail[0]["skipped"]


def test_embedding_module_imports_without_extras() -> None:
    code = (
        "import sys\n"
        "sys.modules['numpy'] = None\n"
        "sys.modules['model2vec'] = None\n"
        "from compaction_guard.detectors.embedding import EmbeddingDetector\n"
        "print(EmbeddingDetector().unavailable)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'compaction-guard[embeddings]'" in done.stdout


@pytest.mark.usefixtures("m2v_dir")
def test_embedding_without_a_source_says_what_to_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build without the bundled model, no path and no env var: the reason names all three."""
    monkeypatch.delenv(embedding.MODEL_ENV, raising=False)
    monkeypatch.setattr(embedding, "BUNDLED_MODEL", tmp_path / "not-bundled")
    reason = EmbeddingDetector().unavailable
    assert reason is not None
    assert "model_path=" in reason
    assert embedding.MODEL_ENV in reason
    assert "allow_network=True" in reason


@pytest.mark.usefixtures("m2v_dir")
def test_embedding_with_no_argument_loads_the_bundled_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(embedding.MODEL_ENV, raising=False)
    detector = EmbeddingDetector()
    assert detector.model_path == embedding.BUNDLED_MODEL
    assert detector.unavailable is None


@pytest.mark.usefixtures("m2v_dir")
def test_embedding_env_var_names_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(embedding.MODEL_ENV, os.fspath(tmp_path / "absent"))
    detector = EmbeddingDetector()
    assert detector.model_path == os.fspath(tmp_path / "absent")
    reason = detector.unavailable
    assert reason is not None
    assert "found no model" in reason


def test_bundled_model_keeps_its_provenance_and_licence() -> None:
    """The weights are redistributed under Apache-2.0: the notice and licence travel with them."""
    folder = embedding.BUNDLED_MODEL
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in folder.iterdir()}
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "Provenance" in readme
    assert "Apache-2.0" in readme
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.usefixtures("m2v_dir")
def test_embedding_missing_path_is_not_sent_to_the_hub(tmp_path: Path) -> None:
    reason = EmbeddingDetector(tmp_path / "absent").unavailable
    assert reason is not None
    assert "found no model" in reason
    assert "allow_network=True" in reason


@pytest.mark.usefixtures("m2v_dir")
def test_embedding_hub_id_respects_the_offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    detector = EmbeddingDetector("example-org/not-a-cached-model", allow_network=True)
    reason = detector.unavailable
    assert reason is not None
    assert "HF_HUB_OFFLINE" in reason


def test_embedding_loads_a_local_directory(m2v_dir: Path) -> None:
    assert EmbeddingDetector(m2v_dir).unavailable is None


def test_embedding_loads_an_installed_package(
    m2v_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cg_test_weights"
    shutil.copytree(m2v_dir, package)
    (package / "__init__.py").write_text("")
    # Stands in for a pip-installed package that ships the weights.
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    assert EmbeddingDetector("cg_test_weights").unavailable is None


def test_embedding_unreadable_weights_are_unavailable_with_the_fix(
    m2v_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(m2v_dir, broken)
    (broken / "model.safetensors").write_bytes(b"not a tensor file")
    reason = EmbeddingDetector(broken).unavailable
    assert reason is not None
    assert "could not load" in reason
    assert "model_path=" in reason


def test_embedding_floor_outside_cosine_range_raises() -> None:
    with pytest.raises(ValueError, match="floor"):
        EmbeddingDetector(floor=1.5)


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_encodes_each_view_once(make_invariant: MakeInvariant) -> None:
    model = _BagOfWords(["budget", "cap", "weather", "sunny"])
    detector = EmbeddingDetector(model=model)
    view = _view("The weather is sunny. Sunny again.", "More weather.")
    for text in ("Budget cap.", "Budget.", "Cap."):
        detector.detect(make_invariant(text), view)
    view_calls = [call for call in model.calls if len(call) == 3]
    assert view_calls == [["The weather is sunny.", "Sunny again.", "More weather."]]


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_confirms_absence_below_floor_with_evidence(
    make_invariant: MakeInvariant,
) -> None:
    detector = EmbeddingDetector(model=_BagOfWords(["budget", "cap", "weather", "sunny"]))
    outcome = detector.detect(make_invariant("Budget cap."), _view("The weather is sunny."))
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.DROPPED
    assert outcome.score == 0.0
    assert outcome.evidence["best_sentence"] == "The weather is sunny."
    assert outcome.evidence["model"] == "_BagOfWords"


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_empty_view_confirms_absence(make_invariant: MakeInvariant) -> None:
    detector = EmbeddingDetector(model=_BagOfWords(["budget"]))
    outcome = detector.detect(make_invariant("Budget."), SummaryView(passages=()))
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.DROPPED


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_rule_outside_the_vocabulary_abstains(make_invariant: MakeInvariant) -> None:
    detector = EmbeddingDetector(model=_BagOfWords(["weather"]))
    outcome = detector.detect(make_invariant("Budget cap."), _view("The weather."))
    assert isinstance(outcome, Abstain)
    assert "no vocabulary" in outcome.reason


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_rule_split_over_two_sentences_is_not_absent(
    make_invariant: MakeInvariant,
) -> None:
    """Each sentence alone scores 0.71; the adjacent pair scores 1.0, above the floor."""
    detector = EmbeddingDetector(model=_BagOfWords(["budget", "cap"]), floor=0.8)
    outcome = detector.detect(make_invariant("budget cap"), _view("Budget. Cap."))
    assert isinstance(outcome, Abstain)
    assert outcome.evidence["best_sentence"] == "Budget. Cap."


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_acronym_missing_from_view_abstains(make_invariant: MakeInvariant) -> None:
    detector = EmbeddingDetector(model=_BagOfWords(["pii", "personal"]))
    outcome = detector.detect(make_invariant("No PII here."), _view("Personal data stays."))
    assert isinstance(outcome, Abstain)
    assert "PII" in outcome.reason


@pytest.mark.usefixtures("numpy_installed")
def test_embedding_acronym_present_in_view_is_scored(make_invariant: MakeInvariant) -> None:
    detector = EmbeddingDetector(model=_BagOfWords(["budget", "weather"]))
    outcome = detector.detect(make_invariant("Budget for the EU."), _view("Weather in the eu."))
    assert isinstance(outcome, LayerVerdict)


@pytest.mark.parametrize(("rule", "paraphrase"), PARAPHRASES)
def test_embedding_never_confirms_absence_of_a_paraphrase(
    m2v_model: Any, make_invariant: MakeInvariant, rule: str, paraphrase: str
) -> None:
    detector = EmbeddingDetector(model=m2v_model)
    view = _view(f"{WORK_SUMMARIES[0]} {paraphrase} {WORK_SUMMARIES[1]}")
    assert isinstance(detector.detect(make_invariant(rule), view), Abstain)


@pytest.mark.parametrize(("rule", "paraphrase"), PARAPHRASES)
def test_embedding_never_confirms_absence_of_a_lone_paraphrase(
    m2v_model: Any, make_invariant: MakeInvariant, rule: str, paraphrase: str
) -> None:
    detector = EmbeddingDetector(model=m2v_model)
    assert isinstance(detector.detect(make_invariant(rule), _view(paraphrase)), Abstain)


@pytest.mark.parametrize("rule", sorted({rule for rule, _ in PARAPHRASES}))
def test_embedding_never_confirms_absence_of_verbatim_text(
    m2v_model: Any, make_invariant: MakeInvariant, rule: str
) -> None:
    detector = EmbeddingDetector(model=m2v_model)
    buried = (
        "Key decisions so far: we fixed the export job, agreed to rotate the on-call rota weekly, "
        f"and noted that {rule[0].lower()}{rule[1:-1]}, while the dashboard work continues next "
        "sprint with the design team and marketing."
    )
    view = _view(WORK_SUMMARIES[2], buried, WORK_SUMMARIES[3], site=Site.RETAINED)
    assert isinstance(detector.detect(make_invariant(rule), view), Abstain)


@pytest.mark.parametrize(("rule", "summary"), OFF_TOPIC)
def test_embedding_confirms_absence_in_an_off_topic_summary(
    m2v_model: Any, make_invariant: MakeInvariant, rule: str, summary: str
) -> None:
    outcome = EmbeddingDetector(model=m2v_model).detect(make_invariant(rule), _view(summary))
    assert isinstance(outcome, LayerVerdict)
    assert outcome.kind is Kind.DROPPED
    assert outcome.score is not None
    assert outcome.score < DEFAULT_FLOOR


def test_embedding_decides_dropped_in_the_chain(
    m2v_dir: Path, make_invariant: MakeInvariant
) -> None:
    rule, summary = OFF_TOPIC[0]
    result = DetectorChain([EmbeddingDetector(m2v_dir)]).run(make_invariant(rule), _view(summary))
    assert result.decided_by == "embedding.below_floor"
    assert result.verdict.evidence["model"] == os.fspath(m2v_dir)
