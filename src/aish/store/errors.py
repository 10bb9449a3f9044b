"""The store's error types: one line each, meant to be printed by the caller as they are."""

from __future__ import annotations

from aish.errors import AishError


class StoreError(AishError):
    """The store cannot be opened or used; `str()` is one line that names the file."""

    def __init__(self, message: str) -> None:
        # Whatever sqlite or the OS said, the user gets a single line.
        super().__init__(" ".join(message.split()))


class StoreVersionError(StoreError):
    """The database was written by a newer aish: its schema version is higher than ours."""
