from __future__ import annotations

import time

import pytest

from compaction_guard.normalize import (
    contains_token,
    detection_form,
    fold_whitespace,
    mask_emphasis,
    sentence_spans,
    split_sentences,
    stem,
    tokenize,
    words,
)


def test_detection_form_folds_case_width_and_compatibility_forms() -> None:
    wide = "\uff2f\uff32\uff24\uff25\uff32\uff33"  # fullwidth ORDERS
    assert detection_form(f"{wide}_Prod \ufb01le") == "orders_prod file"


def test_detection_form_removes_zero_width_and_bidi_characters() -> None:
    assert detection_form("orders\u200b_prod\u202e\ufeff") == "orders_prod"


def test_detection_form_folds_typographic_dashes_and_quotes() -> None:
    assert (
        detection_form("read\u2011only \u201cquoted\u201d it\u2019s") == 'read-only "quoted" it\'s'
    )


def test_detection_form_keeps_value_punctuation_and_line_breaks() -> None:
    text = "Cap: $1,200.50 @ 5% on 2026-03-01\nsee a.b@c.io /etc/x_y"
    assert detection_form(text) == text.lower()


def test_fold_whitespace_joins_runs_and_strips_ends() -> None:
    assert fold_whitespace("  never\t\n write \u00a0 twice  ") == "never write twice"


def test_split_sentences_cuts_at_terminators_followed_by_space() -> None:
    assert split_sentences("Use v2.3.1. Cap is $1.5k! Done? yes") == [
        "Use v2.3.1.",
        "Cap is $1.5k!",
        "Done?",
        "yes",
    ]


def test_split_sentences_keeps_abbreviations_inside_a_sentence() -> None:
    assert split_sentences("Use a region, e.g. eu-west-1, for data. Next.") == [
        "Use a region, e.g. eu-west-1, for data.",
        "Next.",
    ]


def test_split_sentences_treats_each_line_as_its_own_statement() -> None:
    text = "Key decisions:\n- Budget cap is $500\n2. Never push to main\n## Next"
    assert split_sentences(text) == [
        "Key decisions:",
        "Budget cap is $500",
        "Never push to main",
        "Next",
    ]


def test_sentence_spans_point_into_the_text() -> None:
    text = "One. - Two three.\n\n  Four"
    assert [text[a:b] for a, b in sentence_spans(text)] == ["One.", "- Two three.", "Four"]


@pytest.mark.parametrize(
    "token",
    [
        "$1,200.50",
        "orders_prod_archive",
        "--force-with-lease",
        ".env.example",
        "#deploy-approvals-staging",
        "a.b@c.io",
        "https://x.io/a?b=1",
        "~/.ssh/id_rsa",
        "./run.sh",
        "10.0.0.0/8",
        "eu-west-1",
        "09:00",
        "5%",
        "v2.3.1",
    ],
)
def test_tokenize_keeps_value_and_identifier_tokens_whole(token: str) -> None:
    assert tokenize(f"use {token} now") == ["use", token, "now"]


def test_tokenize_splits_a_list_of_units_at_the_comma() -> None:
    assert tokenize("in kg, cm") == ["in", "kg", "cm"]


def test_tokenize_drops_sentence_punctuation_around_tokens() -> None:
    assert tokenize("(orders_prod.) $500, .env!") == ["orders_prod", "$500", ".env"]


def test_contains_token_ignores_case_and_width() -> None:
    assert contains_token("Never touch ORDERS_PROD.", "orders_prod")


def test_contains_token_rejects_an_identifier_extended_by_a_suffix() -> None:
    assert not contains_token("never touch orders_prod_archive", "orders_prod")


def test_contains_token_matches_a_phrase_only_when_contiguous() -> None:
    assert contains_token("the analytics warehouse", "Analytics warehouse")
    assert not contains_token("the analytics and marketing warehouse", "analytics warehouse")


def test_contains_token_refuses_an_empty_needle() -> None:
    assert not contains_token("anything", " ,. ")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("retry", "retries", "retried", "retrying"), "retry"),
        (("write", "writes", "writing", "written", "wrote"), "writ"),
        (("cap", "caps", "capped"), "cap"),
        (("approve", "approved", "approval"), "approv"),
        (("exceed", "exceeds", "exceeded"), "exceed"),
        (("decimal", "decimals"), "decim"),
        (("provision", "provisioned", "provisioning", "provisions"), "provis"),
        (("approval", "approvals"), "approv"),
        (("buy", "bought"), "buy"),
        (("freeze", "frozen", "froze"), "freez"),
    ],
)
def test_stem_folds_inflections_to_one_stem(words: tuple[str, ...], expected: str) -> None:
    assert {stem(word) for word in words} == {expected}


def test_stem_leaves_identifiers_and_short_words_alone() -> None:
    assert [stem("orders_prod"), stem("eu-west-1"), stem("logs"), stem("use")] == [
        "orders_prod",
        "eu-west-1",
        "log",
        "use",
    ]


def test_stem_reads_a_clipped_past_tense_as_its_verb() -> None:
    assert stem("cc'd") == stem("cc")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**never push.** next", "never push. next"),
        ("*keep 3 replicas.* backups", "keep 3 replicas. backups"),
        ("__never write orders_prod from ci.__ ok", "never write orders_prod from ci. ok"),
        ("run `terraform apply` now", "run terraform apply now"),
        ("to **payments-eu** only", "to payments-eu only"),
        ("_keep it\nshort_ ok", "keep it short ok"),
        ("_keep\nit short_ ok", "keep it short ok"),
    ],
)
def test_mask_emphasis_blanks_markers_around_a_span(text: str, expected: str) -> None:
    masked = mask_emphasis(text)
    assert len(masked) == len(text)
    assert fold_whitespace(masked) == expected


@pytest.mark.parametrize(
    "text",
    [
        "orders_prod and _private_ x",
        "edit __init__.py and __init__ only",
        "delete *.log or *.tmp* files",
    ],
)
def test_mask_emphasis_leaves_names_and_globs_alone(text: str) -> None:
    assert mask_emphasis(text) == text


def test_mask_emphasis_leaves_a_span_over_two_line_breaks_alone() -> None:
    assert mask_emphasis("_a b\nc d\ne_ x") == "_a b\nc d\ne_ x"


def test_mask_emphasis_reads_a_lone_underscore_in_a_long_line_in_linear_time() -> None:
    """A 200 KB line with one unclosed `_id` took minutes when the span search was quadratic."""
    line = "the job ran fine. " * 6000
    text = f"{line}the _id field {line}"
    started = time.perf_counter()
    assert mask_emphasis(text) == text
    assert time.perf_counter() - started < 2  # linear: milliseconds; quadratic: minutes


def test_split_sentences_ends_a_sentence_at_a_unit_after_a_number() -> None:
    assert split_sentences("latency over 800 ms. merges wait. ask ms. lee.") == [
        "latency over 800 ms.",
        "merges wait.",
        "ask ms. lee.",
    ]


def test_words_split_at_every_joiner_and_keep_case() -> None:
    text = "Pin v2.3.1 for EU-only K8s_pods, $500."
    assert words(text) == ["Pin", "v2", "3", "1", "for", "EU", "only", "K8s", "pods", "500"]
    assert tokenize(detection_form(text)) != [w.casefold() for w in words(text)]


@pytest.mark.parametrize(
    "text",
    [
        "eu-west-1 costs $1,200.50 at 09:00 (--force, ~/.ssh, ./run.sh, .env)",
        "v2.3.1 of orders_prod_archive: 10.0.0.0/8, 99.5% and <= 4 #deploys",
        "c++ and x+ on 1,000,0000 or 12,345.",
    ],
)
def test_tokenize_reads_plain_text_alike_beside_a_url_or_an_email(text: str) -> None:
    """Text with no URL or email is read by a shorter pattern; the tokens must not change."""
    assert tokenize(f"{text} ops@acme.io") == [*tokenize(text), "ops@acme.io"]
    assert tokenize(f"{text} https://acme.io/x") == [*tokenize(text), "https://acme.io/x"]
