"""What a newcomer relies on: a self-contained repository and an honest identity."""

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import compaction_guard

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# A relative path that climbs out of its folder (parent steps, then a name).
CLIMB = re.compile(r"(?:\.\./)+[\w.-]+")
# A script that anchors on the folder *above* the repository root.
ABOVE_ROOT = re.compile(r"\b(?:ROOT|REPO|HERE)\.parent\.parent\b|\b(?:ROOT|REPO)\.parent\b")
# Spelled in pieces, so this file does not trip its own check.
SIBLING = ".." + "/shared"
# Absolute paths of the machines this project is developed on.
MACHINE = re.compile(r"(?<![\w.])/(?:work|root|home)/[\w.-]+")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    files = []
    for name in filter(None, listed):
        path = ROOT / name
        if path.is_file() and b"\0" not in path.read_bytes()[:4096]:
            files.append(path)
    return files


def test_no_tracked_file_refers_to_a_path_outside_the_repository() -> None:
    """A fresh clone has no siblings: nothing may read a sibling folder or a machine's paths."""
    files = tracked_text_files()
    assert len(files) > 50  # the listing worked
    escapes = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CLIMB.finditer(text):
            target = (path.parent / match.group()).resolve()
            if not target.is_relative_to(ROOT):
                escapes.append(f"{path.relative_to(ROOT)}: {match.group()}")
        escapes += [f"{path.relative_to(ROOT)}: {m.group()}" for m in ABOVE_ROOT.finditer(text)]
        escapes += [f"{path.relative_to(ROOT)}: {m.group()}" for m in MACHINE.finditer(text)]
        if SIBLING in text:  # the folder the project was developed beside, by name
            escapes.append(f"{path.relative_to(ROOT)}: {SIBLING}")
    assert escapes == []


def test_the_escape_patterns_catch_what_they_are_for() -> None:
    # Spelled in pieces, so this file does not trip the check above.
    up = ".." + "/"
    assert CLIMB.search(f"model = '{up}shared/models/x'")
    assert ABOVE_ROOT.search("DEFAULT = REPO" + ".parent / 'shared'")
    assert MACHINE.search("open('/" + "work/shared/models')")
    assert not MACHINE.search("see docs/work/notes and https://example.org/home/page")


def test_version_is_one_number_everywhere() -> None:
    version = PYPROJECT["project"]["version"]
    assert version == "0.2.0"
    assert compaction_guard.__version__ == version
    assert metadata.version("compaction-guard") == version
    assert f"## {version}" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_all_extra_is_the_union_of_the_others_and_dev_is_not_an_extra() -> None:
    extras = dict(PYPROJECT["project"]["optional-dependencies"])
    everything = extras.pop("all")
    assert "dev" not in extras
    assert sorted(everything) == sorted({req for reqs in extras.values() for req in reqs})
    assert "pytest>=8" in PYPROJECT["dependency-groups"]["dev"]


def test_the_core_has_no_runtime_dependencies() -> None:
    assert PYPROJECT["project"]["dependencies"] == []


def test_readme_installs_from_this_repository_not_the_index() -> None:
    """The index's compaction-guard 0.1.0 is another project; the README must not send users there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # Allowed: `pip install 'compaction-guard[nli]'` (beside an installed 0.2.0 it only adds
    # the extra) and `compaction-guard @ git+URL`; not the bare name.
    assert not re.search(r"pip install ['\"]?compaction-guard(?![\w\[-]| @)", text)
    assert "pip install ." in text
    assert "unrelated" in text
