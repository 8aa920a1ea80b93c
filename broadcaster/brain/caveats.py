"""What the facts attach to a promise, an action or a state, and a sentence that says it away: the condition a return
needs, the wait after an action, the state they call normal, the manner they set (干手, 中小火).

"支持七天无理由退货，需…枕套吊牌未剪" makes an uncut tag the condition, so "剪了吊牌也能退" goes against it; "拆袋后平放通风
24小时即可回弹" sets a wait after unpacking, so "拆开就能直接睡" goes against it; "发黄属于乳胶自然氧化，不影响使用" calls
yellowing normal, so "发黄了说明有质量问题" goes against it. None of these needs a digit to be wrong, and none names a word
of its own product: each reads the facts' grammar (需…未V, A后…N小时, X属于…自然/不影响使用).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from broadcaster.brain.lists import CLAUSE

# A condition a promise needs (需枕芯干净无污渍、枕套吊牌未剪; 前提是未拆封): its items that must not have happened.
_NEEDS = re.compile(r"(?:需要?|须|必须|要求|前提是|前提为|条件是)([^。；;！!？?]{2,30})")
_NOT_DONE = re.compile(r"([\u4e00-\u9fff]{0,4}?)(?:未|没有?|不曾)([\u4e00-\u9fff])")
# A sentence that says the promise holds anyway (剪了吊牌也能退, 用过照样退).
_ANYWAY = re.compile(r"也能|也可以|也行|也没事|也没关系|也支持|也给|照样|照常|一样(?:能|可以|支持)|都能|都可以|都支持|还能|还可以|"
                     r"不影响|没关系|没事")
# The promise a condition is of, said in the sentence (用过也支持七天无理由: the act done, the thing unnamed).
_PROMISE = re.compile(r"退|无理由|保修|质保")
# A wait the facts set after an action (拆袋后平放通风24小时即可回弹, 充满电后静置2小时).
_WAIT = re.compile(r"([\u4e00-\u9fff]{2})后[^，,。；;]{0,12}?(?:\d+(?:\.\d+)?|[一二两三四五六七八九十半]+)\s*(?:个)?(?:分钟|小时|天|周)(?!内|以内|之内)")
# A sentence that skips it: the action, then at once (拆开就能直接睡, 收到马上用).
_AT_ONCE = re.compile(r"就能|就可以|就行|直接|马上|立刻|立马|即刻|当晚|当天|随时")
_DURATION = re.compile(r"\d|[一二两三四五六七八九十半几]\s*(?:个)?(?:分钟|小时|天|周)")
# A state the facts call normal (发黄属于乳胶自然氧化，不影响使用; 有轻微气味是正常现象), and a sentence calling it a defect.
_NORMAL = re.compile(r"^([\u4e00-\u9fff]{2,10}?)(?:属于|是|为|系)[\u4e00-\u9fff]{0,8}?(?:正常|自然)|^([\u4e00-\u9fff]{2,12}?)(?:不影响使用|属正常|属于正常)")
# …and a sentence saying it will not happen at all (第一次洗也不会有浮色 where 首次洗涤有轻微浮色属正常现象).
_NEVER = r"(?:不会有?|没有|不会出现|不存在|绝不会|一点都?不)(?:任何|一点)?"
# …and a state called normal that the facts never call so (胀袋是正常现象 where 胀袋 is a reason to return it).
_CALLED_NORMAL = re.compile(r"(?<![\u4e00-\u9fff])(?!这|那|它|都|也)([\u4e00-\u9fff]{2,4}?)(?:是|属于|属|为)(?:很|比较)?正常(?:现象|的|情况)?")
_DEFECT = re.compile(r"质量问题|有问题|不正常|坏了|次品|残次|瑕疵|毛病|劣质|假货")
# A manner the facts set (请用干手取用, 建议中小火烹饪, 需用冷水手洗), and its opposite said to be fine (湿手拿也没问题,
# 开大火也没事): the opposite of the manner's quality with the same thing.
_MANNER = re.compile(r"(?:请|要|需要?|建议|务必|必须|只能|应|最好)(?:用|在|以|使用)?(中小|干|冷|凉|低|小|轻|慢|温)([\u4e00-\u9fff])")
_OPPOSITE = {"干": "湿", "冷": "热|烫|开", "凉": "热|烫|开", "低": "高", "小": "大|猛", "中小": "大|猛", "轻": "重|用力",
             "慢": "快", "温": "热|烫|开"}
# A switch the facts say is automatic or by hand (机身离开平面时灯会自动熄灭, 需手动关机): the other way said of it
# (离开床面紫外线灯要手动关) goes against it. The acts by what they do: switching off, or on.
_SWITCH = re.compile(r"(自动|手动)(?:地|去)?(熄灭|关闭|关机|断电|停止|停机|开启|开机|启动|打开|[关熄停断开启])")
_OFF = frozenset("关熄停断")
# A step the facts put first (使用时先把头发吹到八成干, 先充满电再用): said not needed (不用吹干) it goes against them.
_FIRST = re.compile(r"先(?:把[\u4e00-\u9fff]{1,4}?)?(吹|擦|洗|晾|烘|预热|充电|充满|加水|泡|摇)")
_SKIP = r"(?:不用|不需要|无需|不必|用不着|免)(?:先)?(?:把[\u4e00-\u9fff]{1,4}?)?"
_FINE = re.compile(r"没问题|放心|随便|可以|能|行|没事|没关系|照样|一样")
_NOT_FINE = re.compile(r"不|别|勿|禁止|避免")


class Caveats:
    """The facts' conditions, waits and normal states (built with FactClaims)."""

    def __init__(self) -> None:
        self.conditions: list[tuple[str, str, str]] = []  # (the thing, the act that must not have happened, the fact)
        self.done: list[tuple[re.Pattern[str], re.Pattern[str], str]] = []  # (the act said done, no thing named; the promise; the fact)
        self.waits: list[tuple[str, str]] = []  # (the action a wait follows, the fact)
        self.normal: list[tuple[str, str]] = []  # (the state called normal, the fact)
        self.manners: list[tuple[re.Pattern[str], str]] = []  # (the manner's opposite, the fact)
        self.switches: list[tuple[str, bool, str]] = []  # (自动 or 手动, switching off, the fact)
        self.first: list[tuple[re.Pattern[str], str]] = []  # (the step said not needed, the fact)

    def read(self, sentence: str) -> None:
        for m in _NEEDS.finditer(sentence):
            for item in re.split(r"[、，,和及与]", m.group(1)):
                for n in _NOT_DONE.finditer(item):
                    if n.group(1):
                        self.conditions.append((n.group(1)[-2:], n.group(2), sentence))
                    verb = re.match(r"[\u4e00-\u9fff]{1,2}", item[n.end(2) - 1 :])
                    if verb is not None and _PROMISE.search(sentence):
                        # (未使用: 用过, 使用后; 未拆封: 拆了, 拆封过; 吊牌未剪: 剪掉了)
                        v = verb.group(0)
                        heads = "".join(dict.fromkeys(v[0] + v[-1]))
                        promise = re.compile("|".join(dict.fromkeys(p.group(0) for p in _PROMISE.finditer(sentence))))
                        self.done.append((re.compile(rf"{v}(?:过|了|后)|(?<![未没不])[{heads}](?:过|了|掉|开)(?!吗|没)"), promise, sentence))
        self.waits.extend((m.group(1), sentence) for m in _WAIT.finditer(sentence))
        self.first.extend((re.compile(_SKIP + m.group(1)), sentence) for m in _FIRST.finditer(sentence))
        self.switches.extend((m.group(1), m.group(2)[0] in _OFF, sentence) for m in _SWITCH.finditer(sentence))
        self.manners.extend((re.compile(f"(?:{_OPPOSITE[m.group(1)]}){m.group(2)}"), sentence) for m in _MANNER.finditer(sentence))
        for clause in CLAUSE.findall(sentence):
            m = _NORMAL.search(clause.strip())
            if m is not None:
                self.normal.append(((m.group(1) or m.group(2))[-2:], sentence))

    def against(self, sentence: str, negated_at: Callable[[str, int], bool], find: Callable[[str, str], int]) -> str:
        """The caveat a sentence says away ('' when none); `negated_at(sentence, i)`: a negation just before i; `find`:
        where the sentence says a word, in its words or one of the same meaning (-1: nowhere)."""
        for clause in CLAUSE.findall(sentence):
            for thing, act, fact in self.conditions:
                at = clause.find(act)
                if thing in clause and at >= 0 and _ANYWAY.search(clause) and not negated_at(clause, at):
                    return f"{thing} {act} said to be fine where the facts need it not: {fact}"
            for done, promise, fact in self.done:
                m = done.search(clause)
                if m is not None and _ANYWAY.search(clause, m.end()) and promise.search(sentence) and not negated_at(clause, m.start()):
                    return f"{m.group(0)} said to be fine where the facts need it not: {fact}"
            for action, fact in self.waits:
                at = find(clause, action)
                m = _AT_ONCE.search(clause, max(at, 0))
                if at >= 0 and m is not None and not _DURATION.search(clause) and not negated_at(clause, m.start()):
                    return f"at once after {action} where the facts set a wait: {fact}"
            m = _CALLED_NORMAL.search(clause)
            if m is not None and not any(state in m.group(1) or m.group(1)[-2:] in state for state, _ in self.normal) \
                    and not negated_at(clause, m.start(1)):
                return f"{m.group(1)} called normal where the facts do not say so"
            for skip, fact in self.first:
                m = skip.search(clause)
                if m is not None:
                    return f"{m.group(0)} where the facts put it first: {fact}"
            for m in _SWITCH.finditer(clause):
                way, off = m.group(1), m.group(2)[0] in _OFF
                fact = next((f for w, o, f in self.switches if o == off and w != way), "")
                if fact and not any(w == way and o == off for w, o, _ in self.switches) and not negated_at(clause, m.start()):
                    return f"{m.group(0)} where the facts say otherwise: {fact}"
            for opposite, fact in self.manners:
                m = opposite.search(clause)
                if m is not None and _FINE.search(clause) and not _NOT_FINE.search(clause):
                    return f"{m.group(0)} said fine where the facts set the opposite: {fact}"
            for state, fact in self.normal:
                m = _DEFECT.search(clause)
                if state in clause and m is not None and not negated_at(clause, m.start()):
                    return f"{state} called a defect where the facts call it normal: {fact}"
                if re.search(_NEVER + state, clause):
                    return f"{state} said never to happen where the facts call it normal: {fact}"
        return ""
