"""`python -m compaction_guard`: the `compaction-guard` command."""

import sys

from compaction_guard.cli import main

if __name__ == "__main__":
    sys.exit(main())
