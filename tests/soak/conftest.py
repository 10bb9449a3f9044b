"""The e2e fixtures (an isolated home, terminals closed after the test), reused as they are."""

from ..e2e.conftest import aish_home, terminals

__all__ = ["aish_home", "terminals"]
