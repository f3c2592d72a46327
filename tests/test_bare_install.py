import subprocess
import sys

EXTRAS = ["numpy", "model2vec", "onnxruntime", "tokenizers", "langchain", "langchain_core",
          "agents", "openai", "anthropic"]


def test_import_loads_no_extra() -> None:
    code = (
        "import sys, compaction_guard, compaction_guard.group_trim, compaction_guard.receipt\n"
        "import compaction_guard.detectors\n"
        f"print(sorted(m for m in {EXTRAS!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
