"""The tests' `ScriptedFrontend` (tests/support) answers as its script says, and fails otherwise.

Many flow tests rest on it: a scripted person who answered what was not asked, or who made the
chat offer diffs nobody meant to review, would make those tests pass for the wrong reason.
"""

from __future__ import annotations

import pytest

from aish.agent.diff_review import ReviewsDiffs
from aish.agent.gate import EditCancelled
from aish.safety.verdict import Verdict
from tests.support import ScriptedFrontend

DESTRUCTIVE = Verdict("destructive", ("rm: deletes files",))


async def test_each_question_takes_the_first_answer_of_its_kind() -> None:
    frontend = ScriptedFrontend("skip", "no", "proceed", "yes")
    assert await frontend.confirm_command("rm a", DESTRUCTIVE) == "no"
    assert await frontend.halt_action("rm b", DESTRUCTIVE) == "skip"
    assert await frontend.confirm_command("rm c", DESTRUCTIVE) == "yes"
    assert await frontend.halt_action("rm d", DESTRUCTIVE) == "proceed"
    assert frontend.asked == [("rm a", DESTRUCTIVE), ("rm c", DESTRUCTIVE)]
    assert frontend.halted == [("rm b", DESTRUCTIVE), ("rm d", DESTRUCTIVE)]
    assert frontend.script == []


async def test_a_question_without_an_answer_fails_the_test() -> None:
    frontend = ScriptedFrontend("proceed")
    with pytest.raises(AssertionError, match="confirm 'rm a'"):
        await frontend.confirm_command("rm a", DESTRUCTIVE)
    with pytest.raises(AssertionError, match="edited line"):
        await frontend.edit_command("rm a")
    with pytest.raises(AssertionError, match="not an answer"):
        ScriptedFrontend("maybe")  # type: ignore[arg-type]


async def test_edits_come_from_their_own_script() -> None:
    frontend = ScriptedFrontend(edits=("rm b", EditCancelled()))
    assert await frontend.edit_command("rm a") == "rm b"
    with pytest.raises(EditCancelled):
        await frontend.edit_command("rm a")
    assert frontend.edited == ["rm a", "rm a"]


def test_only_a_person_given_review_answers_reviews_diffs() -> None:
    assert not isinstance(ScriptedFrontend("yes"), ReviewsDiffs)
    assert isinstance(ScriptedFrontend(reviews=()), ReviewsDiffs)
