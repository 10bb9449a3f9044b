"""What `aish` exits with (`aish goal`'s statuses are documented in docs/commands.md)."""

from __future__ import annotations

EXIT_OK = 0

EXIT_FAILED = 1

EXIT_USAGE = 2

EXIT_HALTED = 3

EXIT_INTERNAL = 70

EXIT_INTERRUPTED = 130

EXIT_BROKEN_PIPE = 141
