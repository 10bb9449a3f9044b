"""`aish completion bash|zsh`: a completion script made from the command line's own parser.

Subcommands, their verbs (`aish memory export`) and every option are read from the argparse
parser, so the script can never fall behind the command line. zsh runs the bash script through
`bashcompinit`. The script completes words only; file names fall back to the shell's default.
"""

from __future__ import annotations

import argparse

# bashcompinit's `complete` needs compinit's `compdef`: loaded unless the user's .zshrc did.
_ZSH_PREAMBLE = """\
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -u; }
autoload -U +X bashcompinit && bashcompinit
"""


def completion_script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The script for `shell` (`bash` or `zsh`)."""
    script = _bash_script(parser)
    if shell == "zsh":
        return _ZSH_PREAMBLE + script
    return script


def _bash_script(parser: argparse.ArgumentParser) -> str:
    commands = _subcommands(parser)
    top = sorted([*commands, *_options(parser)])
    cases: list[str] = []
    for name, sub in sorted(commands.items()):
        verbs = _subcommands(sub)
        words = " ".join(sorted([*verbs, *_options(sub)]))
        cases.append(f'    {name}) words="{words}" ;;')
        for verb, inner in sorted(verbs.items()):
            cases.append(f'    {name}/{verb}) words="{" ".join(sorted(_options(inner)))}" ;;')
    body = "\n".join(cases)
    return f"""\
# aish completion (bash): source <(aish completion bash)
_aish() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" words="" key=""
  if [ "$COMP_CWORD" -le 1 ]; then
    words="{" ".join(top)}"
  else
    key="${{COMP_WORDS[1]}}"
    if [ "$COMP_CWORD" -ge 3 ]; then
      case "$key/${{COMP_WORDS[2]}}" in
{_indent(body, 6)}
      esac
    fi
    if [ -z "$words" ]; then
      case "$key" in
{_indent(body, 6)}
      esac
    fi
  fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}}
complete -o default -F _aish aish
"""


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Long options, `-h`, and the choices of positional arguments (`completion bash`)."""
    words: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        words += [o for o in action.option_strings if o.startswith("--") or o == "-h"]
        if not action.option_strings and action.choices:
            words += [str(choice) for choice in action.choices]
    return words


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * (spaces - 4) + line for line in text.splitlines())
