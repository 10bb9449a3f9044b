"""The differential oracle for `safe` (issue 17): see `sandbox.py` for what counts as harm."""
