import importlib

import compaction_guard as cg

PUBLIC_MODULES = [
    "compaction_guard",
    "compaction_guard.group_trim",
    "compaction_guard.receipt",
    "compaction_guard.detectors",
    "compaction_guard.judges",
    "compaction_guard.testing",
]


def test_all_is_sorted_and_matches_public_names() -> None:
    public = {name for name in vars(cg) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(cg, name)).__name__ == "module"}
    # Order is ruff's RUF022 (constants, classes, functions), checked by `make lint`.
    assert len(set(cg.__all__)) == len(cg.__all__)
    assert set(cg.__all__) == public - modules


def test_public_modules_declare_all_and_dir() -> None:
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        exported = module.__all__
        for symbol in exported:
            assert hasattr(module, symbol), f"{name}.{symbol}"
        if name != "compaction_guard":
            assert sorted(dir(module)) == sorted(exported)


def test_seed_names_are_exported() -> None:
    for name in [
        "Guard", "check", "Kind", "Severity", "Policy", "Mode", "SEVERITY_ORDER",
        "GATING_KINDS", "Invariant", "Finding", "CompactionReport", "InvariantViolation",
        "BlockIntegrityError", "CodecError", "BudgetExceeded", "DuplicateInvariantId",
        "Detector", "JudgeFn",
    ]:
        assert hasattr(cg, name), name
