"""Bash brace expansion of comma lists: `-{delete,print}` becomes `-delete -print`.

Bash expands braces before anything else sees the words, so a rule about `-delete` must see
the expanded words. Only comma lists are expanded (sequences like `{1..50}` stay computed), with
a bound on how many words may come out.
"""

from __future__ import annotations

from itertools import pairwise

_MAX_BRACE_WORDS = 64


def expand_braces(text: str) -> list[str] | None:
    """Bash brace expansion of comma lists (nested too); None when it grows past a bound."""
    results = [text]
    for _ in range(_MAX_BRACE_WORDS):
        expanded: list[str] = []
        changed = False
        for word in results:
            parts = _first_brace_list(word)
            if parts is None:
                expanded.append(word)
                continue
            prefix, alternatives, suffix = parts
            expanded += [prefix + a + suffix for a in alternatives]
            changed = True
        results = expanded
        if len(results) > _MAX_BRACE_WORDS:
            return None
        if not changed:
            return results
    return None


def _first_brace_list(word: str) -> tuple[str, list[str], str] | None:
    i = 0
    while i < len(word):
        if word[i] == "\\":
            i += 2
            continue
        if word[i] == "{":
            depth, j, cuts = 1, i + 1, [i]
            while j < len(word) and depth:
                if word[j] == "\\":
                    j += 2
                    continue
                if word[j] == "{":
                    depth += 1
                elif word[j] == "}":
                    depth -= 1
                elif word[j] == "," and depth == 1:
                    cuts.append(j)
                j += 1
            if depth == 0 and len(cuts) > 1:
                cuts.append(j - 1)
                alternatives = [word[a + 1 : b] for a, b in pairwise(cuts)]
                return word[:i], alternatives, word[j:]
        i += 1
    return None
