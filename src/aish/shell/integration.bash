# aish shell integration for bash: the --rcfile of aish's persistent shell.
#
# aish starts `bash --noprofile --rcfile <a copy of this file> -i` on a PTY. This file sources the
# rc files an interactive bash would read, then installs hooks that report to aish through private
# OSC markers carrying a per-session nonce (see aish/shell/markers.py):
#
#   ESC ] 6973 ; <nonce> ; <kind> [; <value>] BEL
#
#   A;<$?>;<0|1>;<n>  prompt start (PS1): 1 when aish's line was dropped unrun; n counts prompts
#   B        ready for input (end of PS1)
#   C;<0|1>  output starts (PS0); 1 when the line was injected by aish
#   D;<$?>   command done (first PROMPT_COMMAND entry, so $? is still the command's); after
#            aish's own line the hook then waits for \e[5009~ (below) before going on
#   P;Cwd=<escaped $PWD>                     F   continuation prompt (PS2): the line is incomplete
#   P;Keys=<vi|emacs>  the line editor's keys (`set -o vi`), for aish's own prompt
#   K;<section> … K;end   names of builtins, keywords, aliases, functions (on request)
#   E;<status>  the exported variables are written to <this file's dir>/aish-env.<$$> (on request)
#               or, for \e[5007~, what resolves command names to <this file's dir>/aish-state.<$$>
#
# Private keys aish sends, bound in every readline keymap:
#   \e[5001~ kill-whole-line: clears a half-typed line before an injected command
#   \e[5002~ quoted-insert: makes the newlines and control bytes of a command literal, so that a
#            multi-line command is one readline line (one C, one D) and a TAB never completes
#   \e[5003~ marks the line being accepted as aish's (C;1), so a line typed ahead by the user
#            and run before aish's is never mistaken for it
#   \e[5004~ reports known names    \e[5005~ re-installs these hooks (when a command removed them)
#   \e[5006~ reports the exported variables
#   \e[5007~ reports how this shell resolves command names (aliases, functions, hashed paths,
#            enabled builtins, PATH, cwd) and its exported variables, for the safety gate
#   \e[5008~ marks the line being accepted as not the user's (the model's): kept out of history
#   \e[5009~ ends the keys typed for aish's command: sent after D once aish relays no more keys.
#            What the command did not read comes before it; the hook after D reads that and
#            writes it to <this file's dir>/aish-typeahead.<$$> for aish's next prompt. Bound to
#            nothing in readline, in case it ever arrives late.
#
# History: injected commands are typed into readline, so they land in the history exactly like
# typed ones (HISTCONTROL and HISTIGNORE apply as usual); a line marked by \e[5008~ is taken out
# again before the next prompt (before a user's `history -a` can write it). aish's private keys
# run through readline bindings, so they never appear in the history and never change $?.
# AISH_PRIVATE_HISTORY=1 (the agent's own shell) turns the history file off altogether.
# AISH_SUDO_ASKPASS=1 (the agent's shell with aish's askpass bridge) makes `sudo` mean `sudo -A -k`.

# PS0, `local -` and ${var@a} came with bash 4.4: say so instead of failing strangely.
if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))); then
  builtin echo "aish needs bash 4.4 or newer; this is bash $BASH_VERSION" >&2
  builtin exit 1
fi

# Defined before the user's rc is read, so that the user's aliases are not expanded in them.
# Each hook starts with `local -; set +eu`: the user's `set -eu` must not make a hook fail
# (nounset) or a failing test in a hook end the shell (errexit); `local -` restores them.
__aish_nonce=${AISH_NONCE-}
__aish_inject=0 # set by aish's key just before readline accepts aish's line
__aish_ran=0     # the command now finishing was aish's
__aish_zero=('') # PS0 assigns through an array subscript: see __aish_install
__aish_prompts=0 # counted in PS1, so that a redrawn prompt is told from a new one
__aish_private=0 # the line being run is not the user's; __aish_private_at is its history number
__aish_dir=${BASH_SOURCE[0]%/*} # aish's private directory, which holds this file

__aish_escape() {
  # Values may hold any byte but BEL and ESC would end the marker: escape them (and \, CR, LF).
  __aish_value=$1
  if [[ $__aish_value == *[$'\\\a\e\n\r']* ]]; then
    __aish_value=${__aish_value//\\/\\\\}
    __aish_value=${__aish_value//$'\a'/\\x07}
    __aish_value=${__aish_value//$'\e'/\\x1b}
    __aish_value=${__aish_value//$'\n'/\\x0a}
    __aish_value=${__aish_value//$'\r'/\\x0d}
  fi
}

__aish_precmd() {
  local __aish_status=$? # must stay the first statement: anything before it changes $?
  local -
  set +eu
  builtin printf '\e]6973;%s;D;%s\a' "$__aish_nonce" "$__aish_status"
  __aish_renew_nonce
  # After aish's line (run, or not run: a syntax error), the keys typed for it are aish's.
  if ((__aish_ran || __aish_inject)); then
    __aish_ran=0 __aish_inject=0
    __aish_keep_typeahead
  fi
  ((__aish_private)) && __aish_forget_private
  __aish_escape "$PWD"
  builtin printf '\e]6973;%s;P;Cwd=%s\a' "$__aish_nonce" "$__aish_value"
  # readline's editing mode, as `set -o vi`, `set -o emacs` or inputrc's editing-mode left it
  # (SHELLOPTS misses the inputrc's; `shopt -o` asks readline, without a fork)
  if builtin shopt -qo vi; then
    builtin printf '\e]6973;%s;P;Keys=vi\a' "$__aish_nonce"
  else
    builtin printf '\e]6973;%s;P;Keys=emacs\a' "$__aish_nonce"
  fi
  # The user's PROMPT_COMMAND entries run after this one and may read $? too (but under the
  # user's errexit a failing hook would end the shell).
  [[ $- == *e* ]] || return "$__aish_status"
}

__aish_mark_private() {
  __aish_private=1 __aish_private_at=$HISTCMD # the number the line gets if it is recorded
}

__aish_forget_private() {
  # Only if it was recorded: HISTCONTROL or HISTIGNORE may have kept it out, and then the entry
  # before it is the user's own.
  __aish_private=0
  if ((HISTCMD > __aish_private_at)); then
    builtin history -d "$((HISTCMD - 1))" 2>/dev/null
  fi
}

__aish_renew_nonce() {
  # A new nonce at every prompt, announced with the old one (N;<next>): what a command could
  # read of it (`set` lists it) is spent before its output reaches anyone who could use it in
  # a later line. SRANDOM (bash 5.1+) comes from getrandom(); older bash reads /dev/urandom
  # (read drops NUL bytes, hence the loop until there are 16 hex digits at least).
  local __aish_next=''
  if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
    builtin printf -v __aish_next '%08x%08x%08x%08x' "$SRANDOM" "$SRANDOM" "$SRANDOM" "$SRANDOM"
  else
    local LC_ALL=C __aish_raw='' __aish_i
    IFS= builtin read -r -d '' -N 16 __aish_raw </dev/urandom 2>/dev/null
    for ((__aish_i = 0; __aish_i < ${#__aish_raw}; __aish_i++)); do
      builtin printf -v __aish_next '%s%02x' "$__aish_next" "'${__aish_raw:__aish_i:1}"
    done
    while ((${#__aish_next} < 16)); do
      builtin printf -v __aish_next '%s%04x' "$__aish_next" "$RANDOM"
    done
  fi
  builtin printf '\e]6973;%s;N;%s\a' "$__aish_nonce" "$__aish_next"
  __aish_nonce=$__aish_next
}

__aish_keep_typeahead() {
  # Keys the user typed for aish's command that it did not read are the start of aish's next
  # prompt's input (readline must not take them: a whole line would run here, unseen by aish).
  # aish sends \e[5009~ once it relays no more keys: read up to it, without echo (-s) and
  # without waiting for a newline (a delimiter other than newline reads in cbreak mode). The
  # timeout only guards against an aish that never answers. (NUL bytes cannot be kept.)
  local __aish_keys='' __aish_chunk __aish_end=$'\e[5009~'
  while :; do
    if IFS= builtin read -r -s -d '~' -t 10 __aish_chunk 2>/dev/null; then
      __aish_keys+=$__aish_chunk'~'
      if [[ $__aish_keys == *"$__aish_end" ]]; then
        __aish_keys=${__aish_keys%"$__aish_end"}
        break
      fi
    else
      __aish_keys+=$__aish_chunk # timed out, or stdin is not the terminal
      break
    fi
  done
  [[ -z $__aish_keys ]] || builtin printf '%s' "$__aish_keys" 2>/dev/null >|"$__aish_dir/aish-typeahead.$$"
}

__aish_prompt() {
  local __aish_status=$?
  local -
  set +eu
  # Runs last: prompt tools (venv activate, starship, a re-sourced .bashrc) rewrite PS1, and aish
  # needs exactly its markers there. The user never sees this prompt: aish draws its own.
  PS1=$__aish_ps1 PS2=$__aish_ps2 PS0=$__aish_ps0
  # A command that prepended to PROMPT_COMMAND (`PROMPT_COMMAND="x; $PROMPT_COMMAND"`) put
  # __aish_precmd out of first place, where $? is still the command's: put it back.
  if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
    [[ ${PROMPT_COMMAND[0]} == __aish_precmd ]] || __aish_install
  else
    [[ $PROMPT_COMMAND == __aish_precmd$'\n'* ]] || __aish_install
  fi
  [[ $- == *e* ]] || return "$__aish_status"
}

__aish_report_names() {
  # Runs from a readline binding, so it changes neither the history nor $?.
  local -
  set +eu
  local n=$__aish_nonce
  builtin printf '\e]6973;%s;K;builtins\a' "$n"
  builtin compgen -b
  builtin printf '\e]6973;%s;K;keywords\a' "$n"
  builtin compgen -k
  builtin printf '\e]6973;%s;K;aliases\a' "$n"
  builtin compgen -a
  builtin printf '\e]6973;%s;K;functions\a' "$n"
  builtin compgen -A function
  builtin printf '\e]6973;%s;K;end\a' "$n"
}

__aish_report_env() {
  # Runs from a readline binding, so it changes neither the history nor $?. Values may hold any
  # byte but NUL (newlines, ESC, this marker's own bytes, invalid UTF-8): they go to a private
  # file as NUL-terminated NAME=value entries; only the marker goes to the terminal. No external
  # program is run, so this works whatever the user has done to PATH.
  local -
  set +eua # under allexport the locals below would be exported, and reported
  local __aish_name __aish_status=0
  local -a __aish_names
  builtin mapfile -t __aish_names < <(builtin compgen -e)
  {
    for __aish_name in "${__aish_names[@]}"; do
      # Arrays may carry the export flag but never reach a child; nor does an unset variable.
      [[ ${!__aish_name@a} != *[aAn]* && -n ${!__aish_name+set} ]] || continue
      builtin printf '%s=%s\0' "$__aish_name" "${!__aish_name}"
    done
  } 2>/dev/null >|"$__aish_dir/aish-env.$$" || __aish_status=$?
  builtin printf '\e]6973;%s;E;%s\a' "$__aish_nonce" "$__aish_status"
}

__aish_report_state() {
  # Runs from a readline binding: no history entry, $? kept. What a command name would run in
  # this shell, for aish's safety gate: NUL-separated records `<tag> <name> [<value>]` in a
  # private file (bodies hold any byte but NUL); only the marker goes to the terminal. Builtins
  # only, so it works whatever the user has done to PATH or to the names of commands.
  local -
  set +eua
  local __aish_name __aish_status=0
  local -a __aish_names
  {
    for __aish_name in "${!BASH_ALIASES[@]}"; do
      builtin printf 'alias\0%s\0%s\0' "$__aish_name" "${BASH_ALIASES[$__aish_name]}"
    done
    builtin mapfile -t __aish_names < <(builtin compgen -A function)
    for __aish_name in "${__aish_names[@]}"; do
      [[ $__aish_name == __aish_* ]] && continue
      builtin printf 'function\0%s\0' "$__aish_name"
      builtin declare -f -- "$__aish_name"
      builtin printf '\0'
    done
    for __aish_name in "${!BASH_CMDS[@]}"; do
      builtin printf 'hashed\0%s\0%s\0' "$__aish_name" "${BASH_CMDS[$__aish_name]}"
    done
    builtin mapfile -t __aish_names < <(builtin compgen -A enabled)
    for __aish_name in "${__aish_names[@]}"; do
      builtin printf 'builtin\0%s\0' "$__aish_name"
    done
    builtin printf 'path\0%s\0cwd\0%s\0' "${PATH-}" "$PWD"
    builtin mapfile -t __aish_names < <(builtin compgen -e)
    for __aish_name in "${__aish_names[@]}"; do
      [[ ${!__aish_name@a} != *[aAn]* && -n ${!__aish_name+set} ]] || continue
      builtin printf 'env\0%s\0%s\0' "$__aish_name" "${!__aish_name}"
    done
  } 2>/dev/null >|"$__aish_dir/aish-state.$$" || __aish_status=$?
  builtin printf '\e]6973;%s;E;%s\a' "$__aish_nonce" "$__aish_status"
}

__aish_install() {
  local -
  set +eu
  # PROMPT_COMMAND: ours first (for $?) and last (for PS1), the user's entries kept in between, in
  # the form the user chose (bash 5.1+ allows an array).
  if [[ ${PROMPT_COMMAND@a} == *a* ]]; then
    local -a __aish_kept=()
    local __aish_entry
    for __aish_entry in "${PROMPT_COMMAND[@]}"; do
      [[ $__aish_entry == __aish_precmd || $__aish_entry == __aish_prompt ]] ||
        __aish_kept+=("$__aish_entry")
    done
    PROMPT_COMMAND=(__aish_precmd "${__aish_kept[@]}" __aish_prompt)
  else
    local __aish_pc=${PROMPT_COMMAND-}
    __aish_pc=${__aish_pc//$'__aish_precmd\n'/} # the layout written below
    __aish_pc=${__aish_pc//$'\n__aish_prompt'/}
    __aish_pc=${__aish_pc//__aish_precmd/:} # what a user's edit left of it
    __aish_pc=${__aish_pc//__aish_prompt/:}
    # Newlines, not ';': a user entry may end in a comment or in ';' already.
    PROMPT_COMMAND=__aish_precmd$'\n'${__aish_pc:+$__aish_pc$'\n'}__aish_prompt
  fi
  # The prompts name the nonce's variable, not its value: it changes at every prompt, and
  # `echo $PS1` shows no nonce.
  local n='${__aish_nonce}'
  # A also reports the injected-line flag, then clears it, and counts prompts. PS1 is expanded
  # once per new prompt (a key binding's redraw reprints the last expansion, count and all), so
  # a 1 in a prompt with a new count means aish's line was taken but neither PS0 nor
  # PROMPT_COMMAND ran: bash dropped it (a failed history expansion). Such a line is not in the
  # history either: the private mark goes too, or it would delete the user's next line.
  __aish_ps1='\[\e]6973;'$n';A;$?;${__aish_inject};$((__aish_prompts+=1))\a${__aish_zero[__aish_private&=!__aish_inject,__aish_inject=0]}\]\[\e]6973;'$n';B\a\]'
  __aish_ps2='\[\e]6973;'$n';F\a\]'
  # PS0 is expanded in the shell itself (a $(…) here would run in a subshell and fork per
  # command): it reports whether the line was injected, then moves the flag along through the
  # arithmetic in an array subscript.
  __aish_ps0='\e]6973;'$n';C;${__aish_inject}\a${__aish_zero[__aish_ran|=__aish_inject,__aish_inject=0]}'
  PS1=$__aish_ps1 PS2=$__aish_ps2
  # Only if it changed: bash 5.2 prints freed memory for the next line's PS0 (no C marker, the
  # output taken for echo) when PS0 is assigned from a key binding, as aish's \e[5005~ does.
  [[ ${PS0-} == "$__aish_ps0" ]] || PS0=$__aish_ps0
  local m
  for m in emacs vi-insert; do
    builtin bind -m "$m" '"\e[5001~": kill-whole-line'
    builtin bind -m "$m" '"\e[5002~": quoted-insert'
    builtin bind -m "$m" -x '"\e[5003~": __aish_inject=1'
    builtin bind -m "$m" -x '"\e[5004~": __aish_report_names'
    builtin bind -m "$m" -x '"\e[5005~": __aish_install'
    builtin bind -m "$m" -x '"\e[5006~": __aish_report_env'
    builtin bind -m "$m" -x '"\e[5007~": __aish_report_state'
    builtin bind -m "$m" -x '"\e[5008~": __aish_mark_private'
    builtin bind -m "$m" -x '"\e[5009~": :'
  done
  # In vi command mode, enter insert mode first, then clear the line.
  builtin bind -m vi-command '"\e[5001~": "i\e[5001~"'
  builtin bind -m vi-command -x '"\e[5004~": __aish_report_names'
  builtin bind -m vi-command -x '"\e[5005~": __aish_install'
  builtin bind -m vi-command -x '"\e[5006~": __aish_report_env'
  builtin bind -m vi-command -x '"\e[5007~": __aish_report_state'
  builtin bind -m vi-command -x '"\e[5009~": :'
  # Bracketed paste wraps readline's echo in mode switches; aish never pastes.
  builtin bind 'set enable-bracketed-paste off'
  # Injected commands may hold UTF-8: in the C locale readline would turn those bytes into Meta keys.
  builtin bind 'set input-meta on'
  builtin bind 'set output-meta on'
  builtin bind 'set convert-meta off'
}

# Start where aish asked (a respawned shell goes back to the last cwd) before the user's rc runs,
# as a terminal would; OLDPWD stays what it was.
if [[ -n ${AISH_CWD-} ]]; then
  __aish_oldpwd=${OLDPWD-}
  builtin cd -- "$AISH_CWD" >/dev/null 2>&1
  if [[ -n $__aish_oldpwd ]]; then OLDPWD=$__aish_oldpwd; else builtin unset OLDPWD; fi
  builtin unset __aish_oldpwd
fi
# Programs started from this shell must not learn the nonce.
builtin unset AISH_NONCE AISH_CWD
__aish_private_history=${AISH_PRIVATE_HISTORY-}
__aish_sudo_askpass=${AISH_SUDO_ASKPASS-}
builtin unset AISH_PRIVATE_HISTORY AISH_SUDO_ASKPASS

# What an interactive bash reads when aish is not in the way (--rcfile replaces both).
if [[ -r /etc/bash.bashrc ]]; then
  builtin source /etc/bash.bashrc
fi
if [[ -r ~/.bashrc ]]; then
  builtin source ~/.bashrc
fi

if [[ -n $__aish_private_history ]]; then
  # The agent's shell: what it runs is never the user's history. Unset after the user's rc (which
  # may set HISTFILE) and before bash reads the file, so it is neither read, trimmed nor written.
  builtin unset HISTFILE
  builtin set +o history
fi
builtin unset __aish_private_history
if [[ -n $__aish_sudo_askpass ]]; then
  # The agent's shell, where nobody watches the terminal: sudo asks aish for the password
  # ($SUDO_ASKPASS), which it does only with -A; -k ignores sudo's cached credential, so every
  # sudo asks (and the user sees which step) instead of a later one running as root unasked.
  # An alias the gate sees, not an edited command.
  builtin alias sudo='sudo -A -k'
fi
builtin unset __aish_sudo_askpass

# Readline reads ~/.inputrc when it is first used: let that be now. __aish_install's `local -`
# restores the options from before it ran, the editing mode among them, and would turn an
# inputrc's `set editing-mode vi` back into emacs.
builtin bind 'set enable-bracketed-paste off'
__aish_install
