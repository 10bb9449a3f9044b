"""aish: an AI-augmented conversational shell.

Importing this package must stay cheap: `aish --version` reads only `__version__`.
"""

__version__ = "0.1.0"
