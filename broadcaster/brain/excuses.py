"""A viewer's comment that names a listed word without doing what the word stands for (Moderator.check_comment).

- Another platform named in a question about this shop and its goods ("淘宝上那家跟直播间是一家吗", "拼多多上有个便宜很多的，
  是不是假的？想在这买个放心的"): only the platform's name was hit, the text asks something, and it either speaks of this
  shop (这家, 你们, 直播间, 正品 …) or carries no diversion cue (go there, search there, cheaper there).
- A purchase there told as the viewer's own past ("我在京东买过一个杂牌的 震得手麻"), with no diversion cue.
- A listed frame said of the literal thing, in the clause that holds it: 翻墙 by a cat or over a yard's wall with no
  internet word in the comment ("我家猫会翻墙偷吃"), a comparison with an animal said of the viewer's own, nobody in the
  room addressed ("我家猫吃得跟猪一样").
- Another viewer reported for what they post ("楼上卖假证的赶紧封了吧", "刚才有人发微信号打广告 主播管管"): the listed words
  inside the report are no offer (a contact the text gives is never excused: it is no listed word).
"""

from __future__ import annotations

import re

from broadcaster.brain.intent import is_question
from broadcaster.brain.textnorm import dense
from broadcaster.brain.verdict import Verdict

# A question naming another platform speaks of this shop …
_OWN_SHOP = re.compile(r"在这|这里|这边|直播间|你们|你家|这家|一家|同一家|本店|主播家|正品|真的假的|是不是假|是假的|假货吗|放心|官方|授权|"
                       r"旗舰店吗|一样吗|一个厂|同一个")
# Another viewer reported to the room for what they sell (楼上卖假证的赶紧封了吧, 刚才发代开发票的拉黑): the listed trade named
# inside the report is no offer of it (a contact is never excused: it is no listed trade word).
_REPORT = re.compile(r"(?:楼上|楼下|前面|上面|刚才|刚刚|那个|这人|这个人|有人)(?:那个|的|有人)?(?:一直|老是|在)?(?:卖|发|打|刷|搞|做|推)"
                     r"(.{1,10}).{0,4}(?:封|举报|拉黑|禁言|踢|管管|管一下|房管|删掉|别理|是骗子)")
_ELSEWHERE = frozenset({"别家价格", "别处购买"})
# … or it diverts buyers there: go, search, buy there, cheaper there, not here.
_DIVERSION = re.compile(r"(?:去(?!年)|到|上(?![次回个周礼年月]|买[了过的]))[^\s，,。！!？?；;]{0,6}(?:买|搜|下单|拍|看看|领)|搜(?:同款|一下|索)|更便宜|更划算|才\d|只要\d|便宜\d|"
                        r"便宜(?:多了|很多|好多|不少|一半)|别(?:在这|在这里|买|拍)|不如去|不要在|加我|私我|私聊|链接|同款(?:只要|才)")


# A purchase on another platform told as the viewer's own past (我在京东买过, 之前在淘宝买的; a clause opening with it:
# 京东买的还没到 — not a price or a comparison said of it: 淘宝买的更便宜; 二手 is no price: 闲鱼上买了个二手的).
_PAST_BUY = re.compile(r"(?:我|俺|之前|以前|上次|去年|前年|早就)[\u4e00-\u9fff]{0,4}(?:在|从)[\u4e00-\u9fffa-z]{1,6}?上?(?:买过|买的|买了|入过|下过单|下的单)|"
                       r"(?:^|(?<=[\s，,。！!？?]))[\u4e00-\u9fffa-z]{1,6}?上?(?:买过|买的|买了|入过|入的)(?![\u4e00-\u9fff]{0,3}(?:更|才|只要|便宜|[一二两三四五六七八九十](?!手)))")


_OFFER = re.compile(r"[0-9一二两三四五六七八九十百千]|便宜|划算|实惠|只要|才|仅|折|减|送|秒杀|活动|清仓|包邮|补贴|同款|全新|出")
# …asked whether it is this shop (是你们家的号吗, 是不是你家): not 大家去戴森直播间吧, which names a room too
_SAME_SHOP = re.compile(r"是(?:不是)?(?:你们|你家|主播家|这家|本店)|(?:你们|你|主播)家的(?:号|店|账号|吗|不|么)")
_CLAUSE = re.compile(r"[^，,。.!！?？;；~～\s]+")
# a creature or a place that has walls to climb: 翻墙 is climbing one
_PHYSICAL = re.compile(r"猫|狗|宠物|孩子|小孩|娃|小偷|贼|院|围墙|墙头|栏|笼|阳台|窗|小区|学校|宿舍|工地|后门|邻居")
_NET = re.compile(r"梯子|vpn|外网|真相|节点|机场|上网|软件|加速|油管|谷歌|推特|脸书|youtube|google|twitter|facebook|ins(?![a-z])")
# a comparison with an animal (跟猪一样, 像头猪似的) whose clause opens with the viewer (我家猫…, 我…) and names nobody else
_COMPARED = re.compile(r"(?:像|跟)(?:个|只|条|头)?\S{1,4}(?:一样|似的)")
_OWN = re.compile(r"^(?:我|俺|咱)")
_ADDRESS = re.compile(r"你|您|主播|他|她|楼上|楼下|这人|那人|老板|客服|大家")


def _literal(word: str, how: str, span: str, text: str) -> bool:
    """Whether one hit is a listed frame said of the literal thing (the module doc's third case)."""
    if how != "pattern":
        return False
    clause = next((c for c in _CLAUSE.findall(text) if span and span in dense(c)), "")
    if word == "翻墙":
        return span == "翻墙" and _PHYSICAL.search(clause) is not None and _NET.search(text.lower()) is None
    if word == "侮辱":
        return (_COMPARED.fullmatch(span) is not None and _OWN.search(clause) is not None
                and _ADDRESS.search(clause) is None)
    return False


def excused(v: Verdict, text: str, platforms: frozenset[str]) -> bool:
    """Whether the comment `v` blocked names its listed words without doing what they stand for (see the module doc)."""
    if all(_literal(w, h, sp, text) for w, h, sp in zip(v.matched, v.how, v.spans, strict=True)):
        return True
    report = _REPORT.search(dense(text))
    if report is not None and all(h in ("text", "alias") and sp in report.group(1) for h, sp in zip(v.how, v.spans, strict=True)):
        return True
    names = [w in platforms and h in ("text", "alias") for w, h in zip(v.matched, v.how, strict=True)]
    # (…and the other place's frame, when what it caught states no price or offer: 闲鱼上买了个二手的 is the viewer's
    # own second-hand buy, not one sold there)
    told = [n or (w in _ELSEWHERE and h == "pattern" and not _OFFER.search(text.replace("二手", "")))
            for n, w, h, sp in zip(names, v.matched, v.how, v.spans, strict=True)]
    if any(names) and all(told) and _PAST_BUY.search(text) and not _DIVERSION.search(text):
        return True
    if not is_question(text):
        return False
    elsewhere = [w in _ELSEWHERE and h == "pattern" for w, h in zip(v.matched, v.how, strict=True)]
    if all(elsewhere) and _SAME_SHOP.search(text) and not _OFFER.search(text.replace("同款", "")):
        return True  # (the same goods seen on another platform, asked whether it is this shop's: 快手上刷到过同款 是你们家的号吗)
    if not any(names) or not all(a or b for a, b in zip(names, elsewhere, strict=True)):
        return False
    # a price said of the other place needs the shop spoken of ("…便宜很多的，是不是假的？想在这买"); a place's frame that
    # caught no price or offer (闲鱼上有二手的，买新的有啥保障) is a mention, like the place's name alone
    offer = any(elsewhere) and _OFFER.search(text.replace("二手", "")) is not None
    return _OWN_SHOP.search(text) is not None or (not offer and not _DIVERSION.search(text))
