# aish's completion helper: the --rcfile of a bash that answers completion questions.
#
# aish starts `bash --noprofile --noediting --rcfile <a copy of this file> -i` with pipes for
# stdin and stdout (stderr goes nowhere) in its own process group, with the environment and cwd
# of the user's live shell. It reads the same rc files as the live shell (integration.bash), so
# the same `complete` specs are loaded, then leaves no trace: no history, no prompt hooks. The
# user's own shell is never asked to run a completion function.
#
# aish types one request per line on stdin: optional `builtin export`/`builtin unset -v`/
# `builtin cd` statements that bring this shell up to the live shell's state, then
#
#   __aish_request <id> spec <cword> <point> <line> <command> <cur> <prev> <words...>
#   __aish_request <id> vars <prefix>        __aish_request <id> commands <prefix>
#   __aish_request <id> ready
#
# The answer goes to stdout as NUL-terminated records between `<nonce>:<id>:<` and
# `<nonce>:<id>:>` (anything an rc file printed before is skipped). For `spec`: `none` when no
# spec applies, or `spec`, the options in force (`nospace filenames …`), then the matches.
# aish kills the whole process group when an answer takes too long.

__aish_nonce=${AISH_COMPLETION_NONCE-}
if [[ -n ${AISH_CWD-} ]]; then
  builtin cd -- "$AISH_CWD" >/dev/null 2>&1
fi
builtin unset AISH_COMPLETION_NONCE AISH_CWD

# What an interactive bash reads, as integration.bash reads it.
if [[ -r /etc/bash.bashrc ]]; then
  builtin source /etc/bash.bashrc
fi
if [[ -r ~/.bashrc ]]; then
  builtin source ~/.bashrc
fi

# Nothing of this shell may reach the user's history file, and no prompt hook runs here.
builtin set +o history
builtin unset HISTFILE
PROMPT_COMMAND='' PS0='' PS1='' PS2=''
builtin trap - DEBUG RETURN ERR
builtin set +o errexit +o nounset

__aish_dynamic=() # what `compopt` said during the current completion, as on:NAME / off:NAME

# Completion functions change their own options with `compopt -o nospace`; outside readline the
# builtin refuses, so while a function runs here its changes are recorded instead.
compopt() {
  local -a __aish_changes=()
  local -a __aish_all=("$@")
  while (($#)); do
    case $1 in
      -o) __aish_changes+=("on:$2") && shift 2 ;;
      +o) __aish_changes+=("off:$2") && shift 2 ;;
      --) shift && break ;;
      -*) shift ;;
      *) break ;;
    esac
  done
  if (($#)); then
    builtin compopt "${__aish_all[@]}"
    return
  fi
  __aish_dynamic+=("${__aish_changes[@]}")
}

__aish_parse_spec() {
  # The arguments of `complete` as `complete -p` prints them.
  __aish_function='' __aish_command='' __aish_options=() __aish_generate=()
  local OPTIND=1 opt
  while builtin getopts ':abcdefgjksuvo:A:G:W:F:C:X:P:S:DEI' opt; do
    case $opt in
      F) __aish_function=$OPTARG ;;
      C) __aish_command=$OPTARG ;;
      o) __aish_options+=("$OPTARG") ;;
      D | E | I) ;;
      A | G | W | X | P | S) __aish_generate+=("-$opt" "$OPTARG") ;;
      *) __aish_generate+=("-$opt") ;;
    esac
  done
}

__aish_find_spec() {
  # The spec for command $1 (or its basename), loading it through bash-completion's default
  # (`complete -D`) loader when there is none yet, as bash does.
  local name spec
  for name in "$1" "${1##*/}"; do
    spec=$(builtin complete -p -- "$name" 2>/dev/null) && break
  done
  if [[ -z $spec ]]; then
    spec=$(builtin complete -p -D 2>/dev/null) || return 1
    builtin eval "__aish_parse_spec ${spec#complete }"
    if [[ -n $__aish_function ]]; then
      "$__aish_function" "$1" "$2" "$3" </dev/null >/dev/null 2>&1
      if (($? == 124)); then
        __aish_find_spec_again "$1" && return 0
      fi
    fi
  fi
  builtin eval "__aish_parse_spec ${spec#complete }"
}

__aish_find_spec_again() {
  local name spec
  for name in "$1" "${1##*/}"; do
    if spec=$(builtin complete -p -- "$name" 2>/dev/null); then
      builtin eval "__aish_parse_spec ${spec#complete }"
      return 0
    fi
  done
  return 1
}

__aish_spec() {
  # $1 cword, $2 point, $3 line, $4 command, $5 cur, $6 prev, then the words.
  COMP_CWORD=$1 COMP_POINT=$2 COMP_LINE=$3 COMP_TYPE=9 COMP_KEY=9
  local cmd=$4 cur=$5 prev=$6
  builtin shift 6
  COMP_WORDS=("$@")
  if ! __aish_find_spec "$cmd" "$cur" "$prev"; then
    __aish_records=(none)
    return
  fi
  local -a matches=()
  if ((${#__aish_generate[@]})); then
    builtin mapfile -t matches < <(builtin compgen "${__aish_generate[@]}" -- "$cur" 2>/dev/null)
  fi
  local tries
  __aish_dynamic=()
  for tries in 1 2; do
    [[ -n $__aish_function ]] || break
    COMPREPLY=()
    "$__aish_function" "$cmd" "$cur" "$prev" </dev/null >/dev/null 2>&1
    # 124: the function loaded a new spec for this command; bash then starts over once.
    if (($? == 124)) && ((tries == 1)) && __aish_find_spec_again "$cmd"; then
      continue
    fi
    matches+=("${COMPREPLY[@]}")
    break
  done
  if [[ -n $__aish_command ]]; then
    builtin mapfile -t -O "${#matches[@]}" matches < <(
      builtin export COMP_LINE COMP_POINT COMP_TYPE COMP_KEY
      builtin eval "$__aish_command"' "$cmd" "$cur" "$prev"' </dev/null 2>/dev/null
    )
  fi
  # The options in force: the spec's, changed by what the function said through compopt.
  local change option options=" ${__aish_options[*]} "
  for change in "${__aish_dynamic[@]}"; do
    option=${change#*:}
    options=${options// $option / }
    [[ $change == on:* ]] && options+="$option "
  done
  __aish_records=(spec "$options" "${matches[@]}")
}

__aish_request() {
  local -
  builtin set +eua
  local id=$1 mode=$2
  builtin shift 2
  __aish_records=()
  case $mode in
    spec) __aish_spec "$@" ;;
    vars) builtin mapfile -t __aish_records < <(builtin compgen -v -- "$1" 2>/dev/null) ;;
    commands) builtin mapfile -t __aish_records < <(builtin compgen -c -- "$1" 2>/dev/null) ;;
  esac
  builtin printf '%s:%s:<\0' "$__aish_nonce" "$id"
  ((${#__aish_records[@]} == 0)) || builtin printf '%s\0' "${__aish_records[@]}"
  builtin printf '%s:%s:>\0' "$__aish_nonce" "$id"
}
