"""Paraphrases written ahead by a stub LLM: only what the guard and moderation pass is voiced (refusals counted by
reason), pre-voiced before use, cached per product and facts version; a paraphraser that hangs, times out or
fails changes nothing on air."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from director_helpers import moderator

from broadcaster.director.config import ParaphraseConfig
from broadcaster.director.paraphrase import Paraphraser
from broadcaster.director.talk import Scene, TalkTrack
from broadcaster.director.variants import split_sentences

NOON = dt.time(12, 0)
FACTS = ("暖暖保温杯，直播间到手价169元，日常价199元。", "容量500毫升，热水保温12小时。", "内胆316不锈钢。")
TRACK = {"segments": [{"name": "pitch", "lines": ["这款{product}内胆是316不锈钢，热水能保温12小时。",
                                                  "现在有{viewers}位朋友在看，有问题打在公屏上。"]}]}
GOOD = "316不锈钢的内胆，热水放进去12个小时还是热的。"
BAD = {
    "figure": "这款杯子今天只要99元。",
    "promise": "下单就买一送一，机会难得。",
    "absolute": "它是销量第一的保温杯。",
    "moderation": "想要优惠的加微信领券。",
    "slots": "现在有{viewers}位朋友在看这款杯子。",  # a slot the original line does not have
    "duplicate": "这款暖暖保温杯内胆是316不锈钢，热水能保温12小时。",  # the line itself
    "leak": "只能使用给出的产品资料和原句里的事实。",  # the prompt's own rules read out
}


class StubLLM:
    """The brain's Backend shape: stream(messages, max_tokens=, temperature=) and close()."""

    name = "stub"
    model = "stub"

    def __init__(self, answer: Callable[[str], str] | None = None, *, hang: bool = False, fail: bool = False) -> None:
        self.answer = answer or (lambda prompt: "")
        self.hang = hang
        self.fail = fail
        self.prompts: list[str] = []

    async def stream(self, messages, *, max_tokens: int, temperature: float) -> AsyncIterator[str]:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        if self.fail:
            raise RuntimeError("the model server said no")
        if self.hang:
            await asyncio.Event().wait()
        text = self.answer(prompt)
        for i in range(0, len(text), 7):  # streamed in pieces, like a server
            await asyncio.sleep(0)
            yield text[i : i + 7]

    async def close(self) -> None:
        pass


def _pitch_answer(prompt: str) -> str:
    if "- 这款暖暖保温杯内胆是316不锈钢" in prompt:  # asked to paraphrase the first pitch line
        return "\n".join(["1. " + GOOD, *(f"{i + 2}. {t}" for i, t in enumerate(BAD.values()))])
    return ""


def _track(**kw) -> TalkTrack:
    t = TalkTrack.from_dict(TRACK, "talk.yaml", seed=kw.pop("seed", 2))
    t.moderator = moderator(words=["微信"])
    return t


async def _settle(p: Paraphraser, rounds: int = 2000) -> None:
    """Lets the worker run until nothing is pending (bounded, so a stuck worker fails the test)."""
    for _ in range(rounds):
        await asyncio.sleep(0.001)
        if p.waiting()[1] == 0 and (p._task is None or not p._queued):
            return
    raise AssertionError(f"the paraphraser never settled: {p.snapshot()}")


async def test_only_checked_paraphrases_are_voiced_and_refusals_are_counted_by_reason(tmp_path: Path) -> None:
    voiced: list[str] = []

    async def prevoice(texts: list[str]) -> int:
        voiced.extend(texts)
        return len(texts)

    t = _track()
    llm = StubLLM(_pitch_answer)
    p = Paraphraser(llm, t.moderator, ParaphraseConfig(enabled=True, per_line=3, points=0), room="para",
                    prevoice=prevoice)
    t.attach_paraphraser(p)
    scene = Scene("cup", "暖暖保温杯", facts=FACTS, facts_version="v1")
    said = [t.next(0.0, NOON, scene)[1]]  # the first draw asks for paraphrases; it is not kept waiting
    await _settle(p)
    assert p.rejected == dict.fromkeys(BAD, 1)
    assert voiced == [GOOD]  # pre-voiced before it can be said
    item = t.segments[0].items[0]
    assert [x.text for x in p.ready(scene, item)] == [GOOD]
    for i in range(1, 80):
        said.append(t.next(i * 700.0, NOON, scene)[1])  # past the window every time: anything may come
    sentences = {s for text in said for s in split_sentences(text)}
    assert GOOD in said
    refused = {s for why, text in BAD.items() if why != "duplicate" for s in split_sentences(text)}
    assert not sentences & refused  # never voiced
    for i in range(5):  # lines still short of per_line are asked for again: three calls a line at most
        t.next(80 * 700.0 + i, NOON, scene)
        await _settle(p)
    snap = t.snapshot(90 * 700.0)["paraphrases"]
    first = sum("- 这款暖暖保温杯内胆是316不锈钢" in prompt for prompt in llm.prompts)
    assert first == 3 and len(llm.prompts) == 6
    assert snap["accepted"] == 1 and snap["rejected"]["figure"] == 3 and snap["rejected"]["duplicate"] == 1 + 2 * 2  # later calls: the line and GOOD again
    assert snap["pending"] == 0 and snap["ready"] == 0  # the one paraphrase was said
    await p.close()


async def test_cached_per_product_and_facts_version(tmp_path: Path) -> None:
    cfg = ParaphraseConfig(enabled=True, per_line=1, points=0, cache_dir=tmp_path / "para")
    t = _track()
    p = Paraphraser(StubLLM(_pitch_answer), t.moderator, cfg, room="cache")
    t.attach_paraphraser(p)
    v1 = Scene("cup", "暖暖保温杯", facts=FACTS, facts_version="v1")
    t.next(0.0, NOON, v1)
    await _settle(p)
    saved = json.loads((tmp_path / "para" / "cup-v1.json").read_text(encoding="utf-8"))
    assert saved["facts_version"] == "v1" and GOOD in next(iter(saved["lines"].values()))
    await p.close()
    # A restart: the cached paraphrases come back without an LLM call, even with a broken server.
    broken = StubLLM(fail=True)
    t2 = _track()
    p2 = Paraphraser(broken, t2.moderator, cfg, room="cache")
    t2.attach_paraphraser(p2)
    item = t2.segments[0].items[0]
    assert p2.ready(v1, item) == ()  # not loaded yet: the worker reads the file, off the air path
    await _settle(p2)
    assert [x.text for x in p2.ready(v1, item)] == [GOOD] and broken.prompts == []
    # New facts: nothing of the old version is used.
    v2 = Scene("cup", "暖暖保温杯", facts=(*FACTS, "新增：杯盖升级为弹盖。"), facts_version="v2")
    assert p2.ready(v2, item) == ()
    await p2.close()


async def test_selling_lines_from_the_facts_join_the_products_loop() -> None:
    def answer(prompt: str) -> str:
        return "容量500毫升，一上午的水都够喝。\n热水保温12小时，冬天也不怕凉。\n这杯子保温24小时。" if "卖点" in prompt else ""

    t = _track()
    p = Paraphraser(StubLLM(answer), t.moderator, ParaphraseConfig(enabled=True, per_line=1, points=2), room="pts")
    t.attach_paraphraser(p)
    scene = Scene("cup", "暖暖保温杯", facts=FACTS, facts_version="v1")
    t.next(0.0, NOON, scene)
    await _settle(p)
    said = [t.next(1000.0 * i, NOON, scene) for i in range(1, 12)]
    points = {text for seg, text in said if seg == "points"}
    assert points == {"容量500毫升，一上午的水都够喝。", "热水保温12小时，冬天也不怕凉。"}
    assert p.rejected == {"figure": 1}  # 24小时 is not in the facts
    await p.close()


def _run(track: TalkTrack, scene: Scene, steps: int) -> list[tuple[float, str, str]]:
    out = []
    now = 0.0
    for _ in range(steps):
        got = track.next(now, NOON, scene)
        assert got is not None
        out.append((now, *got))
        now += len(got[1]) / 4.5 + 2.0
    return out


async def test_a_hanging_slow_or_failing_paraphraser_changes_nothing_on_air() -> None:
    scene = Scene("cup", "暖暖保温杯", facts=FACTS, facts_version="v1")
    plain = _track(seed=4)
    expected = _run(plain, scene, 60)
    for name, llm, timeout in (("hang", StubLLM(hang=True), 30.0), ("slow", StubLLM(hang=True), 0.05),
                               ("fail", StubLLM(fail=True), 30.0)):
        t = _track(seed=4)
        p = Paraphraser(llm, t.moderator, ParaphraseConfig(enabled=True, timeout_s=timeout), room=name)
        t.attach_paraphraser(p)
        trail = []
        now = 0.0
        for _ in range(60):  # the worker gets the loop between every line
            got = t.next(now, NOON, scene)
            trail.append((now, *got))
            now += len(got[1]) / 4.5 + 2.0
            await asyncio.sleep(0.002)
        # the same lines at the same times as without a paraphraser: no line waited on it
        assert trail == expected, name
        assert llm.prompts, f"{name}: the worker asked the model"
        if name != "hang":
            for _ in range(500):
                if p.llm_errors:
                    break
                await asyncio.sleep(0.01)
            assert p.llm_errors >= 1 and p.accepted == 0, name
        await p.close()
