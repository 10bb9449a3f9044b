"""Where the development corpora live: outside the repository, found the same way by every test.

`$AISH_CORPUS_DIR`, else `<repo>/../shared/corpus`, else the workplace's `/work/shared/corpus`
(CI runs on a clean clone that may live elsewhere on the same machine).
"""

from __future__ import annotations

import os
from pathlib import Path


def corpus_file(name: str) -> Path | None:
    repo = Path(__file__).resolve().parents[1]
    candidates = [Path(os.environ["AISH_CORPUS_DIR"])] if os.environ.get("AISH_CORPUS_DIR") else []
    candidates += [repo.parent / "shared" / "corpus", Path("/work/shared/corpus")]
    for directory in candidates:
        if (directory / name).is_file():
            return directory / name
    return None
