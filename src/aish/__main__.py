"""`python -m aish` is the same as the `aish` console script."""

from aish.cli import main

raise SystemExit(main())
