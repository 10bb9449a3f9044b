"""The bash walker and rules, the command classifier, tool-call verdicts and the secrets
scrubber. Pure code.

Knows nothing of terminals; imports nothing from the other rooms.
"""
