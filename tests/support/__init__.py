"""What several test files share: one scripted frontend, one fake REPL, one harness for
several real processes writing to one store. Helpers, not tests: no file here is named
`test_*`, so pytest imports them only when a test does (`from tests.support import …`).

Nothing here imports `aish.ui` at import time: the terminal frontend is what the tests stand in
for, and its modules move more often than the agent's protocols.
"""

from tests.support.fake_repl import FakeRepl
from tests.support.frontend import ScriptedFrontend
from tests.support.writers import Writer, integrity, start_together

__all__ = ["FakeRepl", "ScriptedFrontend", "Writer", "integrity", "start_together"]
