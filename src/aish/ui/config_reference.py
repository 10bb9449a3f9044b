"""`python -m aish.ui.config_reference > docs/config.md`: writes the generated config reference.

The reference itself is built by `aish.config.reference` (pure); printing it is the terminal's
side, so it lives here.
"""

from __future__ import annotations

from aish.config.reference import render_reference


def main() -> int:
    print(render_reference(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
