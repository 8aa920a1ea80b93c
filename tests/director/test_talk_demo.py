"""Five minutes of the demo room, unpaced (its director, brain and audit log on a simulated clock), read back from
the audit log with slot values masked: no talk, thanks or reply sentence is said twice (the window is ten minutes).
The hour is bench/bench_talk.py."""

from __future__ import annotations

from pathlib import Path

from talk_run import masker_for, read_back, run_demo


async def test_five_minutes_of_the_demo_repeat_no_sentence(tmp_path: Path) -> None:
    run = await run_demo(5, tmp_path)
    back = read_back(run.audit, masker_for(run), window_s=600)
    assert run.seconds >= 300
    assert back.by_source["script"] >= 20 and back.by_source["thanks"] >= 1  # talk filled the quiet, gifts thanked
    assert back.repeats == [], back.summary()
    # the room's own count agrees with the read-back
    talk = run.director.talk
    assert talk is not None and talk.window.repeats_total == 0
    assert talk.snapshot(run.seconds)["distinct_sentences_hour"] == back.distinct
