"""Claims without digits held against the facts: the facts' own negations and limits win.

A model may promise what the facts deny without saying a number: "面料完全防水" where they say 不是防水面料, "新疆西藏也都
包邮" where those regions pay extra, "香港台湾也能发" where 港澳台 are not shipped to, "我们有童装" where 暂无儿童款,
"每单都送…不限量" where the gift is for the first 200 orders, "IPX8" where it is IPX4. `FactClaims` reads, once per
knowledge base, what the facts deny (a predicate after 不/不是/暂无/不支持/不可 …, with its subject), which regions they
charge extra or do not serve, which gifts and offers they limit, and which spec codes they state; `contradiction`
names the fact a sentence goes against, or returns ''. A sentence that itself negates the predicate ("不支持货到付款")
or keeps the limit ("前200单送") agrees with the facts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from broadcaster.brain.caveats import Caveats
from broadcaster.brain.denied import denied_figures, said_as_the_goods
from broadcaster.brain.lists import CLAUSE, Lists
from broadcaster.brain.materials import Materials
from broadcaster.brain.places import regions_in, spoken_regions
from broadcaster.brain.regions import Regions
from broadcaster.brain.sentences import split_sentences
from broadcaster.brain.terms import Terms
from broadcaster.brain.textnorm import dense_with_figures
from broadcaster.brain.thesaurus import PEOPLE, find, find_action, span
from broadcaster.brain.unstated import spec_codes, unstated
from broadcaster.brain.variants import SizeFigures

_NEG = r"严禁|切勿|避免|远离|不要|请勿|不得|暂不|暂无|暂时不|暂时没有|无需|无须|不需要|不必|不支持|不可以|不可|不能|不会|不是|不含|不包括|不包含|不提供|不建议|不适合|不宜|不做|无法|没有|并非|非|禁止|勿|不"

_WHEN_WORDS = frozenset({"目前", "现在", "暂时", "当前", "眼下", "今年", "今天", "近期", "最近", "本店", "店里", "我们"})
_NEG_RE = re.compile(_NEG)
_ITEM_SPLIT = re.compile(r"[和及与、或/]|以及|或者|也(?:不能|不可|不要|不宜|别|没有|没|不)")
# Words a denied predicate is said with that name nothing of its own.
_FILLER = re.compile(r"^(?:的|了|用于|用来|进行|提供|支持|可以|能|会|是|做|被|给|在|于|为|作为|替代|代替|用|也|都|再|这|那|一|个)+|"
                     r"(?:的|了|哦|呢|啊|吗|等|之类)+$")
# A negation in the sentence just before a predicate: it agrees with the fact.
_NEGATED_BEFORE = re.compile(r"(?:不|没|无|非|别|勿|未|禁止|不能|不可|不会|不是|不要|暂不|暂无)[\u4e00-\u9fff]{0,3}$")

# A gift or offer the facts limit, and a sentence that makes it for everyone.
_LIMITED = re.compile(r"前\s*\d+\s*(?:单|名|位|个|份)|限量|赠完即止|送完即止|送完为止|赠完为止|先到先得|仅限|限前|数量有限|每人限|每个账号限")
_EVERYONE = re.compile(r"所有(?:订单|人|下单|宝子|家人)|每(?:一)?(?:单|位|个人|个订单)都|人人|都送|都有份|不限量|管够|无限量?|统统|全部都送|全都送|"
                       r"每(?:一)?单都|一律送|全员|(?:下单|买|拍)(?:了|的)?都(?:有|送)")
_GIFT = re.compile(r"送|赠|福利|礼")

# What the facts require (需/要/请/建议 X, 每…一次): a sentence that says it is not needed goes against them.
_REQUIRE = re.compile(r"(?<![无不没勿别])(?:需要?|要|请|建议|务必|必须|记得)([\u4e00-\u9fff]{2,8})|每[\u4e00-\u9fff\d]{0,4}([\u4e00-\u9fff]{2,4})一次")
# (不用 of "while not in use" is no "no need": 长时间不用的话充满电关机)
_NO_NEED = re.compile(r"(?:(?<!长时间)(?<!长期)(?<!暂时)(?<!平时)不用(?![的时])|不需要|无需|无须|不必|没必要|免)(?:再|去|专门|单独|特意)?([\u4e00-\u9fff]{2,6})")
# A limit on buying the facts state (限购5支, 每人限…), said away ("不限购", "想拍多少拍多少").
_BUY_LIMIT = re.compile(r"限购|每(?:人|个账号|个ID|单)限|仅限\d|最多(?:买|拍)")
_NO_LIMIT = re.compile(r"不限购|无限购|没有限购|不限量|随便(?:拍|买)|想(?:拍|买|要)(?:多少|几)|(?:拍|买|下单)(?:多少|几)[\u4e00-\u9fff]?都")
# The box said to hold a thing (带被芯, 含枕芯, 送一个, 里面有), and advice to use another (建议另选婴儿专用的).
_HOLDS = re.compile(r"[带含包括送配附有]|里面|里头|一起")
_MADE_OF = re.compile(r"做的|制成|制作|材质|材料|面料|成分")
_ADVISED = re.compile(r"(?:建议|最好|请)(?:另选|另外选|另用|选用|换用|用|选|换)[\u4e00-\u9fff]{0,4}$")
# A bare yes opening an answer (可以坐。 能的， 有的， 带的。): the viewer's question is what it affirms.
_YES = re.compile(r"^(?:当然|完全|绝对)?(?:可以|能|行|没问题|放心|是的|对的?|有的|[带送含包配附会]的)(?:的|啊|哈|呀|哦|呢)?(?:[，,。！!~]|[\u4e00-\u9fff]{1,2}[。！!~]?$)")
# A product line said to exist ("我们有迷你儿童款", "还出了加大版"): only one the facts name.
_LINE = re.compile(r"(?:有|出了?|推出了?|新出了?)(?:一?[款个种套])?([\u4e00-\u9fffA-Za-z0-9]{2,6}?)(?:款|版)(?![式])")
# A sentence saying something is absent or not included (没有任何涂层, 不含X, 不带X).
_ABSENT = re.compile(r"(?:没有任何|没有|无任何|不含任何|不含|不带|不附带|没配|不配)([\u4e00-\u9fff]{2,6})|"
                     r"(拆)不(?:下来|掉|开)|不(?:能|可以|可)(拆)")  # (拆不下来 where the facts say 可拆卸)
# The whole product said of (整个枕头都能机洗): a denial about a part of it holds.
_WHOLE = re.compile(r"整个|整只|整件|整条|整套|整体|连同|连[\u4e00-\u9fff]{1,4}一起|全部都")


@dataclass(frozen=True, slots=True)
class Denial:
    fact: str
    keys: tuple[str, ...]  # the denied predicate's words ("防水面料" → 防水面料, 防水)
    regions: tuple[str, ...]  # regions the denial is about (its subject), empty for any
    subject: tuple[str, ...] = ()  # other words of its subject ("人为损坏和进水不在保修范围内" → 人为, 损坏, 进水)
    contents: bool = False  # what the box does not hold (不含被芯): gone against only where it is said to hold it (带被芯)


def _segments(text: str) -> list[str]:
    from broadcaster.brain.lexical import tokenize

    return [t for t in tokenize(text) if not t.startswith("\x01")]


# Words a denied predicate's longer phrase holds that name nothing of their own ("不要放在超过40度的车内": 超过).
_GENERIC = frozenset({"上面", "下面", "里面", "外面", "旁边", "上方", "下方", "底部", "顶部",
                      "超过", "使用", "进行", "单独", "直接", "需要", "可以", "能够", "以上", "以下", "之后", "之前", "时候", "时间",
                      "地方", "东西", "情况", "一起", "长期", "经常", "专门", "特别", "任何", "所有", "全部", "部分", "一般", "正常",
                      "普通", "影响", "范围", "方式", "问题", "要求", "建议", "摄氏", "摄氏度", "厘米", "毫升", "小时", "分钟",
                      # a light verb with its preposition names no predicate ("禁止放在水龙头下冲洗": 放在; "不要加香水": 要加)
                      "要加", "放在", "放到", "放进", "放入", "用于", "适用", "适用于"})


def _keys(predicate: str, affirmed: frozenset[str]) -> tuple[str, ...]:
    """The words that name a denied predicate: each listed item whole (fillers off), and of its words those the facts
    only ever say under a negation ("不是防水面料" → 防水, not 面料, which "面料为聚酯纤维" affirms)."""
    out: list[str] = []
    for item in _ITEM_SPLIT.split(predicate):
        item = item.strip()
        if item[:1] in "不没无非" and (_segments(item) or [""])[0] == item[:1]:
            item = item[1:]  # "不泛白、不搓泥": each item bare (not 无线充电: 无线 is a word)
        bare = _FILLER.sub("", _PLACE_OF.sub("", item))  # ("不要在毯子上面再压厚褥子": where is no predicate)
        item = bare if len(bare) >= 2 or len(item) > 2 else item  # (a noun a filler begins stays: 被芯 of 不含被芯)
        if re.fullmatch(r"[A-Za-z]{2,}", item):
            out.append(item)  # a named thing (不支持USB): what is denied
            continue
        if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.\- ]*[A-Za-z0-9]", item) and re.search(r"[A-Za-z]", item):
            out.extend(dict.fromkeys((item, item.split()[0])))  # a named band or standard (不支持5G Wi-Fi: 5G)
            continue
        if len(item) < 2 or not re.search(r"[\u4e00-\u9fff]", item):
            continue
        out.append(item)
        if item[-1] in "款版型号" and (re.search(r"\d", item) or (len(item) >= 3 and item[:-1] not in affirmed
                                                                   and item[:-1] not in PEOPLE)):
            out.append(item[:-1])  # a line the facts do not have (暂无28厘米款, 暂无床笠款): "28厘米的也有", "选床笠就行" say it
        obj = _PUT.sub("", item)
        if obj != item and obj not in affirmed:
            out.append(obj)  # what is put in (不要加香水: 香水, said "滴一点香水" too)
        if len(item) >= 4:
            out.extend(t for t in _segments(item) if len(t) >= 2 and t not in affirmed and t not in _GENERIC
                       and re.search(r"[\u4e00-\u9fff]", t))
    return tuple(dict.fromkeys(out))


# A verb of putting something in or on before its object (加香水, 涂面霜).
_PUT = re.compile(r"^(?:加|放|倒|滴|喷|涂|抹|装)(?=[\u4e00-\u9fff]{2})")
# Where a denied act would happen ("在毯子上面"): a place, no predicate.
_PLACE_OF = re.compile(r"^(?:要|再)?在[\u4e00-\u9fff]{1,6}?(?:上面|下面|里面|旁边|边上|上|里|中|下|内)(?:再)?")


def _clause_start(sentence: str, at: int) -> int:
    return max((sentence.rfind(c, 0, at) for c in "，,；;。！？!?"), default=-1) + 1


def _clause_at(sentence: str, at: int) -> str:
    return sentence[_clause_start(sentence, at):at]


def _negated_at(sentence: str, at: int) -> bool:
    """Whether the word at `at` is under a negation: one earlier in its clause ("暂时没有男款和儿童款", "别戴着游泳洗澡")."""
    start = _clause_start(sentence, at)
    return any(_negation(t) for t in _segments(sentence[start:at]))


_MATERIALS = ("粘", "锈", "干胶")  # 不粘涂层, 不锈钢, 不干胶: names of materials, no denial
# Words that begin with a negation character and negate nothing (不锈钢, 无线, 非常, 不错).
_NOT_NEGATIONS = (*(f"不{m}" for m in _MATERIALS), "不错", "不过", "不同", "不少", "不断", "不仅", "不但", "不管", "不然", "不久", "不如",
                  "非常", "未来", "别的", "别人", "别家", "别处", "别样", "特别", "区别", "分别", "级别", "类别", "个别", "性别",
                  "告别", "识别", "差别", "鉴别", "辨别", "没准")


def _negation(token: str) -> bool:
    """Whether a word negates (不, 没有, 别戴, 千万别, 未, 非人为, 禁止 — not 无线, 不锈钢, 非常)."""
    if any(w in token for w in _NOT_NEGATIONS):
        return False
    return any(c in token for c in "不没别勿未") or token[:1] == "非" \
        or token in ("无", "无法", "无需", "无须", "禁止", "严禁", "暂无", "并非", "毫无")


_ALL_WELL = "问题|关系|事|毛病|影响"  # 没问题, 没关系: no denial
# A verb's "cannot" complement just after it (发不了, 寄不到, 送不出去): the sentence denies as the fact does.
_UNSUITED = re.compile(r"([^，,。；;]+?)(?:都|也|均)?(?:不适用|不适合|不宜使用)(?:[。；;，,]|$)")
_USE_OK = re.compile(r"(?:可以|能|都能|也能)(?:洗|用|放|穿|吃|喝)|都(?:可以|行|没问题)|适用|适合|没问题")
_CANNOT = re.compile(r"[\u4e00-\u9fff]?不(?:了|到|出|过去|进)")
# What it denies named first and forbidden later in the clause ("香水、柔顺剂都别往里加", "PU皮这些材质不适合用它烫"): a
# prohibition, never a "won't" (香水加了也不会坏 asserts it) nor a reassurance (别担心), nor 别 inside a word (级别).
_FORBIDDEN_AFTER = re.compile(r"[^，,。；;！!？?]{0,20}?(?:(?<![级区特分性类告识差个辨])别(?!担心|怕|急|慌|犹豫|错过)|不要|不能|不适合|不宜|不可以|不可|不建议|不推荐|慎用|禁止|切勿|严禁|勿)")
# A denial said after what it denies ("儿童款现在还没有", "货到付款是不支持的", "港澳台暂时不发"): the sentence agrees.
# (the items it lists may come first: "单人款和儿童款都还没有"; a verb's "cannot": "专票暂时开不了")
_DENIED_AFTER = re.compile(r"(?:[和、及与跟][\u4e00-\u9fff]{1,6}?)*[\u4e00-\u9fff]{0,2}?(?:现在|目前|暂时|暂|还|也|都|是|就|的|哦|哈|呢|，|,)*"
                           rf"(?:(?:没有|没)(?!{_ALL_WELL})|远(?!程)|[\u4e00-\u9fff]不(?:了|到|出|来)|不支持|不行|不可以|不能|不会|不提供|不发|不送|无法|暂无|暂不|"
                           r"不(?!错|用担心|怕|少|仅|但))")
_PREDICATE_ON = re.compile(r"[\u4e00-\u9fff]{2,}")
def _negated_clause(sentence: str, at: int) -> bool:
    """Whether the clause around `at` says a negation anywhere in it."""
    start = _clause_start(sentence, at)
    ends = [i for i in (sentence.find(c, at) for c in "，,；;。！？!?") if i >= 0]
    clause = _NO_WORRY.sub("", sentence[start:min(ends, default=len(sentence))])
    return any(_negation(t) for t in _segments(clause))


# Negation words that say all is well (没问题, 没关系, 不用担心): no negation of what is said
_NO_WORRY = re.compile(rf"没(?:有)?(?:{_ALL_WELL})|不错|不用(?:担心|怕)|不怕")


class FactClaims:
    """What a knowledge base denies and limits (built once per KB version; see module doc)."""

    def __init__(self, facts: Iterable[str], context: Iterable[str] = ()) -> None:
        """`context`: texts whose words the shop affirms without being facts (its products' names: 真无线耳机)."""
        self.denials: list[Denial] = []
        self.regions = Regions()  # the regions the facts serve at a surcharge or do not serve
        self.limited_gifts: list[tuple[str, frozenset[str]]] = []  # (fact, its words)
        self.gift_words: set[str] = set()  # every word of a fact that gives something
        self.codes: set[str] = set()
        self.required: dict[str, str] = {}  # a required action's words → the fact
        self.buy_limit = ""  # the fact that limits how many one may buy
        self.terms = Terms()  # the default carrier, who pays when, what is sold apart
        self.lists = Lists()  # the facts' enumerations (colours, flavours, what is in the box)
        self.caveats = Caveats()  # a promise's conditions, the wait after an action, the states called normal
        self.materials = Materials()  # what each part is made of
        sentences = [x for fact in facts for x in split_sentences(fact, 200)]
        self.absolute = "\n".join(sentences)  # every fact's text, for an absolute promise the facts themselves make
        self._own = "\n".join(dense_with_figures(x) for x in sentences)  # a clause of the facts said in their words goes against nothing
        self.sizes = SizeFigures(tuple(sentences))  # which size each figure is of (1.5米's 259元, 1.8米's 220×240厘米)
        self.denied_figures = denied_figures(tuple(sentences))  # figures said only as what the goods are not (暂无2升款)
        # words the facts say outside any negation (a denied predicate's word that is affirmed elsewhere names nothing)
        affirmed: set[str] = {t for text in context for t in _segments(text)}
        for sentence in sentences:
            for clause, start, _, _ in _denied(sentence):
                affirmed.update(_segments(clause[:start] if start >= 0 else clause))
        self._affirmed = frozenset(affirmed)
        for sentence in sentences:
            self._read(sentence)
        # what the facts state and never deny: a sentence that says it is absent goes against them ("没有任何涂层")
        denied = {t for d in self.denials for k in d.keys for t in (k, *_segments(k))}  # …or want absent (机身无划痕):
        denied |= {t for x in sentences for m in re.finditer(r"(?:无(?![线损论需须法限缝理])|没有|不含|未)([\u4e00-\u9fff]{2,4})", x) for t in _segments(m.group(1))}
        self._stated = frozenset(t for t in self._affirmed if len(t) >= 2 and t not in denied and t not in _GENERIC
                                 and re.fullmatch(r"[\u4e00-\u9fff]+", t))

    def _read(self, sentence: str) -> None:
        self.codes.update(spec_codes(sentence))
        for reader in (self.regions, self.terms, self.lists, self.caveats, self.materials):
            reader.read(sentence)
        for m in _REQUIRE.finditer(sentence):
            for t in _segments(m.group(1) or m.group(2) or ""):
                if len(t) >= 2:
                    self.required.setdefault(t, sentence)
        if _BUY_LIMIT.search(sentence) and not self.buy_limit:
            self.buy_limit = sentence
        if _GIFT.search(sentence):
            words = frozenset(t for t in _segments(sentence) if len(t) >= 2)
            self.gift_words.update(words)
            if _limited(sentence):
                self.limited_gifts.append((sentence, words))
        for clause, start, end, before in _denied(sentence):
            if start < 0:
                continue
            keys = _keys(clause[end:], self._affirmed)
            if keys:
                regions = regions_in(before)
                # the product itself as subject ("本耳机不是助听器", "该产品…") restricts nothing
                own = re.match(r"^\s*(?:本|该|此|这款|这个|我们的?|(?:机身|整机|主机|机器|本机|产品|商品|整体)\s*$)", before) is not None
                # (what it is called is no subject: 食盆属易耗品不保修 → 食盆)
                named = re.sub(r"(?:属于|属|是|为|作为)[\u4e00-\u9fff]{1,6}$", "", before) or before
                subject = () if regions or own else tuple(t for t in _segments(named) if len(t) >= 2 and not t.isdigit()
                                                          and t not in _WHEN_WORDS)  # (目前暂无儿童款: 目前 is no subject)
                contents = re.match(r"不含|不包括|不包含|不带|不附带|不送|不配", clause[start:end]) is not None
                self.denials.append(Denial(sentence, keys, regions, subject, contents))

    def contradiction(self, sentence: str, before: str = "", asked: str = "") -> str:
        """The fact a sentence goes against ('' when none; the module doc lists how); `before`: the answer's sentence just
        before (a charge said after places the facts do not serve is a charge on them)."""
        quoted = dense_with_figures(sentence)
        if len(quoted) >= 6 and any(not _NEGATED_BEFORE.search(self._own[max(0, m.start() - 8) : m.start()])
                                      for m in re.finditer(re.escape(quoted), self._own)):
            # (…but not one cut from its negation: 含被芯和枕芯 of 不含被芯和枕芯)
            return ""
        said = unstated(sentence, self.absolute, self.codes, _negated_at)
        if said:
            return said
        m = _LINE.search(sentence)
        if m is not None and not _negated_at(sentence, m.start()) and not self.lists.names(m.group(1)) \
                and not any(f"{m.group(1)}{kind}" in self.absolute for kind in ("款", "版")):
            return f"a product line the facts do not name: {m.group(0)}"
        m = _NO_NEED.search(sentence)
        if m is not None:
            for t in _segments(m.group(1)):
                if t in self.required:
                    return f"{t} said not needed where the facts require it: {self.required[t]}"
        against = self.terms.against(sentence, _negated_at) or self.caveats.against(sentence, _negated_at, find_action) \
            or self.sizes.against(sentence) or said_as_the_goods(sentence, self.denied_figures) \
            or self.materials.against(sentence, _negated_at)
        if against:
            return against
        if self.buy_limit and _NO_LIMIT.search(sentence):
            return f"no limit where the facts set one: {self.buy_limit}"
        said_regions = spoken_regions(sentence)
        against = self.regions.against(sentence, said_regions, before, asked, _negated_at, _clause_at)
        if against:
            return against
        # (the gift named by the sentence or by the question it answers: "送的滤芯棉人人有吗" → "今天下单都有")
        if _EVERYONE.search(sentence) and (_GIFT.search(sentence) or _GIFT.search(asked)) and not _limited(sentence):
            words = set(_segments(sentence))
            # the limited gift named, or no gift named at all ("今天下单的人人都送"): a gift for everyone the facts limit
            names_other = bool(words & (self.gift_words - {w for _, g in self.limited_gifts for w in g}))
            for fact, gift_words in self.limited_gifts:
                if words & gift_words or not names_other:
                    return f"a limited gift said for everyone: {fact}"
        m = _GIVES.search(sentence)
        if m is not None and not _negated_at(sentence, m.start()):
            thing = [t for t in _segments(m.group(1)) if len(t) >= 2]
            if thing and not any(t in self.gift_words for t in thing):
                return f"a gift the facts do not give: {m.group(0)}"
        extra = self.lists.beyond(sentence)
        if extra:
            return extra
        for m in _ABSENT.finditer(sentence):
            said = [t for t in (_segments(m.group(1)) if m.group(1) else ("拆卸", "拆洗")) if t in self._stated]
            if said:
                return f"{said[0]} said absent where the facts state it"
        # (a bare yes — "可以坐。", "有的" — says what the viewer asked: it goes against what the facts deny of that)
        yes = bool(asked) and _YES.match(sentence) is not None and not any(_denial(c) for c in CLAUSE.findall(sentence))
        return self._denied_in(sentence, said_regions) or (self._denied_in(asked, spoken_regions(asked)) if yes else "")

    def _denied_in(self, sentence: str, said_regions: Sequence[str]) -> str:
        """The denial a sentence asserts the opposite of ('' when none)."""
        for d in self.denials:
            if d.regions and not set(d.regions) & set(said_regions):
                continue
            # (things the facts call unsuited, named first: "真丝、羊毛等…不适用" against "羊毛衫真丝都可以洗")
            m = _USE_OK.search(sentence) if d.keys in (("适用",), ("适合",), ("使用",)) else None
            front = _UNSUITED.search(d.fact) if m is not None else None
            named = [t for t in re.split(r"[、和及与或]", front.group(1).split("等")[0]) if len(t) >= 2] if front else []
            if m is not None and any(find(sentence, t) >= 0 for t in named) and not _negated_at(sentence, m.start()):
                return f"{'、'.join(d.subject[:2])} said suited where the facts say not: {d.fact}"
            if d.subject and not _WHOLE.search(sentence) and not any(find(sentence, t) >= 0 for t in d.subject):
                continue
            for key in d.keys:
                at, end = span(sentence, key, of_a_thing=bool(d.subject))
                # the people it is not for are the subject of the clause: its negation may follow them ("8岁以下的小朋友别让他自己操作")
                after = _DENIED_AFTER.match(sentence, end) if at >= 0 else None
                if after is not None and re.search(r"[，,]", after.group(0)) and (after.group(0).endswith("不") or _PREDICATE_ON.match(sentence, after.end())):
                    after = None  # (past a comma, a bare 不 or a negation its clause goes on past is the next clause's own: "…洗，不伤涂层", "…的，没电了插上线照样刮")
                if at >= 0 and sentence[end : end + 1] in tuple("款版型号") and key + sentence[end] in d.keys:
                    continue  # (a line's stem said with its 款: the whole key reads it, 单人款和儿童款都还没有)
                if d.contents and at >= 0 and not _HOLDS.search(sentence[max(_clause_start(sentence, at), at - 4) : at]) \
                        and not _MADE_OF.match(sentence, end):
                    continue  # (被芯 said of its use, 能把被芯固定住, says nothing of the box; 乳胶做的 is what it is made of)
                if at >= 0 and (_ADVISED.search(sentence[_clause_start(sentence, at) : at]) or (
                        key == "使用" and not any(t in _clause_at(sentence, at) for t in d.subject))):
                    continue  # (advice to use another: 建议用婴儿专用的; use of others than the denial's: 其他人都能用)
                if at >= 0 and not _negated_at(sentence, at) and not _CANNOT.match(sentence, at + 1) and after is None \
                        and not _FORBIDDEN_AFTER.match(sentence, end) \
                        and not (key in PEOPLE and _negated_clause(sentence, at)):
                    return f"{key} where the facts deny it: {d.fact}"
        return ""


# 不 that makes no denial: 不过, 不同, 不少, 不错, 不断, 不用, 不怕, 不好 (肠胃不好), 不太 …
_NOT_DENIAL = ("过", "同", "少", "错", "断", "用", "怕", "好", "太", "但", "仅", "管", "然", "久", "停", "如", *_MATERIALS)


def _denial(clause: str) -> re.Match[str] | None:
    for m in _NEG_RE.finditer(clause):
        if m.group(0) == "不" and any(clause.startswith(w, m.end()) for w in _NOT_DENIAL):
            continue
        if m.group(0) == "非":
            continue  # a noun's prefix in a sheet (非人为损坏, 非质量问题): a kind of thing, no denial
        return m
    return None


# A part and its spec or kind (电源线长1.2米; no verb opens it: 适合体重…); "there is none" needs no part (暂无床笠款).
_TOPIC = re.compile(r"(?!适合|适用|支持|可|能|需|请|建议|仅|只|默认|每|全|下单|使用|用|不|无|没)([\u4e00-\u9fff]{2,4}?)(?:长|宽|高|厚|重|为|是|属于|属|采用)")
_EXISTS = re.compile(r"暂无|没有|无|暂时没有|不含|不包括|不包含|不提供|非|并非")
# A clause that goes on a denial's list ("不适合婴幼儿、孕妇，以及瘫痪…的人使用").
_GOES_ON = re.compile(r"\s*(?:以及|及|还有|或者|或|和)")


def _denied(sentence: str) -> Iterator[tuple[str, int, int, str]]:
    """Each clause of a sentence: where its negation starts and ends (-1, -1: it denies nothing) and its subject (what
    is said before the negation). A clause going on a denial's list denies with it; "不设定时的话" is a condition."""
    last, prev = None, ""
    for clause in CLAUSE.findall(sentence):
        m = _denial(clause)
        # (a clause opening with its negation denies of the part the clause before described: 电源线长1.2米，不可拆卸)
        t = _TOPIC.match(prev) if m is not None and m.start() == 0 and not _EXISTS.fullmatch(m.group(0)) else None
        prev = clause
        if m is not None and "的话" not in clause[m.end():]:
            last = t.group(1) if t is not None else clause[: m.start()]
            yield clause, m.start(), m.end(), last
            continue
        g = _GOES_ON.match(clause) if m is None and last is not None else None
        if g is not None:
            yield clause, 0, g.end(), last
            continue
        last = None
        yield clause, -1, -1, ""


def _limited(sentence: str) -> bool:
    """A limit on a gift or an offer said in the sentence ("前200单", "赠完即止"; not "不限量")."""
    return any(not re.search(r"[不无]$", sentence[: m.start()]) for m in _LIMITED.finditer(sentence))


# What a sentence says is given: 送/赠/附赠 and the thing ("还送一根备用充电线").
_GIVES = re.compile(r"(?:还|再|额外|另外|加|另)?(?:附赠|赠送|加赠|送(?![完到达货出给回去走礼人]|长辈|朋友|老人|父母|爸妈|女友|男友|对象|闺蜜|同事|客户|领导|家人|孩子|老师)|赠(?![完品])|(?<=[再还])(?:加|给)(?=(?:您|你)?[一两二三\d][个支瓶份盒张条包袋])|另外给)(?:您|你|大家)?(?:[一两二三四五六七八九十\d]+)?[个条只份根张包袋盒件瓶双套枚支罐]?"
                    r"([\u4e00-\u9fff]{2,8})")


def fact_claims(facts: Iterable[str]) -> FactClaims:
    """FactClaims for a set of facts, cached per set (a product's facts read once, not per guard)."""
    return _fact_claims(tuple(facts))


@functools.lru_cache(maxsize=32)
def _fact_claims(facts: tuple[str, ...]) -> FactClaims:
    return FactClaims(facts)
