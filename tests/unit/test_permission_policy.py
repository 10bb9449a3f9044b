"""The permission policy: allow / ask / deny patterns matched on every simple command the
classifier meets after unwrapping, scoped rules, and the ruling `aish safety check` prints."""

from __future__ import annotations

import pytest

from aish.safety.rules.policy import example_failures, rule_on
from aish.safety.rules.user import PolicyRule, UserRules

DENY_PUSH = UserRules(deny=("git push",))


# Every wrapper and list form that still runs `git push`.
@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git push -f origin main",
        "cd x && git push",
        "cd x && sudo git push -f",
        "true; git push",
        "git push; true",
        "false || git push",
        "git status | git push",
        "(git push)",
        "{ git push; }",
        "x=$(git push)",
        "echo `git push`",
        "cat <(git push)",
        "sudo git push",
        "sudo -u bob git push",
        "env A=1 git push",
        "env -i git push",
        "nice -n 5 git push",
        "nohup git push",
        "timeout 30 git push",
        "time git push",
        "command git push",
        "exec git push",
        "bash -c 'git push'",
        'sh -c "cd /; git push origin"',
        "sudo bash -c 'env X=1 git push'",
        "eval 'git push'",
        "xargs git push < list",
        "find . -maxdepth 0 -exec git push \\;",
        "if true; then git push; fi",
        "for r in a b; do git push; done",
        "while false; do :; done; git push",
        "f() { git push; }",
        "ssh host git push",
        "watch -n 5 git push",
        "/usr/bin/git push",
        "\\git push",
        "'git' \"push\"",
        "gi\\t pu\\sh",
        "git -C /elsewhere push",
        "git --git-dir=.git push",
        "git -c user.name=x push",
        "docker exec box git push",
        "/usr/local/bin/git push",
        "./git push",
        "~/bin/git push",
        'env -S "git push"',
        "command -p git push",
        "exec -a x git push",
        "sudo bash <<EOF\ngit push\nEOF",
        "nohup git push &",
        "stdbuf -o0 git push",
        "setsid git push",
        "flock /tmp/l git push",
        "doas git push",
        "runuser -u bob -- git push",
        'su -c "git push" bob',
        'script -c "git push" /dev/null',
        'at now <<< "git push"',
        'trap "git push" EXIT',
        "awk 'BEGIN { system(\"git push\") }'",
        "python3 -c 'import os; os.system(\"git push\")'",
        "tmux new -d 'git push'",
        "tmux send-keys -t 0 'git push' Enter",
    ],
)
def test_deny_matches_through_every_wrapper_and_list_form(command: str) -> None:
    ruling = rule_on(command, DENY_PUSH)
    assert (ruling.decision, ruling.rule) == ("deny", "safety.deny `git push`"), command
    assert "git push" in ruling.why


@pytest.mark.parametrize(
    "command",
    [
        "git pull",
        "git status",
        "echo git push",
        "grep 'git push' notes.txt",
        "git log --grep push",
        "git pushx",
        "# git push",
        "printf '%s\\n' 'git push'",
    ],
)
def test_deny_does_not_match_mentions_or_other_commands(command: str) -> None:
    assert rule_on(command, DENY_PUSH).decision != "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "git $action",
        "$tool push",
        "g=git; $g push",
        "echo push | xargs git",
        'bash -c "$cmd"',
        'eval "$line"',
        "ls )(",  # does not parse: what bash makes of it is beyond reading
        "parallel git ::: push",
        'bash -c "echo $x"',  # $x is parsed as code: it may hold `; git push`
        "awk '{ system(\"echo \" $1) }' list",
    ],
)
def test_a_command_that_may_be_denied_asks_naming_the_rule(command: str) -> None:
    ruling = rule_on(command, DENY_PUSH)
    assert (ruling.decision, ruling.rule) == ("ask", "safety.deny `git push`"), command
    assert ruling.why.startswith("may run a command your rule")


def test_allow_lets_unknown_run_but_never_lowers_destructive() -> None:
    rules = UserRules(allow=("make test",))
    assert (rule_on("make test", rules).decision, rule_on("make test", rules).rule) == (
        "allow",
        "safety.allow `make test`",
    )
    assert rule_on("make test -j4", rules).decision == "allow"  # a prefix
    both = rule_on("make test && rm -rf /", rules)
    assert (both.decision, both.verdict.level) == ("ask", "destructive")
    assert both.rule == "built-in: rm: deletes files"
    assert rule_on("make install", rules).decision == "ask"
    assert rule_on("make test > out.txt", rules).decision == "ask"
    # A computed word is vouched for only by a lone `*`.
    assert rule_on("make $target", UserRules(allow=("make test*",))).decision == "ask"
    assert rule_on("make $target", UserRules(allow=("make *",))).decision == "allow"


def test_allow_patterns_keep_their_old_meaning() -> None:
    rules = UserRules(allow=("pytest*", "./scripts/check.sh *", "npm run test*"))
    for command in ("pytest -q tests/", "./scripts/check.sh all", "npm run test:unit -- -x"):
        assert rule_on(command, rules).decision == "allow", command
    assert rule_on("npm run build", rules).decision == "ask"
    # Another spelling of git (its global options dropped) may tighten, never loosen.
    assert rule_on("git -c core.pager=evil log", UserRules(allow=("git log",))).decision == "ask"


def test_ask_always_asks_even_when_safe() -> None:
    rules = UserRules(ask=("ls",), allow=("ls",))
    ruling = rule_on("ls -la", rules)
    assert (ruling.verdict.level, ruling.decision, ruling.rule) == (
        "safe",
        "ask",
        "safety.ask `ls`",
    )
    assert rule_on("sudo ls", rules).decision == "ask"


def test_deny_beats_ask_beats_the_built_in_verdict() -> None:
    rules = UserRules(ask=("git *",), deny=("git push",), allow=("git push",))
    assert rule_on("git status && git push", rules).decision == "deny"
    assert rule_on("git status", rules).rule == "safety.ask `git *`"
    assert rule_on("rm -rf /", UserRules(deny=("rm",))).rule == "safety.deny `rm`"


def test_globs_stay_inside_a_word_and_a_lone_star_spans_words() -> None:
    rules = UserRules(deny=("kubectl delete *", "npm run test*", "git * --force"))
    assert rule_on("kubectl delete pod x", rules).decision == "deny"
    assert rule_on("kubectl get pods", rules).decision != "deny"
    assert rule_on("npm run test:e2e", rules).decision == "deny"
    assert rule_on("npm run tests", rules).decision == "deny"
    assert rule_on("npm run build test", rules).decision != "deny"
    assert rule_on("git push origin --force", rules).decision == "deny"


def test_scoped_rules_look_at_the_path_words() -> None:
    rules = UserRules(
        rules=(
            PolicyRule(
                "deny", ("rm", "shred"), ("/etc/**",), "system files", name="safety.rule[0]"
            ),
            PolicyRule("allow", ("frob",), ("./build/**",), name="safety.rule[1]"),
        )
    )
    denied = rule_on("sudo rm -f /etc/hosts", rules)
    assert denied.decision == "deny"
    assert denied.rule == "safety.rule[0] (deny `rm`, `shred`, paths /etc/**)"
    assert denied.why.endswith("(system files)")
    assert rule_on("rm -f /tmp/x", rules).rule.startswith("built-in")
    assert rule_on("rm -f /tmp/x /etc/passwd", rules).decision == "deny"  # any path
    assert rule_on("rm -f $victim", rules).rule.startswith("safety.rule[0]")  # may
    assert rule_on("frob build/a build/b", rules).decision == "allow"
    assert rule_on("frob ./build", rules).decision == "allow"
    assert rule_on("frob build/a ../secret", rules).decision == "ask"  # every path
    assert rule_on("frob build/../../x", rules).decision == "ask"  # `..` cannot climb out
    assert rule_on("frob $x", rules).decision == "ask"


def test_paths_after_a_directory_change_in_the_line_are_not_taken_at_their_word() -> None:
    rules = UserRules(
        rules=(
            PolicyRule("deny", ("shred",), ("./secrets/**",), name="safety.rule[0]"),
            PolicyRule("allow", ("frob",), ("./build/**",), name="safety.rule[1]"),
        )
    )
    # `build/x` after `cd /` is /build/x, not ./build/x: the scoped allow does not vouch for it.
    for line in (
        "cd / && frob build/x",
        "pushd /tmp; frob build/x",
        "cd ..; frob build/x",
        "$(echo cd) /; frob build/x",
        "frob -C / build/x",
        "frob --directory=/ build/x",
    ):
        assert rule_on(line, rules).decision == "ask", line
    assert rule_on("frob build/x", rules).decision == "allow"
    # Commands are not met in the order they run: a `cd` anywhere moves the whole line.
    assert rule_on("frob build/x; cd /", rules).decision == "ask"
    # A deny scoped to ./secrets sees a relative path after `cd` as possibly in scope.
    for line in ("cd sub && shred x", "cd secrets; shred key", "pushd secrets; shred k"):
        ruling = rule_on(line, rules)
        assert ruling.rule.startswith("safety.rule[0]"), line
    # An absolute path, or one climbing out, cannot be placed against ./secrets/** as text.
    for line in ("shred /home/u/proj/secrets/key", "shred ../proj/secrets/key", "shred ~/s/k"):
        ruling = rule_on(line, rules)
        assert ruling.rule.startswith("safety.rule[0]") and ruling.decision == "ask", line
    assert not rule_on("shred tmp/x", rules).rule.startswith("safety.rule[0]")
    assert not rule_on("shred ./a/../b", rules).rule.startswith("safety.rule[0]")


def test_a_scoped_allow_never_lowers_a_built_in_destructive_verdict() -> None:
    rules = UserRules(rules=(PolicyRule("allow", ("rm",), ("./build/**",)),))
    ruling = rule_on("rm -rf build/x", rules)
    assert (ruling.verdict.level, ruling.decision) == ("destructive", "ask")


def test_without_rules_the_decision_follows_the_verdict() -> None:
    assert (rule_on("ls").decision, rule_on("ls").rule) == ("allow", "built-in: proven read-only")
    assert rule_on("frobnicate").decision == "ask"
    assert rule_on("frobnicate").rule == "built-in: frobnicate is not known to be read-only"
    assert rule_on("rm x").decision == "ask"


def test_examples_that_hold_and_examples_that_fail() -> None:
    good = PolicyRule(
        "deny",
        ("git push",),
        match=("cd x && sudo git push -f", "bash -c 'git push'"),
        not_match=("git pull", "echo git push"),
        name="safety.rule[0]",
    )
    assert example_failures(good) == []
    bad = PolicyRule(
        "deny",
        ("git push",),
        match=("git pull",),
        not_match=("git push -f", "git $x"),
        name="safety.rule[3]",
    )
    assert example_failures(bad) == [
        "safety.rule[3] (deny `git push`): example `git pull` should match but does not",
        "safety.rule[3] (deny `git push`): example `git push -f` should not match but does",
        "safety.rule[3] (deny `git push`): example `git $x` should not match but may",
    ]


@pytest.mark.parametrize(
    "command", ["git p origin", "git -C ../x p", "sudo git pu", "git lfs push"]
)
def test_a_git_word_that_may_be_an_alias_asks_under_a_git_deny(command: str) -> None:
    # `alias.p = push` in a repository's config is not on the line: `p` may be push. git never
    # lets an alias shadow its own commands, so only words that are not git's may be one.
    ruling = rule_on(command, DENY_PUSH)
    assert (ruling.decision, ruling.rule) == ("ask", "safety.deny `git push`"), command


def test_gits_own_commands_are_not_read_as_aliases() -> None:
    for command in ("git status", "git log -1", "git -C x diff", "git stash list"):
        assert rule_on(command, DENY_PUSH).rule != "safety.deny `git push`", command
    # An allow rule never reads a word as something else: `git p` is only `git p` to it.
    assert rule_on("git p", UserRules(allow=("git push",))).rule != "safety.allow `git push`"
