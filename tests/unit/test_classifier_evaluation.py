"""Data read at run time that bash evaluates as code, and changes to the live shell's tables.

Bash evaluates arithmetic recursively: a value such as `a[$(rm -rf data)]` read from a file runs
its command when it reaches `$((…))`, `(( ))`, `let`, `[[ -eq ]]`, a subscript, a substring
offset, an indirect name or `test -v`. A line is `safe` only when every name such a site reads is
one the line itself sets to a number (or a plain name, for `${!x}`) before it, unconditionally.
Defining a function, assigning the shell's own tables (BASH_CMDS, BASH_ALIASES, PATH …) or
removing a function changes what later commands run, so it is never `safe` either.

Each row is (command, expected level, a fragment the reasons must contain).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aish.safety.bash.arithmetic import read_arithmetic
from aish.safety.classifier import classify

# The cases, each judged safe before and run the payload.
REPORTED = [
    ("read -r n < f; echo $((n+1))", "unknown", "evaluates n as arithmetic"),
    ("[[ $(cat f) -eq 1 ]]", "unknown", "evaluates $(cat f)"),
    ("declare -i y=$(cat f)", "unknown", "integer attribute"),
    ("echo ${a[$(cat f)]}", "unknown", "subscript"),
    ("while read -r n; do (( n > 3 )); done < f", "unknown", "evaluates n"),
    ('read -r x < f; echo "${!x}"', "unknown", "takes a variable name from x"),
    ('read -r x < f; printf -v "$x" hi', "unknown", "computed"),
    ('read -r x < f; test -v "$x"', "unknown", "test -v"),
    ("read -r x < f; for ((i=0;i<x;i++)); do :; done", "unknown", "evaluates x"),
    ("read -r x < f; echo $[x]", "unknown", "evaluates x"),
    ("echo ${x:$(cat f)}", "unknown", "offset"),
]

# The same families, spelled the ways a hostile model would try.
ARITHMETIC = [
    ("echo $((n))", "unknown", "evaluates n"),
    ("echo $(( n ))", "unknown", "evaluates n"),
    ('echo "$((n))"', "unknown", "evaluates n"),
    ("echo $(($n))", "unknown", "evaluates n"),
    ("echo $((${n}))", "unknown", "evaluates n"),
    ('echo $(("$n"))', "unknown", "evaluates n"),
    ("echo $((1+$(cat f)))", "unknown", "$(cat f)"),
    ("echo $((1+`cat f`))", "unknown", "as arithmetic"),
    ("echo $(($1+1))", "unknown", "$1"),
    ("echo $((a[0]))", "unknown", "a[…]"),
    ("echo $[n+1]", "unknown", "evaluates n"),
    ("echo $[ $(cat f) ]", "unknown", "$(cat f)"),
    ("((x))", "unknown", "evaluates x"),
    ("(( x ))", "unknown", "evaluates x"),
    ("((  x  > 1 ))", "unknown", "evaluates x"),
    ("(( $(cat f) > 1 ))", "unknown", "$(cat f)"),
    ("if (( n > 3 )); then echo big; fi", "unknown", "evaluates n"),
    ("while (( n-- )); do :; done", "unknown", "evaluates n"),
    ("let n", "unknown", "evaluates n"),
    ('let "y=x"', "unknown", "evaluates x"),
    ("let 'y = x + 1'", "unknown", "evaluates x"),
    ("let y=$(cat f)", "unknown", "$(cat f)"),
    ("builtin let y=x", "unknown", "evaluates x"),
    ("time let x", "unknown", "evaluates x"),
    ("command -p let x", "unknown", "evaluates x"),
    ("\\let x", "unknown", "evaluates x"),
    ("l\\et x", "unknown", "evaluates x"),
    ("'let' x", "unknown", "evaluates x"),
    ("let -- x", "unknown", "evaluates x"),
    ("LC_ALL=C let y=x", "unknown", "evaluates x"),
    ("2>/dev/null let y=x", "unknown", "evaluates x"),
    ("echo ${x:${n}}", "unknown", "evaluates n"),
    ("command let y=x", "unknown", "evaluates x"),
    ("[[ n -eq 1 ]]", "unknown", "evaluates n"),
    ("[[ $n -lt 1 ]]", "unknown", "evaluates n"),
    ('[[ "$n" -ge 1 ]]', "unknown", "evaluates n"),
    ("[[ 1 -ne ${n} ]]", "unknown", "evaluates n"),
    ("[[ a == b || n -gt 1 ]]", "unknown", "evaluates n"),
    ("[[ ! ( n -le 1 ) ]]", "unknown", "evaluates n"),
    ("[[ `cat f` -eq 1 ]]", "unknown", "as arithmetic"),
    ("for ((i=x; i<3; i++)); do :; done", "unknown", "evaluates x"),
    ("for (( i = 0 ; i < n ; i += 2 )); do :; done", "unknown", "evaluates n"),
    ("for ((;;)); do (( k++ )); break; done", "unknown", "evaluates k"),
    ("echo ${a[n]}", "unknown", "evaluates n"),
    ("echo ${a[$n]}", "unknown", "evaluates n"),
    ('echo "${a[$(cat f)]}"', "unknown", "$(cat f)"),
    ("echo ${#a[n]}", "unknown", "evaluates n"),
    ("echo ${!a[n]}", "unknown", "evaluates n"),
    ("a=([$(cat f)]=1)", "unknown", "$(cat f)"),
    ("a=([n]=1)", "unknown", "evaluates n"),
    ("echo ${x:n}", "unknown", "evaluates n"),
    ("echo ${x:1:$n}", "unknown", "evaluates n"),
    ("echo ${x: $(cat f)}", "unknown", "$(cat f)"),
    ("echo ${@:n}", "unknown", "evaluates n"),
    ("echo ${a[@]:0:n}", "unknown", "evaluates n"),
    ("case $x in $((n))) echo;; esac", "unknown", "evaluates n"),
    ("f() { echo $((n)); }", "unknown", "evaluates n"),
    ("cat <<< $((n))", "unknown", "evaluates n"),
    ("echo $((n)); n=5", "unknown", "evaluates n"),  # used before the line sets it
    ("true || n=5; echo $((n))", "unknown", "evaluates n"),  # may not be set
    ("if x; then n=5; fi; echo $((n))", "unknown", "evaluates n"),
    ("n=5 | cat; echo $((n))", "unknown", "evaluates n"),  # set in a subshell
    ("(n=5); echo $((n))", "unknown", "evaluates n"),
    ("n=5 true; echo $((n))", "unknown", "evaluates n"),  # set for one command only
    ("n=5; read -r n < f; echo $((n))", "unknown", "evaluates n"),
    ("n=5; n=$(cat f); echo $((n))", "unknown", "evaluates n"),
    ("n=5; eval 'n=$(cat f)'; echo $((n))", "unknown", "evaluates n"),
    ("n=5; source f; echo $((n))", "unknown", "evaluates n"),
    ('n=5; printf -v n %s "$x"; echo $((n))', "unknown", "evaluates n"),
    ("n=5; mapfile n < f; echo $((n[0]))", "unknown", "n[…]"),
    ("n=x; echo $((n))", "unknown", "evaluates n"),  # x is read recursively
    ("n=$x; echo $((n))", "unknown", "evaluates n"),
    ("for n in $(cat f); do echo $((n)); done", "unknown", "evaluates n"),
    ("for n in 1 x; do echo $((n)); done", "unknown", "evaluates n"),
    ("echo $((LINES))", "unknown", "evaluates LINES"),  # from the environment
    ("declare -i y", "unknown", "integer attribute"),
    ("typeset -i y=5", "unknown", "integer attribute"),
    ("local -ri y=1", "unknown", "integer attribute"),
    ("builtin declare -i y", "unknown", "integer attribute"),
    ("eval 'echo $((n))'", "unknown", "evaluates n"),
    ("bash -c 'echo $((n))'", "unknown", "evaluates n"),
    ("bash -c 'n=5; echo $((n))'", "safe", ""),
    ("n=5; bash -c 'echo $((n))'", "unknown", "evaluates n"),  # not the same shell
]

INDIRECT = [
    ("echo ${!x}", "unknown", "takes a variable name from x"),
    ('echo "${!x:-none}"', "unknown", "takes a variable name from x"),
    ("echo ${!x[0]}", "unknown", "takes a variable name"),
    ("x=$(cat f); echo ${!x}", "unknown", "takes a variable name from x"),
    ("x='a[1]'; echo ${!x}", "unknown", "takes a variable name from x"),
    ("declare -n ref=x; echo $ref", "unknown", "name reference"),
    ("local -n ref=$1", "unknown", "name reference"),
    ("typeset -n ref", "unknown", "name reference"),
    ("declare -n ref; ref=x", "unknown", "name reference"),
    ('printf -v "$x" hi', "unknown", "computed"),
    ("printf -v ${x} hi", "unknown", "computed"),
    ("printf -v 'a[$(cat f)]' hi", "unknown", "subscript"),
    ('read -r "$x" < f', "unknown", "computed"),
    ('read -ra "$x" < f', "unknown", "computed"),
    ('mapfile -t "$x" < f', "unknown", "computed"),
    ('declare "$x=1"', "unknown", "computed"),
    ('export "$x"=1', "unknown", "computed"),
    ('test -v "$x"', "unknown", "test -v"),
    ("test -v 'a[$(cat f)]'", "unknown", "test -v"),
    ('[ -v "$x" ]', "unknown", "not literal"),
    ("[[ -v $x ]]", "unknown", "not literal"),
    ("[[ -v a[$n] ]]", "unknown", "not literal"),
    ("read -r PWD < f", "unknown", "PWD"),
    ("read -r OLDPWD < f", "unknown", "OLDPWD"),
    ("read -ra PIPESTATUS < f", "unknown", "PIPESTATUS"),
    ("read -r IFS < f", "unknown", "IFS"),
    ("read -r TMPDIR < f", "unknown", "TMPDIR"),
    ("read -r BASH_ENV < f", "unknown", "BASH_ENV"),
    ("read -r PATH <<< /tmp", "unknown", "PATH"),
    ("while read -r HISTFILE; do :; done < f", "unknown", "HISTFILE"),
]

# Arithmetic and names the line vouches for stay safe.
LITERAL = [
    ("echo $((1+2))", "safe", ""),
    ("echo $(( (3 * 4) % 5 ))", "safe", ""),
    ("echo $((0x1F + 8#17 + 2#101))", "safe", ""),
    ("n=5; echo $((n*2))", "safe", ""),
    ('n=5; echo "$((n*2))"', "safe", ""),
    ("n=5 && echo $((n))", "safe", ""),
    ("n=$((3+4)); echo $((n))", "safe", ""),
    ("local n=1; echo $((n+1))", "safe", ""),
    ("for ((i=0;i<10;i++)); do echo $i; done", "safe", ""),
    ("for (( i = 0, j = 9 ; i < j ; i++, j-- )); do echo $((i*j)); done", "safe", ""),
    ("for i in 1 2 3; do echo $((i*2)); done", "safe", ""),
    ("i=0; while (( i < 3 )); do (( i++ )); done", "safe", ""),
    ("(( n = 4 )); echo $((n / 2))", "safe", ""),
    ("i=0; let i++", "safe", ""),
    ("echo $(($# + 1)) $(( $? )) $(($$ % 2))", "safe", ""),
    ("x=abc; echo $(( ${#x} * 2 ))", "safe", ""),
    ("echo $((RANDOM % 6 + 1)) $(( SECONDS ))", "safe", ""),
    ("[[ 3 -gt 1 ]] && echo yes", "safe", ""),
    ("[[ $# -eq 0 ]] && echo none", "safe", ""),
    ("n=3; [[ $n -gt 1 ]] && echo yes", "safe", ""),
    ('[ "$x" -eq 1 ] && echo one', "safe", ""),  # `[` does not evaluate arithmetic
    ("test $x -lt 3", "safe", ""),
    ("[[ $x == 1 ]]", "safe", ""),
    ("echo ${x:1:2} ${x: -3} ${x:(-2)}", "safe", ""),
    ("echo ${x:-1} ${x:-$HOME}", "safe", ""),
    ("echo ${a[0]} ${a[@]} ${a[*]} ${#a[@]} ${!a[@]}", "safe", ""),
    ("echo ${a[${#b[@]}]}", "safe", ""),
    ("echo ${!BASH*} ${!HIST@}", "safe", ""),
    ("x=HOME; echo ${!x}", "safe", ""),
    ("declare -A m=([$x]=1)", "safe", ""),  # string keys are not evaluated
    ("[[ -v HOME ]] && echo set", "safe", ""),
    ("test -v HOME", "safe", ""),
    ("[ -v 'a[1]' ]", "safe", ""),
    ("read -r x < f; echo $x", "safe", ""),
    ('while read -r line; do echo "$line"; done < f', "safe", ""),
    ("printf -v x %s hi", "safe", ""),
    ("unset -v x", "safe", ""),
]

SHELL_TABLES = [
    ("BASH_CMDS+=([ls]=/bin/rm)", "unknown", "BASH_CMDS"),
    ("BASH_CMDS[ls]=/bin/rm", "unknown", "BASH_CMDS"),
    ("declare -A BASH_CMDS=([ls]=/bin/rm)", "unknown", "BASH_CMDS"),
    ("typeset -A BASH_CMDS", "unknown", "BASH_CMDS"),
    ("BASH_ALIASES+=([ls]='rm -rf')", "unknown", "BASH_ALIASES"),
    ("BASH_ALIASES[ls]='rm -rf'", "unknown", "BASH_ALIASES"),
    ("export BASH_ENV=/tmp/x", "unknown", "BASH_ENV"),
    ("PATH=/tmp:$PATH", "unknown", "PATH"),
    ("IFS=/", "unknown", "IFS"),
    ("GLOBIGNORE='*'", "unknown", "GLOBIGNORE"),
    ("PROMPT_COMMAND='rm -rf d'", "unknown", "PROMPT_COMMAND"),
    ("TMPDIR=/x", "unknown", "TMPDIR"),
    ("OLDPWD=/etc", "unknown", "OLDPWD"),
    ("unset BASH_CMDS", "unknown", "BASH_CMDS"),
    ('ls() { find "$@"; }', "unknown", "defines ls()"),
    ('function ls { find "$@"; }', "unknown", "defines ls()"),
    ("function ls() { :; }", "unknown", "defines ls()"),
    ('cd() { builtin cd "$@" && ls; }', "unknown", "defines cd()"),
    ("eval 'ls() { :; }'", "unknown", "defines ls()"),
    ("true && ls() { :; }", "unknown", "defines ls()"),
    ("unset -f rm", "unknown", "remove a function"),
    ("unset rm", "unknown", "remove a function"),
    ("alias ls='rm -rf'", "unknown", "alias"),
    ("hash -p /bin/rm ls", "unknown", "hash"),
    ("enable -n echo", "unknown", "enable"),
    ("set -o noglob", "unknown", "set"),
    ("shopt -s expand_aliases", "unknown", "shopt"),
    ("BASH_ALIASES=( [ls]='rm -rf' )", "unknown", "BASH_ALIASES"),
    ("eval 'BASH_CMDS[ls]=/bin/rm'", "unknown", "sets BASH_CMDS[ls]"),
    ("printf -v 'BASH_CMDS[ls]' /bin/rm", "unknown", "sets BASH_CMDS[ls]"),
    ("read 'BASH_CMDS[ls]' <<< /bin/rm", "unknown", "sets BASH_CMDS[ls]"),
    ("typeset BASH_CMDS[ls]=/bin/rm", "unknown", "sets BASH_CMDS[ls]"),
    ("declare -gA BASH_CMDS", "unknown", "BASH_CMDS"),
    ("local -A BASH_ALIASES", "unknown", "BASH_ALIASES"),
    ("readonly BASH_CMDS", "unknown", "BASH_CMDS"),
    ("IFS= read -r BASH_ENV <<< /tmp/x", "unknown", "BASH_ENV"),
    ("PATH+=:/tmp", "unknown", "PATH"),
    ("f () { :; }", "unknown", "defines f()"),
    ("function f () ( : )", "unknown", "defines f()"),
    ("bash -c 'ls() { :; }'", "unknown", "defines ls()"),
    ("builtin alias ls=rm", "unknown", "alias"),
    ("command alias ls=rm", "unknown", "alias"),
    ("hash -d ls", "unknown", "hash"),
    ("enable -f ./x.so x", "unknown", "enable"),
    ("declare -f ls", "safe", ""),  # prints the function
    ("x=1; FOO=bar", "safe", ""),
]


@pytest.mark.parametrize(
    ("command", "level", "reason"), REPORTED + ARITHMETIC + INDIRECT + LITERAL + SHELL_TABLES
)
def test_case(command: str, level: str, reason: str) -> None:
    verdict = classify(command)
    assert verdict.level == level, verdict.reasons
    assert reason in "; ".join(verdict.reasons)


def test_arithmetic_reads_names_and_sees_through_nothing_else() -> None:
    assert read_arithmetic("i = j + 1").reads == ("j",)
    assert read_arithmetic("i = j + 1").assigns == ("i",)
    assert read_arithmetic("i == j").reads == ("i", "j")
    assert read_arithmetic("i += 2").reads == ("i",)
    assert read_arithmetic("$n + ${m} + $(( k ))").reads == ("n", "m", "k")
    assert read_arithmetic('"$n" * 2').reads == ("n",)
    assert read_arithmetic("$# + $? + ${#x} + ${#a[@]} + 16#ff").opaque is None
    for text in ("$(id)", "`id`", "a[0]", "$1", "$@", "${x:-1}", "'1'", "\\1", "x;y", "$[1]"):
        assert read_arithmetic(text).opaque is not None, text


# ---- properties: any run-time source reaching any evaluation site, however wrapped -------------

# Ways a line gets a value it cannot vouch for into x ("" leaves x to the environment).
_SOURCES = [
    "",
    "read -r x < f; ",
    "x=$(cat f); ",
    "x=`cat f`; ",
    "x=5; read x < f; ",
    "x=5; x=$y; ",
    "mapfile -t x < f; ",
    'IFS= read -r x <<< "$y"; ',
    'printf -v x %s "$(cat f)"; ',
    'x=5; eval "$(cat f)"; ',
    "true || x=5; ",
    "(x=5); ",
    "x=5 | cat; ",
    "for x in $(cat f); do :; done; ",
    "x=HOME; x+=$(cat f); ",
]
# Places bash evaluates x (as arithmetic, a subscript, an offset or an indirect name).
_SITES = [
    "echo $((x+1))",
    'echo "$(( x ))"',
    "echo $[x]",
    "(( x > 3 ))",
    "((x))",
    "let y=x",
    'let "y = x * 2"',
    "[[ x -eq 1 ]]",
    "[[ $x -lt 1 ]]",
    '[[ 1 -ne "$x" ]]',
    "echo ${a[x]}",
    'echo "${a[$x]}"',
    "echo ${s:x}",
    "echo ${s:0:$x}",
    "for ((i=0;i<x;i++)); do :; done",
    "echo ${!x}",
    'printf -v "$x" hi',
    'test -v "$x"',
    '[ -v "$x" ]',
    "[[ -v $x ]]",
    'read -r "$x" <<< hi',
    "declare -i y=$x",
    "case 1 in $((x))) ;; esac",
]
_SITE_WRAPS = [
    "{}",
    "if true; then {}; fi",
    "while true; do {}; break; done",
    "( {} )",
    "{{ {}; }}",
    "true && {}",
    "f() {{ {}; }}",
    "eval '{}'",
    "bash -c '{}'",
    "echo $( {} )",
]


@settings(max_examples=400, deadline=None)
@given(
    source=st.sampled_from(_SOURCES),
    site=st.sampled_from(_SITES),
    wrap=st.sampled_from(_SITE_WRAPS),
)
def test_a_value_the_line_cannot_vouch_for_never_reaches_an_evaluation_safely(
    source: str, site: str, wrap: str
) -> None:
    if "'" in wrap and "'" in site:
        return  # a single-quoted wrap of single quotes is another command
    line = source + wrap.format(site)
    assert classify(line).level != "safe", line


# Values the line sets to numbers, reaching arithmetic in places that certainly run after.
_NUMERIC_SOURCES = ["x=5; ", "x=$((2*3)); ", "(( x = 4 )); ", "x=5 && ", "local x=1; "]
_NUMERIC_SITES = [
    "echo $((x+1))",
    "(( x > 3 ))",
    "let y=x",
    "[[ x -eq 1 ]]",
    "echo ${a[x]}",
    "echo ${s:x:1}",
    "for ((i=0;i<x;i++)); do echo $i; done",
]


@settings(max_examples=100, deadline=None)
@given(source=st.sampled_from(_NUMERIC_SOURCES), site=st.sampled_from(_NUMERIC_SITES))
def test_numbers_the_line_sets_stay_safe(source: str, site: str) -> None:
    line = source + site
    assert classify(line).level == "safe", (line, classify(line).reasons)
