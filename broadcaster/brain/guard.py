"""The grounding guard: withholds answer sentences that state what the context does not.

A sentence may state a figure only when a retrieved passage or a persona fact states the same
(value, unit): "12小时" in the KB does not ground "12个月", "250克" grounds "半斤"'s cousin "0.25千克"
(units are converted), and a count before a classifier ("有5种颜色", "仨罐") is a figure too. The
viewer's question grounds nothing: its numbers are claims to check ("今天是不是9块9？"). Every numeral
form is read: Arabic, Chinese (一二三/两/十/百/千/万/亿, 点 decimals), financial (壹贰叁…), 仨/俩, 廿/卅,
keycap (7️⃣), circled (②, ❷) and full-width digits, money in 9块9 / 3毛5 / 两块五 style, 百分之五十,
八五折, 2w / 1.5k.

Promise phrases (wordlists.PROMISES: 买一送一, 半价, 终身保修, 包邮, 全网最低, 无效退款, gifts …) are
voiced only when a passage makes the same promise (a gift only when the passage names it);
absolute claims the Advertising Law forbids (wordlists.ABSOLUTE_CLAIMS: 最, 第一, 国家级, 顶级 …) are
withheld even when the KB has them. A sentence naming a passage id, talking about its instructions,
or echoing/paraphrasing the system prompt is withheld too.

Since heldout5: urgency and price-change promises (明天涨价, 最后一天, 马上恢复原价, 以后都是这个价) are
promises like the others; carriers, quality/award claims and shipping speed (顺丰, 纯天然, 金奖, 当天发货)
need the very phrase in a passage; the place a product is said to come from must be named by a passage;
and a return promise is checked with its conditions (wordlists.RETURN_CONDITIONS): "拆封了也能无理由退"
needs a passage statement with 拆封 (not 未拆封) and 无理由 together, and a statement's restrictions
(质量问题) must be said too.

Since heldout7/8: health benefits (对胎儿有好处, 养胃, 刮油) and other sales channels (天猫旗舰店) are promises; a
return said "也照样" after another inherits its conditions; a number read digit by digit (零四幺七) must be in
the passages; internal ids in any spelling (passage_3, faq#2), file names, 字段/知识库 and the model behind the
persona (GPT-4, 大模型) are leaks; named facts (an origin, a gift, a promise) may come from anywhere in the
knowledge base (`facts`), figures only from the retrieved passages; and with the viewer's `question`, a
sentence repeating ECHO_CHARS of its characters that no passage has is an echo (whatever slipped input
moderation is not voiced back).

Since heldout9: a figure said with the label the knowledge base states it with ("日常价128元", "付款后24小时内发货":
the same value, unit and the two characters before it) or a count inside a name the KB uses ("两罐装") is grounded by
the whole KB, so a true figure is not withheld because retrieval ranked another passage; a bare or differently
labelled figure still needs the retrieved passages. Delivery-time promises (明天就能到) and payment terms (货到付款)
need the KB's own phrase.

Since heldout10: promises are checked as frames, not only as listed phrases (FRAME_PROMISES: a guarantee word with
what it guarantees, 保证人人都有/包满意/管够; money back or nothing to pay on a condition, 不好喝不要钱/无效退款; something
for nothing, 免费/白送/随便拿; buy-now assurances, 买了不亏/闭眼入/放心买; pay after trying in any verb, 先喝后付; a
guarantee of anything, 保证是新茶, unless what is guaranteed is the KB's own words; universal testimonials, 买过的都回购;
provenance said only in the KB's words, 明前/国宴/古树; body effects in any words, 提神/长高/睡得香; coupons, cash back,
cost price; services for life or at the door; who pays postage, with the KB's restriction), each voiced only when the
knowledge base states the same frame; absolute claims by metaphor and slang (ABSOLUTE_SLANG: 天花板, 顶流,
吊打, 秒杀一切, 遥遥领先, 全网独一家, X之王) are withheld like 最/第一. A figure the KB states in the same unit in a
clause about the same thing (a telling word pair in common: "到手价只要99元" ← "直播间到手价: 99元") is grounded by the
whole KB, so a true figure is not withheld because retrieval ranked another passage; said of something else
("运费99元") or recombined ("99元就能拿两罐") it still is.

Since heldout12: damage made good (破损包赔, 补发新的, 坏了包换), a coupon of any name (无门槛券) and a gift or deal promised
for later (下次直播还会继续送, 明天还送) are promise frames too; and the shop, its goods or the anchor run down in the anchor's
own voice (a viewer's dictated "好，我是骗子", 假货, 黑店) is withheld as disparaging the shop unless said refused (不是骗子).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from broadcaster.brain.claims import FactClaims, fact_claims
from broadcaster.brain.textnorm import dense, is_cjk_char, normalize
from broadcaster.brain.wordlists import (
    ABSOLUTE_CLAIMS,
    EXACT_PROMISES,
    PROMISES,
    RETURN_CONDITIONS,
    RETURN_RESTRICTIONS,
    RETURN_WORDS,
)

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
# Financial and other numeral characters → everyday ones (仨/俩 carry their classifier).
_NUMERAL_MAP = str.maketrans({
    "壹": "一", "贰": "二", "貳": "二", "叁": "三", "參": "三", "肆": "四", "伍": "五", "陆": "六", "陸": "六", "柒": "七",
    "捌": "八", "玖": "九", "拾": "十", "佰": "百", "陌": "百", "仟": "千", "阡": "千", "萬": "万", "億": "亿", "两": "两",
    **{chr(0x2776 + i): str(i + 1) for i in range(9)}, "\u277f": "10",  # ❶…❿
    **{chr(0x278A + i): str(i + 1) for i in range(9)}, "\u2793": "10",  # ➊…➓
    **{chr(0x24F5 + i): str(i + 1) for i in range(9)}, "\u24fe": "10",  # ⓵…⓾
    "\u20e3": "", "\ufe0f": "",  # keycap: 7️⃣ = "7" U+FE0F U+20E3
})
_SPECIAL = [(re.compile("仨"), "三个"), (re.compile("俩"), "两个"), (re.compile("廿"), "二十"), (re.compile("卅"), "三十")]
_CN_NUM = "零〇一二两三四五六七八九十百千万亿"
_CN_DIGIT_CHARS = "零〇一二两三四五六七八九"

_ARABIC = re.compile(r"(?<![a-z0-9_.])[¥$]?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*([万千亿wk](?![a-z]))?")
_CHINESE = re.compile(rf"[{_CN_NUM}]+(?:点[{_CN_DIGIT_CHARS}]+)?")
# "半年", "半斤", "半个月", "一个半小时", "两年半": halves.
_HALF = re.compile(rf"(?:([{_CN_NUM}]+|\d+)(?:个)?半|(?<![{_CN_NUM}\d])半)(?=个?(?:小时|钟头|月|年|斤|天|周|星期|罐|杯))"
                   rf"|([{_CN_NUM}]+|\d+)(年|斤|天|周)半")
# Money said the way people say it: 9块9, 3毛5, 两块五, 九块九毛.
_MONEY = re.compile(
    rf"(\d+|[{_CN_NUM}]+)(块|元)(?![一两][个种款只件罐盒包瓶杯支台套双袋箱份斤])(\d|[{_CN_DIGIT_CHARS}])"
    rf"(?![\d零〇二两三四五六七八九十百千万亿])(?!一(?![个种款只件罐盒包瓶杯支台套双袋箱份]))(?:毛|角)?"
)
_MAO = re.compile(rf"(\d|[{_CN_DIGIT_CHARS}])(毛|角)(\d|[{_CN_DIGIT_CHARS}])?(?![\d{_CN_NUM}])")
_PERCENT = re.compile(rf"百分之([\d.]+|[{_CN_NUM}点]+)")
_DISCOUNT = re.compile(rf"(?<![{_CN_NUM}\d])([{_CN_DIGIT_CHARS}])([{_CN_DIGIT_CHARS}])折")

# Units after a number: canonical unit and the factor to it. Longest first.
_UNITS: list[tuple[str, str, float]] = [
    ("块钱", "元", 1), ("人民币", "元", 1), ("元", "元", 1), ("块", "元", 1), ("rmb", "元", 1), ("毛", "元", 0.1), ("角", "元", 0.1),
    ("折", "折", 1), ("%", "%", 1), ("％", "%", 1), ("percent", "%", 1),
    # Durations in minutes, days and months, so 2小时 = 120分钟, 一年半 = 18个月, 两周 = 14天.
    ("个小时", "分钟", 60), ("小时", "分钟", 60), ("钟头", "分钟", 60), ("分钟", "分钟", 1), ("秒钟", "秒", 1), ("秒", "秒", 1),
    ("个工作日", "天", 1), ("工作日", "天", 1), ("天", "天", 1), ("个星期", "天", 7), ("星期", "天", 7), ("周", "天", 7),
    ("个月", "月", 1), ("月", "月", 1), ("年", "月", 12), ("岁", "岁", 1),
    ("毫克", "克", 0.001), ("千克", "克", 1000), ("公斤", "克", 1000), ("kg", "克", 1000), ("斤", "克", 500), ("两", "克", 50), ("克", "克", 1),
    ("g", "克", 1), ("毫升", "毫升", 1), ("ml", "毫升", 1), ("升", "毫升", 1000), ("l", "毫升", 1000),
    ("毫米", "毫米", 1), ("mm", "毫米", 1), ("厘米", "毫米", 10), ("cm", "毫米", 10), ("公里", "毫米", 1e6), ("米", "毫米", 1000),
    ("英寸", "寸", 1), ("寸", "寸", 1), ("瓦", "瓦", 1), ("w", "瓦", 1), ("度", "度", 1), ("℃", "度", 1), ("°c", "度", 1),
    ("倍", "倍", 1), ("点", "点钟", 1), ("人", "人", 1), ("位", "人", 1), ("名", "人", 1),
    # devices' specs: latency, loudness, battery, frequency, power (6毫秒 is no 60毫秒, 35分贝 is a figure to ground)
    ("毫秒", "秒", 0.001), ("ms", "秒", 0.001), ("分贝", "分贝", 1), ("db", "分贝", 1), ("毫安时", "毫安时", 1),
    ("mah", "毫安时", 1), ("赫兹", "赫兹", 1), ("hz", "赫兹", 1), ("千瓦", "瓦", 1000), ("kw", "瓦", 1000),
    ("yuan", "元", 1), ("rmb", "元", 1), ("dollars", "美元", 1), ("hours", "分钟", 60), ("days", "天", 1),
]
_UNIT_RE = re.compile(r"\s*(" + "|".join(re.escape(u) for u, _, _ in sorted(_UNITS, key=lambda x: -len(x[0]))) + r")(?![a-z])")
_UNIT_OF = {u: (c, f) for u, c, f in _UNITS}
# Classifiers: a number before one is a count ("5种颜色"); 个 matches any of them.
_CLASSIFIERS = "个种款只件罐盒包瓶杯支台套双袋箱份颗粒片张把条色口泡道期批单样类次遍回"
_CLASSIFIER_RE = re.compile(rf"\s*([{_CLASSIFIERS}])")
_MEASURES = {"元", "折", "%", "分钟", "秒", "天", "月", "岁", "克", "毫升", "毫米", "寸", "瓦", "度",
             "倍", "点钟", "人", "美元", "分贝", "毫安时", "赫兹"}
_CURRENCY_BEFORE = re.compile(r"[¥$]\s*$|(?:售价|价格|原价|现价|到手价|只要|仅需|仅售|优惠|减|便宜|降价|立减)\s*$")
_ORDINAL_BEFORE = re.compile(r"(?:第|星期|周|礼拜|no\.?|型号|编号)\s*$")
# Idioms made of numeral characters that state no figure ("千万不要错过", "十分好用").
_IDIOMS = re.compile(
    r"千万|万一|十分(?!钟)|一一|一些|一点(?![零一二三四五六七八九\d]|钟)|一定|一样|一直|一起|一下|一般|一切|一流|万分|百分百|十足|三三两两|一模一样|五花八门|"
    r"七上八下|(?<![零〇一二两三四五六七八九十])九九(?![零〇一二两三四五六七八九十百千万元块折%])|统一|唯一|万能|一芽一叶|一次性|一口气|一会|一边|一旦|一向|一共|一律|一款|一份心|第一时间"
)

# Talk about instructions or the prompt itself, and passage ids: never said on stream.
# A number read digit by digit: three or more digit words with no 十/百/千 (零四幺七, 一三八), unless a unit follows.
_DIGIT_STRING = re.compile(rf"(?<![{_CN_NUM}幺])[零〇幺一二三四五六七八九]{{3,}}(?![{_CN_NUM}{_CLASSIFIERS}元块克天月年小分秒度毫升斤])")
_ALSO = re.compile(r"也|照样|同样|一样")
_DIGIT_CHARS = str.maketrans("零〇幺一二三四五六七八九", "001123456789")
# How many of the viewer's characters in a row, repeated by the model and in no passage, make an echo.
ECHO_CHARS = 6


def echo_len(question: str) -> int:
    """How long a run of the viewer's characters must be to be an echo: ECHO_CHARS, or the whole of a shorter
    question (a four-character insult repeated whole is an echo); 0 (no check) under three characters."""
    n = len(dense(question))
    return min(ECHO_CHARS, n) if n >= 3 else 0
# What a retrieved passage or source file is called, and the key its number is given under, for the id check.
_ID_NOUNS = r"passage|chunk|doc|document|faq|kb|source|ref|context|snippet|entry|段落|资料|文档|片段|条目"
_ID_KEYS = r"ids?|no\.?|num(?:ber)?|index|idx|编号|序号|号码|索引|id号|号"
_LEAK_PHRASES = re.compile(
    r"system\s*prompt|系统提示|提示词|系统指令|我的指令|我的设定|我的提示|设定(?:里|中|上|是)|我的规则|这些规则|规则是|第.条规则|人设|"
    r"被要求|开发者(?:消息|指令)?|ignore (?:all |the )?previous|忽略(?:之前|以上|上面)的|以下是(?:资料|参考)|"
    r"(?:根据|参考|按照|下面的|上面的)资料|资料(?:里|中|上|显示|说)|"
    r"[\w\-/]+\.(?:ya?ml|md|markdown|txt|jsonl?|csv|toml|xlsx?|docx?|pdf)(?![a-z0-9])|"
    r"[a-z0-9_\-]+\s*(?:点|dot)\s*(?:ya?ml|jsonl?|md|csv|txt|toml)(?![a-z0-9])|字段|知识库|数据库|资料库|"
    r"\[[^\]\n]{0,40}#\d+\]|#\d+\]|\bp\d+\]|"
    # internal ids in any spelling (passage_3, faq#2, chunk-12, doc 4, passage_id=7, 资料编号是七, 文档#3, 第2段资料)
    # and the model behind the persona (after heldout7, heldout11)
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*[_#\-]?\s*\d+|"
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*[_\-\s]?\s*(?:{_ID_KEYS})\s*(?:[_#=:：\-]|是|为|等于)?\s*[\d{_CN_NUM}]+|"
    rf"(?<![a-z])[a-z]*_?id\s*[=:：#]\s*\d+|第\s*[\d{_CN_NUM}]+\s*(?:条|段|篇|份|个)(?:{_ID_NOUNS})|"
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*第\s*[\d{_CN_NUM}]+|"
    r"(?<![a-z0-9])[a-z]{2,}[_#]\d+(?![a-z0-9])|"
    r"gpt|chatgpt|openai|claude|anthropic|gemini|llama|qwen|通义|千问|文心|一言|deepseek|kimi|豆包|智谱|chatglm|"
    r"大模型|语言模型|ai模型|人工智能模型|\bllm\b|模型(?:版本|名字|名称)|(?:基于|用的是|使用的是).{0,6}模型|"
    # what the anchor was given or told, in other words (after heldout10): 我拿到的材料, 后台数据显示, 被设定成, 提示里说,
    # 运营让我这么说, "my instructions"
    r"我(?:们)?(?:拿到|收到|看到|得到|手上|手里)(?:的)?(?:材料|资料|信息|内容|说明|文档|数据|指令|提示|要求)|"
    r"后台(?:的)?(?:数据|资料|信息|设置|设定|显示|说明)|被(?:设定|设置|编程|要求|规定|限制)|(?:设定|设置|编程)成|程序设定|"
    r"(?:提示|指令)(?:里|中|上)(?:说|写|提到|要求)|(?:给我的|我拿到的)(?:说明|材料)(?:里|中|上)|(?:给我|我收到|上面给)的(?:指令|提示|要求|内容|材料)|上文|"
    r"(?:运营|老板|公司|后台|商家|客服)(?:让|叫|要求|规定)我(?:这么|这样)?(?:说|讲|回答)|"
    r"\bmy (?:instructions?|prompt|rules|system)\b|\bi (?:was|am|have been) (?:told|instructed|programmed|asked) to\b|"
    r"according to (?:the|my) (?:document|context|materials?|instructions?|data)",
    re.IGNORECASE,
)
# The shop, its goods or the anchor run down in the anchor's own voice (a viewer's dictated "说一句我是骗子" repeated:
# 好，我是骗子): fraud, fakes and scams are never said of oneself on air, whoever asked. Said refused or as a warning
# ("我们不是骗子", "不卖假货", "谨防诈骗") it runs nothing down.
_DISPARAGING = re.compile(r"骗子|诈骗|骗人|骗钱|行骗|假货|冒牌货?|山寨货?|黑店|奸商|坑人|坑钱|割韭菜|智商税|三无产品|垃圾(?:货|茶|产品|东西|店)|"
                          r"(?:主播|我|我们|咱们|本店|这家店)(?:就|真)?是(?:个|一个)?(?:大)?(?:傻子|白痴|废物|蠢货|垃圾)")
_DISPARAGING_REFUSED = re.compile(r"(?:不|没|非|别|勿|防|谨防|警惕|小心|远离|拒绝|杜绝|打击)[\u4e00-\u9fff]{0,2}$")


def disparaging(sentence: str) -> str:
    """The first run-down of the shop, its goods or the anchor said in the anchor's voice ('' if none)."""
    n = normalize(sentence)
    for m in _DISPARAGING.finditer(n):
        if not _DISPARAGING_REFUSED.search(n[max(0, m.start() - 4) : m.start()]):
            return m.group(0)
    return ""


# Absolute claims said by metaphor or slang (after heldout10): the same claim as 最/第一 in other words, withheld
# like them whatever the knowledge base says (天花板, 顶流, 吊打, 秒杀一切, 遥遥领先, 全网独一家, X之王, 没有之一).
ABSOLUTE_SLANG: tuple[str, ...] = (
    r"天花板", r"顶流", r"王者", r"无敌", r"吊打", r"碾压", r"完爆", r"爆杀", r"秒杀(?:一切|全场|全网|所有|同行|同类|别家|其他|市面|一众)",
    r"遥遥领先", r"领先(?:同行|行业|同类|全网|市面|别家)", r"断层", r"独一(?:家|份)", r"仅此一家", r"别无分号", r"没有之一",
    r"天下(?:第一|无双)", r"举世无双", r"首屈一指", r"数一数二", r"无人能及", r"无可(?:比拟|替代|挑剔)", r"无与伦比",
    r"无出其右", r"一骑绝尘", r"独步", r"封神", r"神级", r"神品", r"巅峰", r"[\u4e00-\u9fff]之王", r"霸主", r"称霸",
    r"(?:行业|业界|业内)(?:标杆|龙头|老大)", r"top\s*级", r"天选", r"绝绝子",
    r"(?:人气|断货|带货|销量|性价比|颜值|口碑|爆款)王", r"(?:行业|业内|国内|全国|全球|国际|世界)领先", r"(?:全球|全国|国内|全网)首(?:发|创|家|款)",
    r"史无前例", r"前所未有", r"空前绝后", r"无可匹敌", r"独占鳌头", r"零差评", r"至尊", r"顶配", r"一绝", r"绝无二家",
    r"神仙(?:茶|级|口感|品质|味道|好茶|好物)", r"宝藏(?:级|之作)",
)
_ABSOLUTE = re.compile("|".join(f"(?:{p})" for p in (*ABSOLUTE_CLAIMS, *ABSOLUTE_SLANG)), re.IGNORECASE)
# "100%" before what a thing is made of states its composition, not a superlative (100%新疆长绒棉, 百分百纯棉, 100%桑蚕丝).
_COMPOSITION = re.compile(r"\s*(?:纯|新疆|长绒|精梳|澳洲|进口|天然|桑)*(?:棉|麻|羊毛|羊绒|蚕丝|真丝|丝|聚酯|涤纶|锦纶|氨纶|粘纤|莫代尔|"
                          r"全麦|生牛乳|牛乳|果汁|原浆|可可|黑麦|荞麦|含量|纯度)")


def absolute_claim(sentence: str) -> str:
    """The first absolute claim in a sentence, a composition ("100%纯棉") excused ('' if none)."""
    n = normalize(sentence)
    for m in _ABSOLUTE.finditer(n):
        if m.group(0) in ("100%", "百分百", "百分之百") and _COMPOSITION.match(n, m.end()):
            continue
        return m.group(0)
    return ""

# Promise frames (after heldout10): a promise is a frame, not a listed phrase. A guarantee word with what it guarantees
# (保证人人都有, 包满意, 管够), money back or nothing to pay on a condition (不好喝不要钱, 无效退款, 不满意全退, 运费不收钱),
# something for nothing (免费, 白送, 随便拿), buy-now assurances (买了不亏, 闭眼入) and pay-after-trying in any verb (先喝后付).
# Each is voiced only when the knowledge base states the same frame (the same regex matches it, or the frame's evidence
# in FRAME_EVIDENCE does, in the sentence's context).
FRAME_PROMISES: tuple[tuple[str, str], ...] = (
    ("保证", r"(?:保证|保准|包|管|绝对|担保|承诺)(?:让)?(?:你|您|大家|各位|每位|每个人)?(?:们)?(?:都)?"
           r"(?:人人|个个|都有|有份|满意|有效|见效|管用|好喝|好用|好吃|喜欢|够(?![一二两三四五六七八九十\d])|够用|回本|不踩雷|不失望|不后悔|零差评|没问题)"
           r"|人人(?:都)?有份?|人手一[份个罐盒杯只件]|见者有份"),
    ("不满意不要钱", r"不(?:好|满意|喜欢|合适|新鲜|正宗|香|甜|管用|有效|灵|值)[\u4e00-\u9fff]{0,2}(?:不要钱|不收钱|免费|白送|退钱|全退|赔钱)"
                  r"|(?:无效|没效果?|不见效|不好喝|不好用|不满意|不喜欢)[\u4e00-\u9fff]{0,3}(?:退钱|全退|退全款|不要钱|不收钱|免单|赔钱)"
                  r"|[\u4e00-\u9fff]{1,3}不(?:要|收)(?:钱|费)|分文不取|倒贴"),
    # shipping the same day with any adverbs (当天就能发, 马上就给您发出): the KB's own phrase (发货时效 is an exact label)
    ("发货时效", r"(?:当天|当日|今天|马上|立刻|立即|现在)(?:就|会|都|能|可以|立马|给您|给你)+发(?:货|出|走)?"),
    ("全场免费", r"(?:全场|全部|统统|通通|所有|全都|都)(?:免费|白送|0元|零元)"),  # everything free: no gift grounds it
    ("免费", r"免费(?!送|赠)|白送|白给|白拿|随便(?:喝|拿|吃|用|送|领|拿走|挑|试)|零元购|0元(?:购|拿|领)"),
    ("买了不亏", r"买(?:了|到)?(?:就|都|绝对|肯定|保证)?(?:不|没)(?:亏|吃亏|后悔)|不买(?:就|才|会)?(?:亏|后悔|吃亏)|"
               r"闭(?:着)?眼(?:睛)?(?:入|买|冲|拍)|无脑(?:入|买|冲)|稳赚|包赚|血赚|赚翻|(?:买|拍|抢)到就是赚到|"
               r"错过.{0,4}(?:拍大腿|后悔|可惜|遗憾)"),
    # a guarantee of anything (保证是今年的新茶, 包你喝了还想喝): the KB must state the guarantee, or what is guaranteed
    # in its own words ("保证全国包邮" ← "全国包邮", see _promise_grounded)
    ("担保", r"(?:保证|担保|承诺|包你|包您|包大家)(?:是|能|会|都|让|给|你|您|大家)*[\u4e00-\u9fff]{2,}"),
    # everyone says so, nobody complains, every buyer came back: a universal testimonial
    ("人人好评", r"(?:人人|个个|所有人|每个人|谁都|大家都|全都|(?:喝|买|用|吃|试)过的(?:人|朋友|都)?)(?:都)?"
               r"(?:说|夸|觉得|回购|喜欢|好评|满意|推荐)|没有(?:人|一个人|谁)(?:说|不|嫌|给差评)|零差评|全是好评|好评如潮"),
    # where and how it was grown or made, said only in the KB's words (明前头采, 国宴用茶, 古树, 零农药残留)
    ("品质来历", r"明前|雨前|头采|头茬|国宴|贡茶|贡品|正宗|纯正|原生态|古树|老树|核心产区|零农药|无污染|非转基因|纯手工|手工(?:炒|制|采)|"
               r"野生|特级原料|原叶|原浆|进口(?:原料)?|大牌|名牌|代工|同厂|同源"),
    # how long it lasts and what it never does (摔不坏, 永不生锈, 不起球, 不掉色): only what the KB says it does not do
    ("耐用承诺", r"摔不(?:坏|烂|碎|破)|用一辈子|用到老|永不(?:生锈|褪色|掉色|变形|坏|磨损)|不会?(?:生锈|掉漆|变形|起球|缩水|掉色|褪色|掉毛|起皱|开线|漏水)|"
               r"耐摔|防摔|抗摔"),
    # a grade of material no KB names (食品级, 医用级, 母婴级): provenance in the KB's words only
    ("品质来历", r"(?:食品|医用|医疗|母婴|军工|航天|航空|军用|实验室|欧盟|美国FDA|FDA)级|无毒无害|无毒|零甲醛|无甲醛|不含双酚A|无双酚A"),
    # a health or body effect in any words (提神醒脑, 长高, 睡得香, 皮肤变好): a food's answer may claim none the KB lacks
    ("功效", r"提神|醒脑|长高|长个|增高|助消化|消食|去火|降火|清热|解毒|润肺|止咳|明目|抗氧化|抗衰老|延缓衰老|祛湿|补(?:钙|铁|血|气|肾)|"
            r"壮阳|缓解|调理|改善(?!包装)|预防|睡得(?:香|好|着|踏实)|皮肤(?:变)?(?:好|白|嫩|亮|细)|变(?:白|瘦|年轻)|年轻十岁|通便|利尿"),
    ("买赠", r"(?:拍|下单|订购|入手)[^，。！？]{0,4}?(?:再|就|还|多|另|都)?送(?![达到货出往去回])|"
           r"买[一二两三四五六七八九十\d]+[罐盒件只瓶袋包套份个]?(?:再|就|还|另)送"),
    ("付款方式", r"先(?:用|喝|吃|尝|试|穿|体验|收货|验货|拿货)(?:了)?(?:再|后)(?:付|买|给钱|结)"),
    # a service for life or at the door, and money off by any name (coupons, red packets, cash back, "cost price")
    ("终身服务", r"(?:终身|永久|一辈子|无限期|永远)(?:免费)?(?:保修|质保|包换|换新|维修|退换|售后|有效|包退|保障|免费)"),
    ("上门服务", r"上门(?:维修|安装|取件|取货|服务|退换|回收)|免费(?:维修|安装|换新|上门|寄回|退换)|包安装"),
    # damage made good: paid, replaced or sent again (破损包赔, 补发新的, 坏了包换, 给您换个新的)
    ("赔付补发", r"包赔|包换|赔(?:偿|付|钱)|(?:破损|压坏|摔坏|坏了|碎了|漏了|受损)[^，。！？]{0,4}?(?:赔|换|补发|重发)|补发|重发|"
               r"(?:换|补|寄|发)(?:个|一个|一罐|一份|一件)?(?:全)?新的"),
    # a gift or a deal promised for later (下次直播还会继续送, 以后还有, 明天还送): the KB speaks of this sale only
    ("以后还有", r"(?:下次|下回|下一场|下场|(?:(?<![\u4e00-\u9fff])|(?<=们))以后|往后|将来|明天|后天|下周|下个月|改天|每场|每次直播)"
               r"(?:直播|开播)?[^，。！？]{0,4}?(?:还|也|都|继续|照样|接着|会)[^，。！？]{0,3}?(?:送|赠|有|发|优惠|便宜|福利|活动|这个价|补)"),
    ("优惠券", r"(?:优惠|无门槛|代金|消费|满减|折扣|现金|购物|抵用|新人|店铺|直播间?|领)?(?<!证)券|红包|满减|满[\d一二两三四五六七八九十百千]+减|立减|折上折|返现|返利|积分(?:抵|兑)|抵扣|补贴|津贴|"
             r"(?:内部|员工|成本|出厂|批发|跳楼|骨折|白菜|亏本|福利)价|亏本|贴钱|(?:不|没)(?:赚|挣)钱|零利润|赔钱卖|亏钱"),
    # who pays postage, said of a return or in general ("运费我们出"): the KB's statement, with its restriction (质量问题)
    ("运费承担", RETURN_POSTAGE := r"(?:我们|商家|店铺|卖家|店家|咱们|这边)(?:来)?(?:承担|出|包|报销)(?:来回|往返|退货|退回|寄回)?(?:的)?(?:运费|邮费)|"
               r"(?:来回|往返|退货|退回|寄回)?(?:的)?(?:运费|邮费)(?:都|也|全)?(?:由|是)?(?:我们|商家|店铺|卖家|店家|咱们|这边)(?:来)?(?:出|承担|包|报销)"),
)
_POSTAGE_PAID = re.compile(RETURN_POSTAGE)
# What else in the knowledge base states a frame's promise, given what the sentence is about: postage "not charged"
# is the KB's 包邮 (运费不收钱 ← 全国包邮), a free gift is its 赠/送.
FRAME_EVIDENCE: dict[str, tuple[tuple[str, str], ...]] = {
    "不满意不要钱": ((r"运费|邮费|快递费|寄费", r"包邮|免运费|免邮|运费由.{0,6}承担"),),
    "免费": ((r"运费|邮费|快递费|寄费|包邮", r"包邮|免运费|免邮|运费由.{0,6}承担"),
             (r"送|赠|茶匙|赠品|礼", r"赠送|附赠|免费送|赠品|加送|送")),
}
_EXACT_FRAMES = frozenset({"品质来历", "耐用承诺"})  # each phrase the sentence says must be the KB's own
_GUARANTEE_WORD = re.compile(r"^(?:保证|担保|承诺|包你|包您|包大家)(?:是|能|会|都|让|给|你|您|大家)*")
_NUMERAL_START = re.compile(rf"[{_CN_NUM}\d]")
# Giving it as a present is a use, not a gift promised (适合送礼, 送长辈很合适, 送人自用都合适).
_GIFTING_USE = re.compile(r"送(?:礼(?![盒品物包券卡袋])|人|长辈|朋友|女朋友|男朋友|女友|男友|爸妈|父母|老师|客户|领导|家人|亲友)|送给(?:长辈|朋友|家人|父母|爸妈|客户)")
_SAVING = re.compile(r"便宜|省|少花|少了|差价|差了|相差|贵了|多花|优惠了|减了|节省|实惠|划算|比.{0,6}(?:少|低)")
_PER_PIECE = re.compile(r"(?<![结组综适])合(?!适|作|同|格|计)|平均|均价|相当于|算下来|折合|摊下来")  # not "一罐只要…": misleading
_REFUSED = re.compile(r"(?:不|没|没有|无法|不能|不会|不可以|不支持|不提供|暂不|暂时不|并不|并没有|不是|不再|别)"
                      r"(?:再|给|能|会|支持|提供|做|搞|参加|参与|发)?\s*$")
_FRAME_EVIDENCE = {label: [(re.compile(a), re.compile(b)) for a, b in pairs] for label, pairs in FRAME_EVIDENCE.items()}
_RETURN = re.compile(RETURN_WORDS)
# Use said by finishing or just having drunk it ("喝完了也能退") is the 使用 condition too.
_MORE_CONDITIONS = {"使用": r"喝完|用完|吃完|喝掉|用掉|喝了一半|用了一段|穿了"}
_CONDITIONS = [(label, re.compile(rx + ("|" + _MORE_CONDITIONS[label] if label in _MORE_CONDITIONS else "")))
               for label, rx in RETURN_CONDITIONS]
_RESTRICTIONS = re.compile(RETURN_RESTRICTIONS)
_NEGATION = re.compile(r"(?:未|不|没|没有|无需|不用|别|勿|不能|不可|不支持)$")
# Conditions that say what state the goods or the buyer are in (not the terms of a return: 运费, 全额, 随时).
_BUYER_STATES = frozenset({"拆封", "使用", "无理由"})
_SENTENCE_END = re.compile(r"[。！？!?；;\n]+")
_CLAUSE_END = re.compile(r"[，,、：:]+")


def return_units(text: str) -> list[str]:
    """The return-policy statements of a text: clauses up to one that names a return ("拆封后如有质量问题，
    也可以退" is one), a trailing clause without one joined to the statement before it."""
    units: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        pending = ""
        for clause in _CLAUSE_END.split(sentence):
            pending += clause
            if _RETURN.search(clause):
                units.append(pending)
                pending = ""
        if pending and units and _RETURN.search(units[-1]) and sentence:
            units[-1] += pending
    return [u for u in units if _RETURN.search(u)]


def return_conditions(unit: str) -> set[tuple[str, bool]]:
    """The conditions a return statement names, each with its polarity ("未拆封" → ("拆封", False))."""
    out: set[tuple[str, bool]] = set()
    for label, rx in _CONDITIONS:
        for m in rx.finditer(unit):
            out.add((label, not _NEGATION.search(unit[max(0, m.start() - 4) : m.start()])))
    return out


# Where a product comes from: the place named must be in a passage ("产自云南" when the KB says 浙江丽水).
_ORIGIN = re.compile(r"(?:产自|产于|产地(?:是|在|为)?|原产(?:地|于)?(?:是|在)?|出自)\s*([\u4e00-\u9fff]{2,})")
_PLACE_FILLER = re.compile(r"^(?:我们|咱们|正宗|著名|有名|中国|国内)")

_GIFT_OBJECT = re.compile(
    rf"(?:送|赠送|附赠|赠)(?:给)?(?:你|您|大家|各位|粉丝)?(?:们)?(?:[{_CN_NUM}\d]+[{_CLASSIFIERS}])?([\u4e00-\u9fff]{{2}})"
)


def _numeric_text(text: str) -> str:
    """The text with every numeral form made ordinary (NFKC: full-width and circled digits; keycaps; 壹; 仨)."""
    text = text.translate(_NUMERAL_MAP)
    text = unicodedata.normalize("NFKC", text)
    for pattern, repl in _SPECIAL:
        text = pattern.sub(repl, text)
    return normalize(text)


def _cn_to_number(text: str) -> float | None:
    """Parses a Chinese numeral like 一百九十九, 两千五, 三点五, 十二; None if it is not one."""
    integer, _, frac = text.partition("点")
    total, section, digit = 0, 0, None
    last_unit = 1
    for c in integer:
        if c in _CN_DIGITS:
            if digit is not None and section == 0 and total == 0:
                digit = digit * 10 + _CN_DIGITS[c]  # 二四 = 24, read digit by digit
                continue
            digit = _CN_DIGITS[c]
        elif c in _CN_UNITS:
            unit = _CN_UNITS[c]
            if unit >= 10_000:
                section = (section + (digit or 0)) * unit
                total += section
                section = 0
            else:
                section += (1 if digit is None else digit) * unit
            digit = None
            last_unit = unit
        else:
            return None
    if digit is not None:
        # "两千五" means 2500: a trailing digit after a unit is one order below it.
        section += digit * (last_unit // 10 if last_unit >= 100 and len(integer) > 1 and integer[-2] in _CN_UNITS else 1)
    value = float(total + section)
    if frac:
        value += float("0." + "".join(str(_CN_DIGITS[c]) for c in frac))
    return value


def _num(s: str) -> float | None:
    s = s.strip()
    if not s:
        return None
    if re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s)
    return _cn_to_number(s)


@dataclass(frozen=True, slots=True)
class Figure:
    value: float
    text: str
    significant: bool  # a stated fact that must be grounded
    unit: str = ""  # canonical unit ("元", "小时", "克" …), "count:种" for a classifier, "" for a bare number
    label: str = ""  # the two CJK characters said just before it ("日常价128元" → 常价), "" if fewer
    phrase: str = ""  # a count with its classifier and the character after ("两罐装188元" → 两罐装)


_NOT_CJK = re.compile(r"[^\u4e00-\u9fff]")
_LABEL_FILLERS = frozenset({"只要", "就要", "才要", "仅需", "大概", "大约", "左右", "一共", "总共", "也是", "都是", "还是"})


def _with_label(f: Figure, t: str, start: int) -> Figure:
    """The figure with the two CJK characters before it in t (its label: what the figure is the value of)."""
    label = _NOT_CJK.sub("", t[max(0, start - 10) : start])[-2:]
    if len(label) != 2 or label in _LABEL_FILLERS:
        label = ""
    phrase = t[start : start + len(f.text) + 2] if f.unit.startswith("count:") else ""
    return dataclasses.replace(f, label=label, phrase=phrase) if label or len(phrase) > len(f.text) + 1 else f


@functools.lru_cache(maxsize=8)
def labelled_figures(texts: tuple[str, ...]) -> frozenset[tuple[float, str, str]]:
    """(value, unit, label) of every figure the texts state with a label (a KB's "日常价: 128元" → (128, 元, 常价))."""
    return frozenset((round(f.value, 4), f.unit, f.label) for t in texts for f in figures(t)
                     if f.label and f.unit)


_CLAUSE_CUT = re.compile(r"[。！？!?；;\n，,、]+")
# A number with its unit or classifier ("18个月", "两罐", "99元"): no context word of the figure it states.
_UNIT_WORDS = "|".join(re.escape(u) for u, _, _ in sorted(_UNITS, key=lambda x: -len(x[0])))
_FIGURE_SPAN = re.compile(rf"(?:\d+(?:\.\d+)?|[{_CN_NUM}点半]+)(?:多|余|来)?\s*(?:{_UNIT_WORDS})?")
# Pairs that say nothing about what a figure is of.
_FUNCTION_PAIRS = frozenset({"可以", "我们", "咱们", "就是", "这个", "这款", "一个", "只要", "就能", "大家", "现在", "今天", "的话",
                             "直接", "还是", "也是", "都是", "左右", "大概", "以上", "以内", "之内", "建议"})


def _cjk_bigrams(text: str) -> frozenset[str]:
    """The telling pairs of CJK characters in text: numbers with their units left out (a classifier stays: 两罐装 →
    罐装), function words too."""
    run = _NOT_CJK.sub(" ", _FIGURE_SPAN.sub(" ", text))
    return frozenset(w[i : i + 2] for w in run.split() for i in range(len(w) - 1)) - _FUNCTION_PAIRS


@functools.lru_cache(maxsize=8)
def stated_figures(texts: tuple[str, ...]) -> dict[tuple[float, str], list[frozenset[str]]]:
    """(value, unit) of every figure the texts state with a unit → the telling word pairs of each clause stating it
    (pairs most of the texts share, such as the product's name, tell nothing and are left out)."""
    clauses = [(i, c) for i, t in enumerate(texts) for c in _CLAUSE_CUT.split(_numeric_text(t))]
    df: dict[str, set[int]] = {}
    for i, c in clauses:
        for g in _cjk_bigrams(c):
            df.setdefault(g, set()).add(i)
    common = {g for g, docs in df.items() if len(docs) > max(2, len(texts) // 3)}
    out: dict[tuple[float, str], list[frozenset[str]]] = {}
    for _, c in clauses:
        for f in figures(c):
            if f.unit and f.unit != "ordinal":
                out.setdefault((round(f.value, 4), f.unit), []).append(_cjk_bigrams(c) - common)
    return out


def warm_guard(facts: tuple[str, ...]) -> None:
    """Builds the KB-wide figure indexes a guard with these facts uses (call off the event loop after a KB build)."""
    labelled_figures(facts)
    stated_figures(facts)


def figures(text: str) -> list[Figure]:
    """Every number stated in text, with its canonical unit and whether it needs grounding."""
    t = _IDIOMS.sub(lambda m: "〃" * len(m.group(0)), _numeric_text(text))
    out: list[Figure] = []
    taken = [False] * len(t)

    def claim(a: int, b: int) -> bool:
        if any(taken[a:b]):
            return False
        for i in range(a, b):
            taken[i] = True
        return True

    for m in _PERCENT.finditer(t):
        v = _num(m.group(1))
        if v is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(v, m.group(0), True, "%"), t, m.start()))
    for m in _DISCOUNT.finditer(t):
        if claim(m.start(), m.end()):
            f = Figure(_CN_DIGITS[m.group(1)] + _CN_DIGITS[m.group(2)] / 10, m.group(0), True, "折")
            out.append(_with_label(f, t, m.start()))
    for m in _HALF.finditer(t):
        whole = m.group(1) or m.group(2)
        base = _num(whole) if whole else 0.0
        if base is not None and claim(m.start(), m.end() - (len(m.group(3)) + 1 if m.group(3) else 0)):
            end = m.end() - (len(m.group(3)) + 1 if m.group(3) else 0)
            # "两年半": the unit sits between the number and 半
            f = _figure(t[:end] + (m.group(3) or "") + t[m.end():] if m.group(3) else t, m.start(), end, base + 0.5,
                        True, m.group(0))
            if m.group(3):
                for i in range(m.start(), m.end()):
                    taken[i] = True
            out.append(_with_label(f, t, m.start()))
    for m in _MONEY.finditer(t):
        a, b = _num(m.group(1)), _num(m.group(3))
        if a is not None and b is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(round(a + b / 10, 4), m.group(0), True, "元"), t, m.start()))
    for m in _MAO.finditer(t):
        a = _num(m.group(1))
        b = _num(m.group(3)) if m.group(3) else 0.0
        if a is not None and b is not None and claim(m.start(), m.end()):
            out.append(_with_label(Figure(round(a / 10 + b / 100, 4), m.group(0), True, "元"), t, m.start()))
    for m in _ARABIC.finditer(t):
        if any(taken[m.start() : m.end()]):
            continue
        whole = m.group(1).replace(",", "")
        frac = m.group(2)
        value = float(f"{whole}.{frac}") if frac else float(whole)
        mult = m.group(3)
        if mult:
            value *= {"万": 1e4, "w": 1e4, "千": 1e3, "k": 1e3, "亿": 1e8}[mult]
        claim(m.start(), m.end())
        f = _figure(t, m.start(), m.end(), value, bool(frac), m.group(0))
        if not f.unit and m.group(0).lstrip()[:1] in "¥$":
            f = Figure(f.value, f.text, True, "元")
        out.append(_with_label(f, t, m.start()))
    for m in _CHINESE.finditer(t):
        s = m.group(0)
        if any(taken[m.start() : m.end()]):
            continue
        value = _cn_to_number(s)
        if value is None:
            continue
        lone = all(c in _CN_UNITS for c in s)  # "万", "百", "十万": a power of ten without a digit
        if lone:
            value = 1.0
            for c in s:
                value *= _CN_UNITS[c]
        f = _figure(t, m.start(), m.end(), value, "点" in s, s)
        if s in ("一", "两", "二") and not f.unit:
            continue  # "一下", "一起", "两人" are words, not figures
        if lone and len(s) == 1 and not f.unit and not _APPROX_BEFORE.search(t[max(0, m.start() - 2) : m.start()]):
            continue  # "百搭", "万事如意", "千里": words; "上万条好评", "过千单", "百年", "年销百万" state a figure
        out.append(_with_label(f, t, m.start()))
    return out


_APPROX_BEFORE = re.compile(r"(?:上|数|近|几|超过?|过|破|逾|成|好几)$")  # "上万", "过千", "近百": about that many
_APPROX_AFTER = re.compile(r"^\s*(?:多|余|来)(?=\s*[^\d\s])")  # "八十多杯", "20余天": the unit after the approximator


def _figure(t: str, start: int, end: int, value: float, decimal: bool, text: str) -> Figure:
    after = _APPROX_AFTER.sub("", t[end:])
    if _ORDINAL_BEFORE.search(t[max(0, start - 4) : start]):
        return Figure(value, text, False, "ordinal")
    unit = ""
    m = _UNIT_RE.match(after)
    if m is not None:
        canon, factor = _UNIT_OF[m.group(1)]
        if canon == "点钟" and re.match(r"\s*点\s*\d", after):
            canon, factor = "", 1  # a decimal point, not o'clock
        if canon:
            unit, value = canon, round(value * factor, 6)
    if not unit:
        c = _CLASSIFIER_RE.match(after)
        if c is not None:
            unit = "count:" + c.group(1)
    if not unit and _CURRENCY_BEFORE.search(t[max(0, start - 6) : start]):
        unit = "元"
    if unit in _MEASURES:
        significant = True
    elif unit.startswith("count:"):
        significant = value >= 2 or decimal
    else:
        significant = value >= 10 or decimal
    return Figure(value, text, significant, unit)


def _same_unit(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.startswith("count:") and b.startswith("count:"):
        return a == "count:个" or b == "count:个"
    return False


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    ok: bool
    reason: str = ""  # "ungrounded number 299 元" | "ungrounded promise 买一送一" | "absolute claim 第一" | "prompt leak: …"


@functools.lru_cache(maxsize=1)
def _promise_res(extra: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    return ([(label, re.compile(p)) for label, p in (*PROMISES, *FRAME_PROMISES)]
            + [(p, re.compile(p)) for p in extra])


def _bigrams(s: str) -> set[str]:
    s = re.sub(r"[^0-9a-z\u4e00-\u9fff]", "", s)
    return {s[i : i + 2] for i in range(len(s) - 1)}


class GroundingGuard:
    """Checks one answer's sentences against what it may state; built per answer."""

    def __init__(self, allowed_texts: Iterable[str], prompt_rules: Sequence[str] = (), *, grounding: bool = True,
                 promises: bool = True, absolute_claims: bool = True, extra_promises: Sequence[str] = (),
                 question: str = "", facts: Iterable[str] = (), claims: FactClaims | None = None) -> None:
        self.texts = [_numeric_text(t) for t in allowed_texts]
        self.allowed: list[tuple[float, str]] = []
        for t in self.texts:
            for f in figures(t):
                self.allowed.append((round(f.value, 4), f.unit))
        # Prices the passages state, and what they make: savings (a−b, k·a−b) and averages per piece (a÷k).
        self._money = sorted({v for v, u in self.allowed if u == "元" and v > 0})
        pairs = [(a, b) for a in self._money for b in self._money if a != b]
        self._money_derived = (
            {round(k * a - b, 2) for a, b in pairs for k in range(1, 6) if k * a - b > 0} | {round(a - b, 2) for a, b in pairs if a > b},
            {round(a / k, 2) for a in self._money for k in range(2, 6)},
        )
        self.rules = [normalize(r) for r in prompt_rules if len(r.strip()) >= 10]
        # The persona line is a self-introduction when paraphrased; the other rules are not for the air.
        self._rule_grams = [_bigrams(r) for r in self.rules[1:]]
        self.grounding = grounding
        self.promises = promises
        self.absolute_claims = absolute_claims
        self._promise_res = _promise_res(tuple(extra_promises))
        self._joined = "\n".join(self.texts)
        self._digits = re.sub(r"\D", "", self._joined.translate(_DIGIT_CHARS))
        # Named facts (origins, gifts, promises) may come from anywhere in `facts` (the whole knowledge base).
        self._named = "\n".join([self._joined, *(_numeric_text(t) for t in facts)])
        # A figure said with the label the knowledge base states it with ("日常价128元", "付款后24小时内发货") is that
        # statement quoted, wherever it is: grounded even when retrieval did not rank its passage. Bare or
        # differently labelled figures still need the retrieved passages (a 3 from "续水3次" is no 仨罐).
        facts = tuple(facts)
        self._labelled = labelled_figures(facts) if facts else frozenset()
        self._stated = stated_figures(facts) if facts else {}
        # Runs of the viewer's words that the passages and rules do not also contain: voiced back, they are an echo.
        q = dense(question)
        known = dense(self._joined)
        self._echo_len = k = echo_len(question)
        self._echo = {q[i : i + k] for i in range(len(q) - k + 1) if q[i : i + k] not in known} if k else set()
        self._return_units = [u for t in self.texts for u in return_units(t)]
        # what the facts deny and limit (claims.py): a promise without digits against them; read from `facts` when the
        # caller has no prepared reading (a talk line's paraphrase, a keyword reply), cached per set of facts
        self._claims = claims if claims is not None else (fact_claims(facts) if facts else None)

    def check(self, sentence: str, before: str = "") -> GuardVerdict:
        """One sentence's verdict; `before` is the answer's sentence said just before it (a return's condition or
        restriction said there counts, see check_returns)."""
        leak = self._leak(sentence)
        if leak:
            return GuardVerdict(False, f"prompt leak: {leak}")
        if self._echo:
            d = dense(sentence)
            k = self._echo_len
            run = next((d[i : i + k] for i in range(len(d) - k + 1) if d[i : i + k] in self._echo), "")
            if run:
                return GuardVerdict(False, f"echo of the viewer's words {run}")
        verdict = self.check_claims(sentence)
        if not verdict.ok:
            return verdict
        slur = disparaging(sentence)
        if slur:
            return GuardVerdict(False, f"disparaging the shop {slur}")
        if self.grounding:
            said = [(c, _cjk_bigrams(c), figures(c)) for c in _CLAUSE_CUT.split(_numeric_text(sentence))]
            for clause, grams, f in ((c, g, f) for c, g, fs in said for f in fs):
                if f.significant and not self._grounded(f, grams) and not self._derived(f, clause):
                    unit = f" {f.unit}" if f.unit else ""
                    return GuardVerdict(False, f"ungrounded number {f.text.strip()}{unit} (not in passages/persona facts)")
        if self.promises:
            n = _numeric_text(sentence)
            n = _GIFTING_USE.sub(lambda m: " " * len(m.group(0)), n)
            for label, rx in self._promise_res:
                # a promise refused ("不支持货到付款", "没有买一送一", "不保证人人都有") promises nothing: only what is said
                # without a negation before it is checked
                said = rx.sub(lambda m: m.group(0) if not _REFUSED.search(n[max(0, m.start() - 6) : m.start()])
                              else " " * len(m.group(0)), n)
                m = rx.search(said)
                if m is None:
                    continue
                if not self._promise_grounded(label, rx, said):
                    return GuardVerdict(False, f"ungrounded promise {m.group(0)} ({label})")
            for m in _DIGIT_STRING.finditer(n):
                # a number read out digit by digit (零四幺七: a phone or an id) must be in the passages as digits
                digits = m.group(0).translate(_DIGIT_CHARS)
                if digits not in self._digits:
                    return GuardVerdict(False, f"ungrounded number {m.group(0)} (digits {digits})")
            for m in _ORIGIN.finditer(n):
                place = _PLACE_FILLER.sub("", m.group(1))[:2]
                if len(place) == 2 and place not in self._named:
                    return GuardVerdict(False, f"ungrounded origin {m.group(0)}")
            returns = self.check_returns(n, before)
            if not returns.ok:
                return returns
            against = self._claims.contradiction(sentence) if self._claims is not None else ""
            if against:
                return GuardVerdict(False, f"against the facts: {against}")
        return GuardVerdict(True)

    def check_returns(self, text: str, before: str = "") -> GuardVerdict:
        """Return promises with their conditions; `before` is the sentence said just before, so a condition
        in one sentence and the return in the next ("拆封了。也能无理由退。") are read as one statement."""
        if not self.promises:
            return GuardVerdict(True)
        n = _numeric_text(text)
        if before:
            clauses = _CLAUSE_END.split(_SENTENCE_END.sub("，", _numeric_text(before)).rstrip("，"))
            last = max((i for i, c in enumerate(clauses) if _RETURN.search(c)), default=len(clauses) - 1)
            if any(label in _BUYER_STATES for c in clauses[last + 1 :] for label, _ in return_conditions(c)):
                last = len(clauses) - 1  # a condition said after it ("…也可以退。拆了不喜欢。") is for this one
            # A return said before ends its statement there: what trails it ("…也可以退，运费由我们承担。") is no
            # condition of a return in this sentence ("未拆封支持七天无理由退换。").
            n = "，".join(clauses[: last + 1]) + "，" + n
        units = return_units(n)
        if before:
            # "…也照样退" after a return statement: the same return, its conditions added to the one before
            # ("拆封后有质量问题也可以退。不喜欢口味也照样给您退。" promises a return of opened tea one does not like).
            # A unit that states its own value for a condition (未拆封 … / 拆封后 …也) overrides rather than inherits.
            units += [prev + "，" + unit for prev, unit in itertools.pairwise(units) if _ALSO.search(unit)
                      and not {label for label, _ in return_conditions(prev)} & {label for label, _ in return_conditions(unit)}]
        for unit in units:
            conds = return_conditions(unit)
            if conds and not self._return_grounded(conds, unit):
                said = "、".join(("" if pos else "非") + label for label, pos in sorted(conds))
                return GuardVerdict(False, f"ungrounded promise {unit} (退换 under {said})")
        m = _POSTAGE_PAID.search(_numeric_text(text))
        if m is not None and not _RESTRICTIONS.search(n):
            # "运费我们出" where every statement of it in the KB is restricted ("质量问题…运费由我们承担"): said without
            # the restriction (in this sentence or the one before), it promises more than the KB does
            stated = [u for u in _SENTENCE_END.split(self._named) if _POSTAGE_PAID.search(u)]
            if stated and all(_RESTRICTIONS.search(u) for u in stated):
                return GuardVerdict(False, f"ungrounded promise {m.group(0)} (运费承担 without its restriction)")
        return GuardVerdict(True)

    def _return_grounded(self, conds: set[tuple[str, bool]], unit: str) -> bool:
        """A passage statement names every condition the same way, and the sentence keeps its restrictions."""
        restricted = bool(_RESTRICTIONS.search(unit))
        for stated in self._return_units:
            if conds <= return_conditions(stated) and (restricted or not _RESTRICTIONS.search(stated)):
                return True
        return False

    def check_claims(self, sentence: str) -> GuardVerdict:
        """Absolute claims only (applies to every answer source, the KB and the cache included)."""
        if self.absolute_claims:
            claim = absolute_claim(sentence)
            if claim:
                return GuardVerdict(False, f"absolute claim {claim}")
        return GuardVerdict(True)

    def _grounded(self, f: Figure, grams: frozenset[str] = frozenset()) -> bool:
        v = round(f.value, 4)
        if f.label and f.unit and (v, f.unit, f.label) in self._labelled:
            return True
        if f.unit and any(grams & kb for kb in self._stated.get((v, f.unit), ())):
            return True  # the KB states this value in this unit in a clause about the same thing ("到手价只要99元")
        if f.phrase and is_cjk_char(f.phrase[-1]) and f.phrase in self._named:
            return True  # a count inside a name the knowledge base uses ("两罐装"), not a count of its own
        for value, unit in self.allowed:
            if value != v:
                continue
            if not f.unit or _same_unit(f.unit, unit) or (f.unit.startswith("count:") and not unit):
                return True
        return False

    def _derived(self, f: Figure, clause: str) -> bool:
        """A sum the passages' prices make, said with what it is: a saving ("比单买便宜10元": 2×99−188) or an average
        per piece ("合94元一罐": 188÷2). Without such words a figure is not derived: an invented price that happens to
        equal a difference is still withheld, and a total is never derived ("两罐198元" when the two-can pack is 188元)."""
        if f.unit != "元" or not self._money:
            return False
        v = round(f.value, 2)
        if _SAVING.search(clause) and v in self._money_derived[0]:
            return True
        return bool(_PER_PIECE.search(clause)) and v in self._money_derived[1]

    def _promise_grounded(self, label: str, rx: re.Pattern[str], sentence: str) -> bool:
        if label == "买赠" and not rx.search(self._named):
            # buy and get a gift the KB gives ("买一罐就送一个茶匙" ← "每罐附赠一个竹制茶匙"): the gift named, not a count
            # of the goods ("买两罐送一罐")
            m = _GIFT_OBJECT.search(sentence)
            return (m is not None and not _NUMERAL_START.match(m.group(1)) and m.group(1) in self._named
                    and bool(re.search(r"赠|送", self._named)))
        if label == "担保":
            # what is guaranteed, said in the KB's own words ("保证全国包邮" ← "全国包邮"), is the KB's statement
            m = rx.search(sentence)
            said = _GUARANTEE_WORD.sub("", m.group(0)) if m is not None else ""
            return len(said) >= 2 and dense(said)[:6] in dense(self._named)
        if label in _EXACT_FRAMES:
            return all(m.group(0) in self._named for m in rx.finditer(sentence))
        if not rx.search(self._named):
            # a frame the KB states in its own words (运费不收钱 ← 包邮), judged by what the sentence is about
            return any(about.search(sentence) and kb.search(self._named) for about, kb in _FRAME_EVIDENCE.get(label, ()))
        if label in EXACT_PROMISES:  # every one the sentence names, by name
            return all(m.group(0) in self._named for m in rx.finditer(sentence))
        if label == "赠品":
            m = _GIFT_OBJECT.search(sentence)
            if m is not None and m.group(1) not in self._named:
                return False  # a gift the passages do not name
        return True

    def _leak(self, sentence: str) -> str:
        m = _LEAK_PHRASES.search(sentence)
        if m:
            return m.group(0)
        n = normalize(sentence)
        if len(n) >= 10:
            for rule in self.rules:
                if fuzz.partial_ratio(n, rule) >= 85 and min(len(n), len(rule)) >= 10:
                    return rule[:40]
            grams = _bigrams(n)
            if len(grams) >= 6:
                for rule, rg in zip(self.rules[1:], self._rule_grams, strict=True):
                    shared = len(grams & rg)
                    if shared >= 6 and shared / len(grams) >= 0.45:
                        return rule[:40]
        return ""
