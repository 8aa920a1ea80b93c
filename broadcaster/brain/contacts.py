"""Contacts a comment gives or asks for, read in its contact views (spelling.contact_views): phone numbers, web
addresses, an app and an id, a channel + search/add + a handle, a bare long number with a contact or trade cue
(never a date, a price, an order number or a platform's default user name)."""

from __future__ import annotations

import re
import unicodedata

from broadcaster.brain.spelling import COMMON_WORD_FREQ, segmenter, sound_views

_APP = (r"(?:qq|扣扣|koukou|企鹅|qie|微信|weixin|wechat|vx|wx|v信|微x|绿泡泡|泡泡|lvpaopao|群|qun|纸飞机|飞机号|tg|telegram|"
        r"whatsapp|抖音号|快手号|dy号|小红书号|微博号|绿色(?:聊天)?(?:软件|app)|绿软|聊天软件|飞书|钉钉|陌陌)")
_ID = r"(?=[a-z0-9_\-]*(?:\d|_))[a-z][a-z0-9_\-]{4,}(?![a-z0-9_])"  # an id: letters with digits or _
_APP_CORE = r"(?:qq|扣扣|koukou|企鹅|微信|weixin|wechat|vx|wx|v信|微x|绿泡泡|薇信|威信)"  # apps that are never other words
_CONTACT = re.compile(
    r"(?<!\d)1[3-9]\d{9}(?!\d)"  # a mainland mobile number
    # an app (or a one-letter/one-character nickname) and a number: "qq 12345678", "qun号 123456789"
    rf"|(?<![a-z])(?:{_APP}|q|v|扣|微|薇|威)(?:号码|号|群号|群|id|账号|帐号|是|搜索|搜|:|@){{0,3}}\d{{5,}}"
    # an app and an id of letters and digits: "微信tea888", "vx搜yunwu666", "微x:abc123"
    rf"|(?<![a-z]){_APP}(?:号码|号|id|账号|帐号|是|搜索|搜|:|@){{0,3}}(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{{3,}}"
    r"|(?<![a-z])(?:v|q|微|薇|威|扣):[a-z0-9_-]{4,}"  # "v:tea888"
    rf"|(?:薇|威|蔻|寇)(?:号|:)?{_ID}"  # a one-character WeChat/QQ stand-in right before an id ("薇❤ lsgt2025")
    rf"|(?<![a-z]){_APP}(?:号码|号|id|账号|帐号)?[:@]{{1,2}}[a-z][a-z0-9_-]{{3,}}"  # "微信：tea-shop", "telegram: @ x_y"
    # a phone number asked for by name: "电话：壹叁捌…", "tel 139 0000 2222"
    r"|(?:电话|手机号|手机|tel|phone|dianhua|shouji|联系方式|联系我|联系|call|打|拨打)(?:号码|号|是|:){0,2}\d{7,}"
    # a long number with a contact verb: "12345678 找我"
    r"|(?<!\d)\d{6,}(?!\d)(?:找我|加我|联系|私我|私聊|进来|进群|来撩|滴滴|call)"
    rf"|(?<!参)[加私](?:我|个|一下|1下|下)?(?:的)?(?:客服|售后|官方)?(?:v|vx|wx|q|qq|扣扣|微信|企鹅|绿泡泡|koukou|weixin)(?![a-z])"  # "加个v", "加客服qq"
    r"|(?<!参)加(?:我|个|一下|下)?微[❤心]?(?:(?![\u4e00-\u9fffa-z])|(?=[我吗呗吧呀啊嘛呢私聊]))"  # "加个微❤️" (加微辣, 加微波炉 go on into a word)
    # "add me on X" for work/chat apps that are no other word (加飞书, 加钉钉)
    r"|(?<!参)加(?:我|个|一下|下)?(?:飞书|钉钉|陌陌|探探|电报|纸飞机|telegram|whatsapp|line|soul)(?![a-z])"
    r"|主页.{0,3}(?:联系|加我|私我|v|微)"  # "主页有联系方式"
    r"|(?<!参)加我?:?(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{3,}(?![a-z0-9])"  # "加我tea888"
    r"|搜(?:索)?:?(?:(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{4,}|\d{6,})"  # "搜 yunwu666"
    r"|[a-z0-9-]{3,}(?:点|dot)(?:com|cn|net|top|xyz|vip|shop|cc)(?![a-z0-9])"  # "tea888点com"
    rf"|{_APP_CORE}(?:号码?)?(?:是|发|给)?(?:联系|私聊|私我|私|找我|加我|搜|发我|多少|一下|1下|我)"
    # an id (letters with digits or an underscore) next to a contact cue, whatever the app word: "✈️:@lvcha_vip",
    # "ins:tea_2468", "tea_2468 加我"; an @handle with a contact verb
    rf"|(?:飞机|电报|tg|ins|推特|twitter|line|微博|小红书|xhs|抖音|dy|快手|b站|私聊|私信|主页|账号|帐号|(?<![型编批货单序色学车房])号|id)"
    rf"(?:是|为|叫)?:?@?{_ID}"
    rf"|@{_ID}(?:.{{0,4}}(?:私聊|私我|私信|加我|找我|联系|更便宜|优惠))",
)
# An id followed by a contact verb ("tea_2468 加我"): tried only when a verb is there (the id's look-ahead
# at every latin position would cost a scan each).
_CONTACT_VERB = re.compile(r"加我|私聊|私我|私信|找我|联系|滴滴")
_ID_THEN_VERB = re.compile(rf"(?<![a-z0-9_]){_ID}(?:加我|私聊|私我|私信|找我|联系|滴滴)")
# A channel named by any app, a nickname of two repeated characters (丘丘, 钉钉, 陌陌) or a short latin token (tg, ks),
# then "search/add/follow", then a handle: latin (any ≥ 5 letters: "tg搜cheapgreentea") or, with a trade cue
# anywhere in the text, a CJK name ("钉钉搜茶叶批发王拿出厂价"). "小红书搜这个茶的测评" has no trade cue.
_PLATFORM = (r"(?:qq|扣扣|企鹅|微信|vx|wx|v信|绿泡泡|泡泡|绿色软件|绿色app|绿软|聊天软件|tg|telegram|纸飞机|飞机|电报|whatsapp|line|ins|instagram|facebook|"
             r"推特|twitter|钉钉|陌陌|探探|soul|脉脉|飞书|企业微信|企微|微博|小红书|抖音|快手|b站|豆瓣|贴吧|知乎|视频号|公众号|"
             # nicknames (after heldout10): 围脖 微博, 小红薯/红书 小红书, 斗音 抖音, 小破站 b站, 海鲜市场 闲鱼, 某X
             r"围脖|围勃|小红薯|红薯|红书|小红叔|某书|某红书|斗音|抖阴|某音|某博|某手|块手|筷手|小破站|哔站|逼站|哔哩哔哩|bilibili|"
             r"闲鱼|咸鱼|海鲜市场|油管|"
             r"([\u4e00-\u9fff])\1|(?<![a-z0-9])[a-z]{2,3})")
# A CJK handle is a name, not what is looked up (小红书搜一下这个茶的测评, 搜了攻略 are topics).
_HANDLE = re.compile(rf"{_PLATFORM}(?:号|上|里|app)?(?:搜索?|关注|加|找|id|号|@)[:@]?"
                     r"(?:(?P<latin>[a-z][a-z0-9_\-]{4,})"
                     r"|(?!了|过|到|一下|下|这|那|看|的|得|不|什么|啥|怎么|有没有|相关|测评|评价|攻略|教程|你|主播)(?P<cjk>[\u4e00-\u9fff]{3,10}))")
_TRADE_CUE = re.compile(r"批发|货源|合作|加盟|供货|代发|拿货|出厂|厂价|代理|一手|渠道|低价|进货|内部价|底价|拿样|私聊|私我|私信|关注我|同名|搜我|发你|找我|"
                        # what a searched shop or account promises (after heldout10)
                        r"福利|攻略都|有礼|优惠|样品|领|便宜|同款|有惊喜|都在|全在|的店|小店|茶仓|茶庄|工作室|秒杀|链接|直播|主页|天天|每天")
# A CJK handle that names a person or a shop (茶叶阿强, 茶山小王, 老茶客阿福, 云雾茶舍): an account, not a topic.
_PERSON_HANDLE = re.compile(r"阿[\u4e00-\u9fff]|[\u4e00-\u9fff](?:哥|姐|叔|妹|嫂|仔)$|小[王李张刘陈杨黄赵周吴]|老[王李张刘陈杨黄赵周吴]"
                            r"|同学|老师|茶舍|茶馆|茶铺|茶行|官方|旗舰")
_TOPIC = re.compile(r"测评|评价|评测|教程|攻略|视频|怎么|推荐|好不好|真假|是不是")
# An id given as a CJK name after "id" (绿色软件上找我 ID 茶农阿强), with a contact verb anywhere.
_CJK_ID = re.compile(r"(?<![a-z])id:?[\u4e00-\u9fff]{2,8}")
# A number of five digits or more (any script, after the numeral view) that is no date, price, order or tracking
# number: a contact id when it is long (≥ 7) or anything in the text asks to get in touch or trade.
_LONG_NUMBER = re.compile(r"(?<![0-9¥$])[a-z_\-]*(\d{5,})(?![0-9])")  # with the letters of its token (订单号abc12345)
_NUMBER_CONTEXT = re.compile(r"(?:订单|单号|运单|快递|物流|编号|批号|批次|日期|尾号|型号|货号|条码|编码|生产|序列|工号|房号|邮编|车牌|"
                             r"价格|售价|价|原价|到手|销量|库存|粉丝|点赞|播放|观看|人数|第|用户|网友|游客|会员|观众)[是:为]?$")
# Platforms' default user names (bili_39218774, user12345678): the letters of the number's own token.
_DEFAULT_NAME = frozenset({"bili", "bili_", "user", "user_", "uid", "mid", "u_", "用户"})
_NUMBER_UNIT = re.compile(r"(?:元|块|rmb|人|次|个|件|罐|克|g|ml|毫升|斤|年|月|日|天|号|万|千|百|分|秒|小时|米|度|%)")
_LOVE = re.compile(r"(?:520|521|1314|3344|9420|886|88)+")
_DATE = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])")
_CONTACT_CUE = re.compile(r"私|加|联系|找我|滴|搜|批发|货源|拿货|代理|一手|渠道|出厂|厂价|进货|咨询|扣|群|微|薇|威|企鹅|电话|手机|"
                          r"tel|call|dd|号|(?<![a-z])[qv](?![a-z])")
_PAIR = re.compile(r"([\u4e00-\u9fff])(?<!\1\1)\1(?!\1)")  # exactly two (冲冲冲 is emphasis, not a name)


def _nickname_pair(text: str) -> bool:
    """Two repeated characters that are no everyday word (丘丘, 钉钉, 陌陌; not 哈哈, 看看, 多多): an app's nickname."""
    return any((segmenter().dt.FREQ.get(m.group(0)) or 0) < COMMON_WORD_FREQ for m in _PAIR.finditer(text))


def _long_number(view: str) -> str:
    """A contact id hidden as a bare number (see _LONG_NUMBER), or ''."""
    for m in _LONG_NUMBER.finditer(view):
        digits = m.group(1)
        if m.group(0)[: -len(digits)] in _DEFAULT_NAME:
            continue
        if len(set(digits)) < 3 or (len(digits) == 8 and _DATE.fullmatch(digits)) or _LOVE.fullmatch(digits):
            continue  # 666666, 2333333, a date, 5201314 (I love you for ever): chat, not an id
        if _NUMBER_CONTEXT.search(view[max(0, m.start() - 4) : m.start()]) or _NUMBER_UNIT.match(view, m.end()):
            continue
        if len(digits) >= 7 or _CONTACT_CUE.search(view) or _nickname_pair(view):
            return digits
    return ""


# An id given under any label, the label a stand-in for the app ("卫星：lanlan5678 便宜挂烫机要不要"), with something to sell.
_LABELLED_ID = re.compile(rf"([\u4e00-\u9fff]{{1,4}})[:：]\s*{_ID}")


def _handle(view: str) -> str:
    """A channel + search/add + handle (see _HANDLE), or ''."""
    if _CJK_ID.search(view) and _CONTACT_VERB.search(view):
        return _CJK_ID.search(view).group(0)  # type: ignore[union-attr]
    for m in _LABELLED_ID.finditer(view):
        if not _NUMBER_CONTEXT.search(m.group(1)) and _TRADE_CUE.search(view):
            return m.group(0)
    for m in _HANDLE.finditer(view):
        if m.group(1) and not _nickname_pair(m.group(0)[:2]):
            continue  # 多多上搜…, 看看搜…: an everyday doubled word, not an app
        if m.group("latin") or _TRADE_CUE.search(view):
            return m.group(0)
        # A person's or shop's name with nothing else to sell is an account, unless a review is what is looked up
        # (抖音搜老王茶叶测评).
        if _PERSON_HANDLE.search(m.group("cjk")) and not _TOPIC.search(m.group("cjk")):
            return m.group(0)
    return ""


_WEB = re.compile(r"https?://|www\.|[a-z0-9-]+\.(?:com|cn|net|top|xyz|vip|shop|cc)(?![a-z0-9])|[a-z0-9-]+(?:\.|点|dot)(?:me|io|app|link|ly|to|gg)/")


def find_contact(text: str, views: tuple[str, ...]) -> str:
    """What in a text gives or asks for a contact ('' if nothing): a web address, an app with an id or a number, an
    id with a contact verb, a channel and a handle, a bare long number."""
    m = _WEB.search(unicodedata.normalize("NFKC", text).lower().replace(" ", ""))
    for view in views + sound_views(views):
        if m is not None:
            break
        m = _CONTACT.search(view)
        if m is None and _CONTACT_VERB.search(view):
            m = _ID_THEN_VERB.search(view)
    found = m.group(0) if m is not None else ""
    for view in views if not found else ():
        found = _handle(view) or _long_number(view)
        if found:
            break
    return found
