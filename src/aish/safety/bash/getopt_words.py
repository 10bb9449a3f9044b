"""Reading a program's words as getopt does, for the checks that need a program's own option
letters rather than the shared tables: bundles split into letters, a value-taking letter
ending its bundle (its value attached or the next word), long options by any unique prefix
(`--expr` for `--expression`), and which word holds the script a program runs.
"""

from __future__ import annotations

from collections.abc import Callable


def abbreviates(name: str, full: str) -> bool:
    """Whether `name` (a `--word` as typed, without `=value`) is `full` or a prefix of it, as
    getopt_long accepts."""
    return len(name) > 2 and full.startswith(name)


Getopt = tuple[list[tuple[str, str | None, int]], list[tuple[str | None, int]]]


def read_options(
    words: tuple[str | None, ...],
    short_values: str,
    long_values: tuple[str, ...],
    *,
    optional: str = "",
) -> Getopt:
    """Options as getopt reads them: (name, value, position) with `-x` letters split out of
    bundles and long names as typed; operands as (word, position). A letter in `short_values`
    (or a long name abbreviating one of `long_values`) takes the rest of its word or the next
    word; one in `optional` takes only the rest of its word. Options and operands mix, as GNU
    getopt permutes them (reading more words as options than an awk that stops at its program
    does). A value is None when it is computed or missing."""
    options: list[tuple[str, str | None, int]] = []
    operands: list[tuple[str | None, int]] = []
    i = 0
    while i < len(words):
        word, position = words[i], i
        i += 1
        if word is None or not word.startswith("-") or word == "-":
            operands.append((word, position))
            continue
        if word == "--":
            operands += [(w, p) for p, w in enumerate(words[i:], start=i)]
            break
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if not equals and any(abbreviates(name, full) for full in long_values):
                options.append((name, words[i] if i < len(words) else None, position))
                i += 1
            else:
                options.append((name, value if equals else None, position))
            continue
        for index, letter in enumerate(word[1:], start=2):
            if letter in short_values:
                attached = word[index:]
                following = words[i] if i < len(words) else None
                i += 0 if attached else 1
                options.append(("-" + letter, attached or following, position))
                break
            if letter in optional:
                options.append(("-" + letter, word[index:], position))
                break
            options.append(("-" + letter, None, position))
    return options, operands


def scripts_given(found: Getopt, is_script: Callable[[str], bool]) -> list[str | None]:
    """The scripts given by options (`-e`), or the first operand when none is; the first
    operand too when it stands before a script option (with POSIXLY_CORRECT, or in an awk that
    stops at the program, it is the script)."""
    options, operands = found
    given = [(value, position) for name, value, position in options if is_script(name)]
    scripts = [value for value, _ in given]
    first = operands[0] if operands else None
    if first is not None and (not given or first[1] < given[0][1]):
        scripts.append(first[0])
    return scripts


def spelled(name: str, spec: str) -> bool:
    """Whether the option `name`, as `read_options` reports it, is `spec` in manual spelling (a
    trailing `*` matches any suffix; a long option also by a unique prefix)."""
    if not spec.startswith("--"):
        return name == spec
    base = spec.removesuffix("*")
    return (spec.endswith("*") and name.startswith(base)) or abbreviates(name, base)
