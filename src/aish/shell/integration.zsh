# aish shell integration for zsh: sourced by the .zshrc aish generates in its private ZDOTDIR,
# after the user's own .zshrc. The markers and private keys are those of integration.bash (read
# its header); here they come from precmd/preexec hooks and ZLE widgets:
#
#   A;<%?> B   PS1                      C;<0|1>   last preexec hook
#   D;<$?> P;Cwd=… P;Keys=<vi|emacs>  first precmd hook   F   PS2
#   (after D for aish's own line, the keys up to \e[5009~ go to <dir>/aish-typeahead.<$$>)
#   K;… and E;<status>  from the widgets behind aish's keys \e[5004~, \e[5006~ and \e[5007~
#
# History: injected commands are typed into ZLE, so they land in the history like typed ones;
# the private keys run widgets, which never reach the history. A line marked by \e[5008~ (the
# model's, not the user's) is refused by a zshaddhistory hook, so it never reaches HISTFILE;
# AISH_PRIVATE_HISTORY=1 (the agent's own shell) turns the history file off altogether.
# AISH_SUDO_ASKPASS=1 (the agent's shell with aish's askpass bridge) makes `sudo` mean `sudo -A -k`.

typeset -g __aish_nonce=${AISH_NONCE-}
typeset -gi __aish_inject=0 # set by aish's key just before ZLE accepts aish's line
typeset -gi __aish_ran=0    # the command now finishing was aish's
typeset -gi __aish_private=0 # the line being accepted is not the user's: not for the history
typeset -g __aish_dir=${${(%):-%x}:h} # aish's private directory, which holds this file
unset AISH_NONCE

# Each function starts with `emulate -L zsh`: the user's options (nounset, errexit, ksharrays…)
# must not change what aish's hooks do, and are restored when they return.

__aish_osc() { builtin print -rn -- $'\e]6973;'"${__aish_nonce};$1"$'\a' }

__aish_escape() {
  emulate -L zsh
  # Values may hold any byte but BEL and ESC would end the marker: escape them (and \, CR, LF).
  typeset -g __aish_value=$1
  if [[ $__aish_value == *[$'\\\a\e\n\r']* ]]; then
    __aish_value=${__aish_value//\\/\\\\}
    __aish_value=${__aish_value//$'\a'/\\x07}
    __aish_value=${__aish_value//$'\e'/\\x1b}
    __aish_value=${__aish_value//$'\n'/\\x0a}
    __aish_value=${__aish_value//$'\r'/\\x0d}
  fi
}

__aish_precmd() {
  local __aish_status=$? # first statement: zsh hands every precmd hook the command's $?
  emulate -L zsh
  __aish_osc "D;${__aish_status}"
  __aish_renew_nonce
  # After aish's line (run, or not run: a syntax error), the keys typed for it are aish's.
  if (( __aish_ran || __aish_inject )); then
    __aish_ran=0 __aish_inject=0
    __aish_keep_typeahead
  fi
  __aish_escape "$PWD"
  __aish_osc "P;Cwd=${__aish_value}"
  # The main keymap is viins after `bindkey -v` (which leaves the `vi` option unset) or
  # `set -o vi`. Asking bindkey costs a fork (about a millisecond) per prompt.
  if [[ -o vi || $(bindkey -lL main 2>/dev/null) == *' viins main'* ]]; then
    __aish_osc "P;Keys=vi"
  else
    __aish_osc "P;Keys=emacs"
  fi
}

__aish_renew_nonce() {
  emulate -L zsh
  setopt no_multibyte
  # A new nonce at every prompt, announced with the old one (see integration.bash): 16 bytes
  # of /dev/urandom in hex; $RANDOM only if that cannot be read.
  local __aish_raw='' __aish_next='' __aish_c
  zmodload -F zsh/system b:sysread 2>/dev/null
  sysread -s 16 __aish_raw </dev/urandom 2>/dev/null
  for __aish_c in ${(s::)__aish_raw}; do
    __aish_next+=${(l:2::0:)$(( [##16] #__aish_c ))}
  done
  while (( ${#__aish_next} < 16 )); do __aish_next+=${(l:4::0:)$(( [##16] RANDOM ))}; done
  __aish_osc "N;${(L)__aish_next}"
  __aish_nonce=${(L)__aish_next}
  __aish_prompts_for_nonce
}

__aish_prompts_for_nonce() {
  # zsh expands no variables in a prompt (no PROMPT_SUBST): the nonce is written into them.
  __aish_ps1=$'%{\e]6973;'${__aish_nonce}$';A;%?\a%}%{\e]6973;'${__aish_nonce}$';B\a%}'
  __aish_ps2=$'%{\e]6973;'${__aish_nonce}$';F\a%}'
}

__aish_keep_typeahead() {
  emulate -L zsh
  # Keys the user typed for aish's command that it did not read are the start of aish's next
  # prompt's input (ZLE must not take them: a whole line would run here, unseen by aish). aish
  # sends \e[5009~ once it relays no more keys: read up to it, without echo, a key at a time
  # (-k reads in cbreak mode: no newline needed); the timeout only guards against an aish that
  # never answers.
  local __aish_keys='' __aish_key __aish_end=$'\e[5009~'
  while builtin read -r -s -k 1 -t 10 __aish_key 2>/dev/null; do
    __aish_keys+=$__aish_key
    if [[ $__aish_key == '~' && $__aish_keys == *$__aish_end ]]; then
      __aish_keys=${__aish_keys%$__aish_end}
      break
    fi
  done
  [[ -z $__aish_keys ]] || { builtin print -rn -- $__aish_keys } 2>/dev/null >|$__aish_dir/aish-typeahead.$$
}

__aish_prompt() {
  emulate -L zsh
  # Last precmd hook: themes rewrite the prompts on every precmd; aish needs exactly its markers
  # there (the user never sees this prompt) and no right prompt.
  PS1=$__aish_ps1 PS2=$__aish_ps2 RPS1='' RPS2=''
  # Stay first and last even if a plugin loaded later added its own hooks around ours.
  if [[ ${precmd_functions[1]-} != __aish_precmd || ${precmd_functions[-1]-} != __aish_prompt ]]
  then
    __aish_install_hooks
  fi
}

__aish_preexec() {
  emulate -L zsh
  __aish_osc "C;${__aish_inject}"
  __aish_ran=$__aish_inject
  __aish_inject=0
}

__aish_install_hooks() {
  emulate -L zsh
  precmd_functions=(__aish_precmd ${precmd_functions:#(__aish_precmd|__aish_prompt)} __aish_prompt)
  preexec_functions=(${preexec_functions:#__aish_preexec} __aish_preexec)
  zshaddhistory_functions=(__aish_keep_private ${zshaddhistory_functions:#__aish_keep_private})
}

# Widgets behind aish's private keys.
__aish_clear_line() {
  emulate -L zsh
  BUFFER='' CURSOR=0
  [[ $KEYMAP == vicmd ]] && zle -K viins
}
__aish_mark_injected() { __aish_inject=1 }
__aish_mark_private() { __aish_private=1 }
__aish_keep_private() {
  # zshaddhistory: status 1 keeps the line out of the history file.
  (( __aish_private )) || return 0
  __aish_private=0
  return 1
}
__aish_report_names() {
  local __aish_status=$?
  emulate -L zsh
  zmodload -i zsh/parameter
  __aish_osc "K;builtins"; builtin print -rl -- ${(k)builtins}
  __aish_osc "K;keywords"; builtin print -rl -- ${(k)reswords}
  __aish_osc "K;aliases"; builtin print -rl -- ${(k)aliases}
  __aish_osc "K;functions"; builtin print -rl -- ${(k)functions}
  __aish_osc "K;end"
  return $__aish_status
}
__aish_report_env() {
  local __aish_status=$?
  emulate -L zsh
  zmodload -i zsh/parameter
  # Values may hold any byte but NUL: they go to a private file as NUL-terminated NAME=value
  # entries, and only the marker to the terminal. Arrays may carry the export flag but never
  # reach a child.
  local __aish_name
  local -a __aish_env
  for __aish_name in ${(k)parameters[(R)(scalar|integer|float)*-export*]}; do
    __aish_env+=("$__aish_name=${(P)__aish_name}")
  done
  { builtin print -rN -- $__aish_env } 2>/dev/null >|$__aish_dir/aish-env.$$
  __aish_osc "E;$?"
  return $__aish_status
}
__aish_report_state() {
  local __aish_status=$?
  emulate -L zsh
  zmodload -i zsh/parameter
  # What a command name would run in this shell, for aish's safety gate (see integration.bash):
  # NUL-separated records in a private file. zsh adds global aliases, which expand anywhere.
  local __aish_name
  local -a __aish_state
  for __aish_name in ${(k)aliases}; do __aish_state+=(alias $__aish_name "$aliases[$__aish_name]"); done
  for __aish_name in ${(k)galiases}; do
    __aish_state+=(global_alias $__aish_name "$galiases[$__aish_name]")
  done
  for __aish_name in ${(k)functions}; do
    [[ $__aish_name == __aish_* ]] && continue
    __aish_state+=(function $__aish_name "$functions[$__aish_name]")
  done
  # Only what was hashed by hand or differs from a PATH search matters; zsh fills `commands`
  # from PATH, so every entry is reported and judged by its path.
  for __aish_name in ${(k)commands}; do __aish_state+=(hashed $__aish_name "$commands[$__aish_name]"); done
  for __aish_name in ${(k)builtins}; do __aish_state+=(builtin $__aish_name); done
  __aish_state+=(path "$PATH" cwd "$PWD")
  for __aish_name in ${(k)parameters[(R)(scalar|integer|float)*-export*]}; do
    __aish_state+=(env $__aish_name "${(P)__aish_name}")
  done
  { builtin print -rN -- $__aish_state } 2>/dev/null >|$__aish_dir/aish-state.$$
  __aish_osc "E;$?"
  return $__aish_status
}
__aish_reinstall() { __aish_install }
__aish_ignore_key() { : } # \e[5009~ arriving late (see integration.bash)

__aish_install() {
  emulate -L zsh
  __aish_prompts_for_nonce
  PS1=$__aish_ps1 PS2=$__aish_ps2 RPS1='' RPS2=''
  __aish_install_hooks
  # Bracketed paste wraps ZLE's echo in mode switches; aish never pastes.
  unset zle_bracketed_paste
  zle -N __aish_clear_line
  zle -N __aish_mark_injected
  zle -N __aish_report_names
  zle -N __aish_reinstall
  zle -N __aish_report_env
  zle -N __aish_report_state
  zle -N __aish_mark_private
  zle -N __aish_ignore_key
  local m
  for m in emacs viins vicmd; do
    bindkey -M $m $'\e[5001~' __aish_clear_line
    bindkey -M $m $'\e[5002~' quoted-insert
    bindkey -M $m $'\e[5003~' __aish_mark_injected
    bindkey -M $m $'\e[5004~' __aish_report_names
    bindkey -M $m $'\e[5005~' __aish_reinstall
    bindkey -M $m $'\e[5006~' __aish_report_env
    bindkey -M $m $'\e[5007~' __aish_report_state
    bindkey -M $m $'\e[5008~' __aish_mark_private
    bindkey -M $m $'\e[5009~' __aish_ignore_key
  done
}

__aish_install
if [[ -n ${AISH_PRIVATE_HISTORY-} ]]; then
  # The agent's shell: what it runs is never the user's history. After the user's .zshrc (which
  # sets HISTFILE) and before zsh reads the file, so it is neither read, trimmed nor written.
  unset HISTFILE
  SAVEHIST=0
fi
unset AISH_PRIVATE_HISTORY
if [[ -n ${AISH_SUDO_ASKPASS-} ]]; then
  # The agent's shell, where nobody watches the terminal: sudo asks aish for the password
  # ($SUDO_ASKPASS), which it does only with -A; -k ignores sudo's cached credential, so every
  # sudo asks (and the user sees which step) instead of a later one running as root unasked.
  # An alias the gate sees, not an edited command.
  alias sudo='sudo -A -k'
fi
unset AISH_SUDO_ASKPASS
# Prompt cosmetics would print between D and the prompt; aish draws its own prompt. (Set here,
# not in a function: `emulate -L` would restore them on return.)
unsetopt prompt_cr prompt_sp
