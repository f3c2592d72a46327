"""`pip install ".[pydantic-ai]"` and the docs' pydantic-ai recipe, offline, in a new venv.

The new venv sees this environment's packages through a .pth file (no index is reachable),
so pip must resolve the extra from what is installed and build the package from this tree.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEEDED = ("pydantic_ai", "hatchling")

# Any socket connect fails in the child, as in this suite; then the example runs as a script.
OFFLINE_RUN = """
import runpy, socket, sys
def refuse(*_args, **_kwargs):
    raise OSError("network disabled in this test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
runpy.run_path(sys.argv[1], run_name="__main__")
"""


@pytest.mark.extras
@pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in NEEDED),
    reason="needs pydantic-ai-slim and hatchling installed (make dev)",
)
def test_pip_install_of_the_extra_runs_the_recipe_offline(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    Path(purelib, "dev-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-index", "--no-build-isolation", f"{ROOT}[pydantic-ai]"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr
    run = subprocess.run(
        [python, "-c", OFFLINE_RUN, str(ROOT / "examples" / "integrations_pydantic_ai.py")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "mode: owned | repaired: True" in run.stdout
    located = subprocess.run(
        [python, "-c", "import compaction_guard; print(compaction_guard.__file__)"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout
    assert located.startswith(str(env_dir))
