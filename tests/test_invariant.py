import pytest

from compaction_guard.errors import RegistryError
from compaction_guard.invariant import estimate_block_tokens, id_form, invariant_id, validate_text
from tests.support import CAP, READ_ONLY


def test_invariant_id_matches_the_seed_quickstart() -> None:
    assert invariant_id(READ_ONLY) == "2e3839289c22"
    assert invariant_id(CAP) == "bc6b15f05ff7"


def test_invariant_id_folds_cosmetic_differences() -> None:
    assert invariant_id("  the BUDGET cap for this run is $500 ") == invariant_id(CAP)


def test_invariant_id_keeps_values_apart() -> None:
    assert invariant_id("The budget cap for this run is $5000.") != invariant_id(CAP)
    assert id_form("Use v2.3.1 only") != id_form("Use v2.3.2 only")


def test_validate_text_refuses_non_strings() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        validate_text(42)


def test_validate_text_refuses_blank() -> None:
    with pytest.raises(RegistryError, match="must contain text"):
        validate_text("   \n")


def test_validate_text_names_a_lone_surrogate() -> None:
    with pytest.raises(RegistryError, match="lone surrogate at index 4"):
        validate_text("cap \ud800 here")


def test_estimate_block_tokens_is_chars_over_four() -> None:
    assert estimate_block_tokens("abcd") == 1
    assert estimate_block_tokens("abcde") == 2
