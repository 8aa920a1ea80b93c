"""Kinds of claim said only in the facts' own words: spec codes, modes, designs, exact fits, being carried about, absolute
promises (limits waved off among them), delivery days, benefits, effects, safety absences, endorsements and
certifications, materials, places of making.

None of these is ever grounded by sharing a word with the facts: "通过了欧盟CE认证" where they name only 3C认证, "没有辐射"
where they say nothing of radiation, "支架是碳纤维的" where the frame is steel. Each is said only as the facts say it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from broadcaster.brain.materials import of_a_family
from broadcaster.brain.places import places_named

# A spec code: letters with digits (IPX4, SPF50, PA++++, A2DP, 5G, Type-C): said only as the facts state it.
_CODE = re.compile(r"(?<![a-z0-9])(?=[a-z+\-]*\d)(?=\d*[a-z])[a-z0-9+\-]{2,12}(?![a-z0-9])", re.I)
# Absolute promises on safety and effect (零刺激, 零副作用, 绝对安全, 百分百有效) and compensation (赔双倍, 假一赔十): said
# only as the facts say them.
# (零 + a noun: 零粉尘, 零添加 — not a number's 零, 零食, 零钱; 纯 + a material: 纯豆腐砂, where the facts list a mix)
_ABSOLUTE = re.compile(r"(?<![一二两三四五六七八九十百千万\d])零(?![食钱件下点售头散碎星部用元度基起])[\u4e00-\u9fff]|"
                       r"(?<![单清])纯(?![属粹真色白黑正情度])[\u4e00-\u9fff]|无任何(?:副作用|刺激|风险)|绝对(?:安全|有效|不会|没有|不)|百分百|100%(?:有效|安全|不)|"
                       # a total property or a total absence (完全防水, 完全不烫手, 完全听不到, 一点声音都没有, 丝毫没有): only
                       # as the facts say it
                       r"完全(?:不|没|无|防|杜绝)|完全[\u4e00-\u9fff](?:不|没)(?:到|见|出|着)?|一点[\u4e00-\u9fff]{0,3}?(?:都|也)(?:不|没)|一点[\u4e00-\u9fff]{1,2}没有|丝毫(?:不|没)|根本(?:不会|没有)|全(?:都)?是防|"
                       # (a total effect: 一次就能全部吸干净, 螨虫统统杀光, 彻底根除)
                       r"(?:全部|全都|统统|通通|一次(?:就|性))(?:能|可以|会|都)?[\u4e00-\u9fff]{0,3}?(?:干净|除尽|清除|去除|除掉|消灭|杀死|杀光|吸走|吸出|清光)|"
                       r"彻底(?:清除|去除|除掉|消灭|杀死|杀光|根除)|根除|"
                       r"赔(?:双倍|三倍|十倍|偿双倍)|双倍赔|假一赔|包赔|"
                       # costing the buyer nothing at all (您一分钱不用出, 不花一分钱)
                       r"一分钱?(?:都|也)?不(?:用|要|花|需要)|不(?:用|要)?花一分钱|零成本|零花费|"
                       # a limit waved off, however far it is pushed (塞满也不怕, 装多少都行, 怎么摔都不坏, 再烫也不怕)
                       r"(?:塞满|装满|塞爆|装爆|超重|满载|多[重沉]|怎么[摔压洗用踩]|随便[装塞摔压洗用踩]|[装塞放]多少)了?(?:也|都)"
                       r"(?:不怕|没事|没问题|不会坏|不坏|坏不了|扛得住|行|可以|能装|装得下|不变形|不掉色)|"
                       r"(?<![不别])随便[冲泡洗晒刮摔压踩烫](?=[。！!，,~～]|$)|"
                       r"再[\u4e00-\u9fff]{1,2}(?:也|都)(?:不怕|不会|不[\u4e00-\u9fff]|没事|没问题|[\u4e00-\u9fff]不了|扛得住)|"
                       # an absence of a whole kind (什么添加剂都没有, 任何香精都不含) where the facts deny one of it
                       r"(?:什么|任何|一切)[\u4e00-\u9fff]{1,4}?都(?:没有|没|不含|不加|没加|没放|不放)")
# A day it ships or arrives (明天一早就到, 当天发): only a day the facts name.
_WHEN = re.compile(r"(今天|明天|后天|当天|当日|次日|隔天|第二天|马上|立刻|立马)[\u4e00-\u9fff]{0,4}?(?:到(?![手底])|送达|发(?!现)|寄出|收到)")
# A benefit or a comparison of effect (效果更好, 延长保质期, 更耐用, 洗了都不会缩): said only in the facts' own words.
_BENEFIT = re.compile(r"更(?:好|佳|强|久|耐用|持久|安全|健康|新鲜|省电|省油|快|香|好吃|好用|舒服|保暖|透气|放松|轻松|有效)|延长|提升|提高|增强|翻倍|加倍|"
                      # (toughness: 特别耐摔, 摔不坏)
                      r"都不会|永远不|耐摔|抗摔|防摔|摔不坏|耐磨|磨不坏|不会破|破不了|撕不破")
# An effect on health, hygiene or looks (杀菌除螨, 祛痘, 助眠): advertising law wants it substantiated, so only as the
# facts state it.
_EFFECT = re.compile(r"(?:治疗|治愈|治好)[\u4e00-\u9fff]{0,2}|(?:跟|像|相当于)(?:做了|做过|去)?(?:护理|美容|spa|沙龙)|杀菌|除菌|抑菌|抗菌|灭菌|消毒|除螨|防螨|杀螨|[除去]甲醛|除臭|[除去]异味|净化|祛痘|美白|淡斑|祛斑|抗衰|抗老|去皱|"
                     r"防脱|生发|减肥|瘦身|降血?[压糖脂]|助眠|安神|养胃|护肝|排毒|[提增]\w?免疫|抗过敏|抗病毒|防癌|抗癌|"
                     # (a symptom gone or eased: 用了就不鼻塞了, 缓解咳嗽)
                     r"(?:不再?|没再|告别|缓解|改善|减轻|治)(?:鼻塞|鼻炎|咳嗽|哮喘|过敏|失眠|干咳|嗓子疼|喉咙痛|嗓子干|流鼻血)")
# Endorsements, awards and sales said of the goods (明星在用, 获过大奖, 回购率很高, 厂家直销): only as the facts say them.
_ENDORSED = re.compile(r"明星|网红|代言|大奖|获奖|得奖|奖项|专利|认证|央视|冠军|销冠|回购率|复购率|爆款|热销|卖爆|断货王|"
                       r"厂家直销|源头工厂|中间商|"
                       # (who else uses it: 好多餐馆都在用我们家的锅)
                       r"(?:好多|很多|不少|大量|许多|大部分)[\u4e00-\u9fff]{0,4}都在用|都在用我们")

# A material named (支架是碳纤维的, 真皮的): only one the facts name; its two-character names, so 地铁 is no 铁.
_MATERIAL = re.compile(r"碳纤维|钛合金|铝合金|不锈钢|铸铁|纯铜|黄铜|紫铜|实木|原木|藤编|真皮|牛皮|羊皮|皮革|纯棉|全棉|亚麻|真丝|"
                       r"蚕丝|羊毛|羊绒|鹅绒|鸭绒|涤纶|尼龙|锦纶|氨纶|莫代尔|天丝|牛津布|帆布|陶瓷|玻璃|硅胶|乳胶|记忆棉|塑料|"
                       r"亚克力|大理石|石墨烯|合金")
# Where it is made (广东产的, 日本进口): only a place the facts name.
_MADE = re.compile(r"产(?!品|后)|生产|制造|进口|原装|工厂|厂里")
_SENT_FROM = re.compile(r"从[\u4e00-\u9fff]{2,6}(?:仓|发货|发出|寄出|发)|[\u4e00-\u9fff]{2,4}仓(?:发货|发出|直发)")  # (从广州仓发货)
# A harm said absent (没有辐射, 无毒, 不含甲醛, 不伤皮肤): a safety claim, only as the facts state it (the harm named).
_SAFE = re.compile(r"(?:没有|没|无|不含|零|不会有|不存在)(?:任何)?(辐射|毒|有害物质|重金属|荧光剂|甲醛|致癌物?|副作用|刺激)|"
                   r"不伤(身体|皮肤|手|眼睛?)|对(?:身体|人体)(无害)|"
                   # (an assurance of safety itself: 自动伞很安全的, 用着特别安全 — only where the facts speak of 安全)
                   r"(?:很|非常|特别|挺|超|蛮|十分|足够)(安全)")
# A certification or a standard named (欧盟CE认证, FDA认证, 出口标准): only one the facts name.
_CERT = re.compile(r"(?:[A-Za-z][A-Za-z0-9\-]{0,7}|\d[A-Za-z][A-Za-z0-9\-]{0,6}|欧盟|美国|国际|德国|日本|出口|军工|医用|母婴)\s*(?:认证|标准|级)")
# A mode or setting named (选轻柔模式就行, 开睡眠档): only one the facts have — the name in their words, or its last
# character with the setting (最高档 where they say 高档).
# A feature named (带液晶大屏显示, 支持快充功能): only one the facts name, by the last two characters of its name.
_FEATURE = re.compile(r"(?:带|有|配有?|自带|内置|支持)(?:一个|个)?([\u4e00-\u9fff]{2,8}?)(?:显示屏?|屏幕?|功能)")
_MODE = re.compile(r"([\u4e00-\u9fff]{2})(模式|(?<![换切调加减升降])档(?!位|次|期))")  # (短按换档 names no mode)
# An exact fit (1.8米的床正好铺满, 刚好放进后备箱): only as the facts say it (they may give a margin left over).
_FIT = re.compile(r"(?:正好|刚好|刚刚好|完美)(?:能)?(?:铺满|盖满|塞满|装满|放下|放进|塞进|合适|贴合|匹配|适配)")
# Carried about (出差带着特别方便, 便携): a use the facts speak of by its own words (携带, 便携, 出差, 旅行 …).
_CARRIED = re.compile(r"便携|方便(?:携带|带|拿)|(?:带着|随身带|带出门|出差带|旅行带|拎着)(?:也|很|特别|超|非常|都)?(?:方便|轻松|不累)")
_CARRIED_FACTS = re.compile(r"便携|携带|出差|旅行|旅游|外出|随身|出门")
# Any country's mains (全球电压通用, 出国也能用): only where the facts say so.
_VOLTAGE = re.compile(r"全球(?:电压)?通用|宽电压|国际电压|(?:出国|国外)(?:也)?(?:能|可以)(?:用|插)|各国(?:都能用|通用)")
_VOLTAGE_FACTS = re.compile(r"全球|宽电压|国际通用|100\s*[-～~到至]\s*240")
# A protection the goods are said to give (防水面料, 防螨, 阻燃, 免烫, 不起球): only as the facts state it.
_PROTECTS = re.compile(r"(?<!不)(?<!不能)(?<!没有)防(?:水|泼水|火|霉|蛀|静电|污|油|皱|缩|起球|滑|晒|紫外线|蚊|过敏|勾丝)|阻燃|免烫|不起球|不缩水|不掉毛|不起皱|不勾丝")
# A design or a licensed picture (小猪佩奇图案, 迪士尼联名): only one the facts name.
_DESIGN = re.compile(r"([\u4e00-\u9fffa-z]{2,4}?)的?(?:图案|印花|联名)")
_SAID_AS_FACTS = ((_PROTECTS, "a protection"), (_DESIGN, "a design"), (_FIT, "an exact fit"), (_ABSOLUTE, "an absolute promise"), (_WHEN, "a delivery day"), (_BENEFIT, "a benefit"), (_EFFECT, "an effect"),
                  (_SAFE, "a safety claim"), (_CERT, "a certification"), (_ENDORSED, "an endorsement"), (_MATERIAL, "a material"))


def spec_codes(text: str) -> set[str]:
    """The spec codes a text states, lower-cased."""
    return {c.lower() for c in _CODE.findall(text)}


def unstated(sentence: str, facts: str, codes: set[str], negated_at: Callable[[str, int], bool]) -> str:
    """The first claim of these kinds a sentence makes that the facts (`facts`: their text; `codes`: their spec codes)
    do not state ('' when none); `negated_at(sentence, i)`: a negation just before i."""
    for code in _CODE.findall(sentence):
        if code.lower() not in codes and re.search(r"[a-z]", code, re.I) and re.search(r"\d", code) \
                and not re.fullmatch(r"\d+(?:g|kg|ml|mm|cm|m|w|mah|hz|db|v|a|l|k|s|h|min|p|x)", code, re.I):
            return f"spec {code} not in the facts"
    low = facts.lower()
    for rx, what in _SAID_AS_FACTS:  # (the facts' own words for it: the match, or the day, harm or name it says)
        m = rx.search(sentence)
        if m is not None and (m.group(m.lastindex or 0) or m.group(0)).lower() not in low and not negated_at(sentence, m.start()) \
                and not (rx is _MATERIAL and of_a_family(m.group(0), low)):  # (塑料 where the facts say ABS)
            return f"{what} the facts do not state: {m.group(0)}"
    for m in _MODE.finditer(sentence):
        name, kind = m.group(1), m.group(2)
        if name not in facts and name[-1] + kind not in facts and not negated_at(sentence, m.start()) \
                and not (name[0] == "最" and re.search(r"最[高低大小强弱]", facts)):  # (最暗档 of 最低亮度: a limit, no mode)
            return f"a mode the facts do not name: {m.group(0)}"
    for m in _FEATURE.finditer(sentence):
        if m.group(1)[-2:] not in facts and not negated_at(sentence, m.start()):
            return f"a feature the facts do not name: {m.group(0)}"
    m = _VOLTAGE.search(sentence)
    if m is not None and not _VOLTAGE_FACTS.search(facts) and not negated_at(sentence, m.start()):
        return f"mains the facts do not name: {m.group(0)}"
    m = _CARRIED.search(sentence)
    if m is not None and not _CARRIED_FACTS.search(facts) and not negated_at(sentence, m.start()):
        return f"a use the facts do not speak of: {m.group(0)}"
    if _MADE.search(sentence) or _SENT_FROM.search(sentence):
        for place in places_named(sentence):
            if place not in facts and not negated_at(sentence, sentence.index(place)):
                return f"a place of making or sending the facts do not name: {place}"
    return ""
