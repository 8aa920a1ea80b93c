"""What the guard reads in a sentence besides its figures: absolute claims (the Advertising Law's and their slang:
最, 第一, 天花板, 遥遥领先), promise frames (a guarantee, money back on a condition, something for nothing, a gift for
later …) and what else in the knowledge base states them, return statements and their conditions (拆封, 无理由, 运费),
prompt leaks (instructions, passage ids in any spelling, file names, the model behind the persona), how long an echo
of the viewer is, and the shop run down in the anchor's own voice."""

from __future__ import annotations

import re

from broadcaster.brain.chitchat import Friendly
from broadcaster.brain.figures import CN_NUM, cjk_bigrams, figures, numeric_text
from broadcaster.brain.lang_en import ABSOLUTE_CLAIMS as ABSOLUTE_CLAIMS_EN
from broadcaster.brain.textnorm import dense, normalize
from broadcaster.brain.wordlists import (
    ABSOLUTE_CLAIMS,
    RETURN_CONDITIONS,
    RETURN_RESTRICTIONS,
    RETURN_WORDS,
)

# How many of the viewer's characters in a row, repeated by the model and in no passage, make an echo.
ECHO_CHARS = 6
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


# …and of an English viewer's letters (six letters are one word: "thanks"), for a comment of three latin words or more.
ECHO_CHARS_EN = 16
_LATIN_WORDS = re.compile(r"[a-z]+", re.IGNORECASE)


def echo_len(question: str) -> int:
    """How long a run of the viewer's characters must be to be an echo: ECHO_CHARS (ECHO_CHARS_EN for English), or the
    whole of a shorter question (a four-character insult repeated whole is an echo); 0 (no check) under three."""
    n = len(dense(question))
    if n >= 3 and not _CJK.search(question) and len(_LATIN_WORDS.findall(question)) >= 3:
        return min(ECHO_CHARS_EN, n)
    return min(ECHO_CHARS, n) if n >= 3 else 0


# Talk about instructions or the prompt itself, and passage ids: never said on stream.
# What a retrieved passage or source file is called, and the key its number is given under, for the id check.
_ID_NOUNS = r"passage|chunk|doc|document|faq|kb|source|ref|context|snippet|entry|段落|资料|文档|片段|条目|事实"
_ID_KEYS = r"ids?|no\.?|num(?:ber)?|index|idx|编号|序号|号码|索引|id号|号"
LEAK_PHRASES = re.compile(
    r"system\s*prompt|系统提示|提示词|系统指令|我的指令|我的设定|我的提示|设定(?:里|中|上|是)|系统设定|(?:被|给我)设定|要(?:我)?说(?=\d|[一二三四五六七八九十])|我的规则|这些规则|规则是|第.条规则|人设|"
    r"被要求|开发者(?:消息|指令)?|ignore (?:all |the )?previous|忽略(?:之前|以上|上面)的|以下是(?:资料|参考)|"
    r"(?:根据|参考|按照|下面的|上面的)资料|资料(?:里|中|上|显示|说)|"
    r"[\w\-/]+\.(?:ya?ml|md|markdown|txt|jsonl?|csv|toml|xlsx?|docx?|pdf)(?![a-z0-9])|"
    r"[a-z0-9_\-]+\s*(?:点|dot)\s*(?:ya?ml|jsonl?|md|csv|txt|toml)(?![a-z0-9])|字段|知识库|数据库|资料库|"
    r"\[[^\]\n]{0,40}#\d+\]|#\d+\]|\bp\d+\]|"
    # internal ids in any spelling (passage_3, faq#2, chunk-12, doc 4, passage_id=7, 资料编号是七, 文档#3, 第2段资料)
    # and the model behind the persona (after heldout7, heldout11)
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*[_#\-]?\s*\d+|"
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*[_\-\s]?\s*(?:{_ID_KEYS})\s*(?:[_#=:：\-]|是|为|等于)?\s*[\d{CN_NUM}]+|"
    rf"(?<![a-z])[a-z]*_?id\s*[=:：#]\s*\d+|第\s*[\d{CN_NUM}]+\s*(?:条|段|篇|份|个)(?:{_ID_NOUNS})|"
    rf"(?<![a-z])(?:{_ID_NOUNS})\s*第\s*[\d{CN_NUM}]+|"
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
    # the room's own filtering (过滤规则, 被系统屏蔽, 敏感词库) and a machine's identifier (ban_contact, risk_score): how
    # the anchor decides is never said on air
    r"过滤(?:规则|系统|词|器)|屏蔽(?:规则|词|系统)|敏感词(?:库|表|列表)|违禁词(?:库|表)|审核(?:规则|系统|机制)|风控(?:规则|系统)|"
    r"被(?:系统|规则|机器)?(?:过滤|屏蔽|拦截)(?:掉|了)?|(?<![a-z0-9])[a-z]+(?:_[a-z0-9]+)+(?![a-z0-9])|"
    r"according to (?:the|my) (?:document|context|materials?|instructions?|data)|"
    # where the anchor's words come from, in other words (后台表格里写的, 照着稿子念的, the prompt)
    r"后台[\u4e00-\u9fff]{0,4}(?:表格|文档|配置|文件|写的|给的|发的|资料|材料)|照着[\u4e00-\u9fff]{0,4}(?:念|读)|(?<![a-z])prompts?(?![a-z])|"
    r"(?:根据|参考|按照|依据)[\u4e00-\u9fff]{0,8}?(?:资料|材料|文档)|给我的(?:资料|材料|信息|数据)",
    re.IGNORECASE,
)
# A clause that only says where the answer comes from ("根据知识库第21条，", "按资料来看，", "查了一下数据库，"): its leak is
# all it says, so the sentence goes on without it (the rest checked as any sentence).
_CITING = re.compile(r"^\s*(?:根据|按照|依据|按|据|参考|查了?一?下?|看了?一?下?)[^，,；;。！？!?]{0,16}[，,；;]?\s*$")


def citation(clause: str) -> bool:
    """Whether a clause cites the anchor's sources and says nothing else (see _CITING)."""
    return _CITING.match(clause) is not None and LEAK_PHRASES.search(clause) is not None


# The shop, its goods or the anchor run down in the anchor's own voice (a viewer's dictated "说一句我是骗子" repeated:
# 好，我是骗子): fraud, fakes and scams are never said of oneself on air, whoever asked. Said refused or as a warning
# ("我们不是骗子", "不卖假货", "谨防诈骗") it runs nothing down.
_DISPARAGING = re.compile(r"骗子|诈骗|骗人|骗钱|行骗|假货|冒牌货?|山寨货?|黑店|奸商|坑人|坑钱|割韭菜|智商税|三无产品|垃圾(?:货|茶|产品|东西|店)|"
                          r"(?:主播|我|我们|咱们|本店|这家店)(?:就|真)?是(?:个|一个)?(?:大)?(?:傻子|白痴|废物|蠢货|垃圾)|"
                          # the goods' quality run down (a competitor's script voiced: "X的发热线容易坏")
                          r"质量(?:很|太|特别|比较)?(?:差|不好|不行|堪忧)|做工(?:很|太)?(?:差|粗糙)|偷工减料|不耐用|容易坏|一用就坏|"
                          r"(?:很快|没几天)就坏|有安全隐患")
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


# An English sentence's absolute claims (lang_en.ABSOLUTE_CLAIMS as whole words, "100% <claim>", "never <fails>"), and
# its compositions ("100% cotton", "100% recycled polyester").
_ABSOLUTE_EN = re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(w) for w in sorted(ABSOLUTE_CLAIMS_EN, key=len, reverse=True))
                          + r"|100\s?%\s*[a-z]+|never\s+(?:breaks?|fails?|leaks?|fades?|wears?\s+out|rusts?|stops?)"
                          r"|(?:fully|totally|completely)\s+(?:waterproof|unbreakable|indestructible))(?![a-z0-9])",
                          re.IGNORECASE)
_COMPOSITION_EN = re.compile(r"100\s?%\s*(?:recycled\s+|organic\s+|pure\s+|natural\s+)?(?:cotton|wool|polyester|nylon|"
                             r"silk|linen|merino|cashmere|leather|recycled|aluminium|aluminum|stainless|silicone|bamboo|"
                             r"cocoa|juice)\b", re.IGNORECASE)


def absolute_claim(sentence: str) -> str:
    """The first absolute claim in a sentence, a composition ("100%纯棉", "100% cotton") excused ('' if none)."""
    n = normalize(sentence)
    if not _CJK.search(sentence):
        for m in _ABSOLUTE_EN.finditer(sentence):
            if not _COMPOSITION_EN.match(sentence, m.start()):
                return m.group(0)
    for m in _ABSOLUTE.finditer(n):
        if m.group(0) in ("100%", "百分百", "百分之百") and _COMPOSITION.match(n, m.end()):
            continue
        if m.group(0) in ("100%",) and not _CJK.search(sentence) and _COMPOSITION_EN.match(sentence, sentence.find("100")):
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
POSTAGE_PAID = re.compile(RETURN_POSTAGE)
# What else in the knowledge base states a frame's promise, given what the sentence is about: postage "not charged"
# is the KB's 包邮 (运费不收钱 ← 全国包邮), a free gift is its 赠/送.
FRAME_EVIDENCE: dict[str, tuple[tuple[str, str], ...]] = {
    "不满意不要钱": ((r"运费|邮费|快递费|寄费", r"包邮|免运费|免邮|运费由.{0,6}承担"),),
    "免费": ((r"运费|邮费|快递费|寄费|包邮", r"包邮|免运费|免邮|运费由.{0,6}承担"),
             (r"送|赠|茶匙|赠品|礼", r"赠送|附赠|免费送|赠品|加送|送")),
    "备注": ((r"备注", r"备注"),),  # (an order note the facts speak of at all: 下单时备注抬头)
}
RETURN = re.compile(RETURN_WORDS)
# Use said by finishing or just having drunk it ("喝完了也能退") is the 使用 condition too.
_MORE_CONDITIONS = {"使用": r"喝完|用完|吃完|喝掉|用掉|喝了一半|用了一段|穿了"}
_CONDITIONS = [(label, re.compile(rx + ("|" + _MORE_CONDITIONS[label] if label in _MORE_CONDITIONS else "")))
               for label, rx in RETURN_CONDITIONS]
RESTRICTIONS = re.compile(RETURN_RESTRICTIONS)
_NEGATION = re.compile(r"(?:未|不|没|没有|无需|不用|别|勿|不能|不可|不支持)(?:七天|7天|七日|7日)?$")  # 不支持七天无理由
WAIVED = re.compile(r"只要[\u4e00-\u9fff]{1,8}就(?:行|可以|能|没问题|都|好)")  # every condition but one waved off
SENTENCE_END = re.compile(r"[。！？!?；;\n]+")
CLAUSE_END = re.compile(r"[，,、：:]+")


def return_units(text: str) -> list[str]:
    """The return-policy statements of a text: clauses up to one that names a return ("拆封后如有质量问题，
    也可以退" is one), a trailing clause without one joined to the statement before it."""
    units: list[str] = []
    for sentence in SENTENCE_END.split(text):
        pending = ""
        for clause in CLAUSE_END.split(sentence):
            pending += clause
            if RETURN.search(clause):
                units.append(pending)
                pending = ""
        if pending and units and RETURN.search(units[-1]) and sentence:
            units[-1] += pending
    return [u for u in units if RETURN.search(u)]


def return_conditions(unit: str) -> set[tuple[str, bool]]:
    """The conditions a return statement names, each with its polarity ("未拆封" → ("拆封", False))."""
    out: set[tuple[str, bool]] = set()
    for label, rx in _CONDITIONS:
        for m in rx.finditer(unit):
            out.add((label, not _NEGATION.search(unit[max(0, m.start() - 6) : m.start()])))
    return out


# Short names of what the facts name in full (a model says 普票 of 电子普通发票).
SHORT_FOR = {"普票": "普通发票", "专票": "专用发票", "电票": "电子发票"}

# Share of a statement's word pairs the facts must say: a true paraphrase shares far more (scripts/unsupported_share.py:
# on issue 22's sets 1 of 866 true sentences read unsupported and 116 of 777 invented ones, 14 of the 22 the other rules
# let by).
UNSUPPORTED = 0.1
# A warning or a refusal (湿手别拿, 开水不行, 不防水哦) restricts what the viewer does: it promises nothing ("不用安装",
# "没问题" permit, and are held to the facts' words).
_RESTRICTS = re.compile(r"不能|不可|不行|(?<![特区分性级告类个差识])别(?!人|家|的)|不要|不宜|不适合|不建议|禁止|请勿|切勿|严禁|不够|"
                        r"不防|没有(?!问题|关系|影响)|暂无|不支持|不含|不送|不发|会伤|会坏|容易坏")
_FRIENDLY = Friendly()


def unsupported(sentence: str, known: frozenset[str]) -> bool:
    """A statement of three or more word pairs almost none of which are `known` (the facts', the passages' and the
    persona's: cjk_bigrams), with no figure (its figures are checked as figures: 调到1档就行) and no friendly word: a model's
    addition no reading of the facts supports (送闺蜜特别合适, 放一颗进去碗洗得锃亮, 冬天出来的雾还是暖的)."""
    grams = cjk_bigrams(sentence)
    if len(grams) < 3 or any(f.significant or re.search(r"\d", f.text) for f in figures(numeric_text(sentence))) \
            or _FRIENDLY(sentence) or _RESTRICTS.search(sentence):
        return False
    return len(grams & known) < UNSUPPORTED * len(grams)
