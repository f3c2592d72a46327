"""Throwaway virtualenvs holding earlier packages, for side-by-side timings only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"


def venv_python(name: str, requirement: str) -> Path | None:
    """Return the python of `bench/.cache/venv-<name>` with `requirement`, or None."""
    root = CACHE / f"venv-{name}"
    python = root / "bin" / "python"
    stamp = root / ".installed"
    if stamp.exists() and stamp.read_text() == requirement:
        return python
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", requirement],
                       check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        print(f"could not install {requirement}: {exc.stderr or exc}", file=sys.stderr)
        return None
    stamp.write_text(requirement)
    return python
