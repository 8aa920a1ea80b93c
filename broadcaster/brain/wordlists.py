"""Built-in word lists: what every room blocks (unless `moderation.use_global: false`) and what an answer may not claim.

Provenance and licence: these lists were written by hand for this project by its engineers, from
general knowledge of what Chinese live-commerce platforms forbid and of how viewers dodge filters
(initials, pinyin, look-alike characters, app nicknames). No third-party word list was copied; they
are under the project's own licence. They are deliberately short and high-precision: a room adds
its own words (`moderation.words` / `words_file`), and every listed word is also matched through
the evasions the moderator undoes (pinyin and homophones, initials, one-letter syllables, splits).

ABSOLUTE_CLAIMS follows the Advertising Law of the PRC (2015, art. 9(3): no "国家级", "最高级",
"最佳" or similar in advertising); PROMISES are commitments a seller must be able to honour, so an
answer may state them only when the retrieved passages do.
"""

from __future__ import annotations

# -- moderation -----------------------------------------------------------------------------------------

INSULTS: tuple[str, ...] = (
    "傻逼", "傻屌", "傻叉", "傻x", "傻b", "二逼", "煞笔", "操你妈", "操你大爷", "草泥马", "艹你妈", "日你妈", "你妈的", "你妈死了",
    "他妈的", "特么的", "去你妈的", "滚你妈的", "我屌你妈的", "马勒戈壁", "狗日的", "去死吧", "去死", "死全家", "死妈",
    "狗东西", "脑残", "智障", "婊子",
    "贱人", "杂种", "畜生", "憨批", "fuck", "shit", "bitch", "asshole",
)
ADS_AND_FRAUD: tuple[str, ...] = (
    "加微信", "私加微信", "微信号", "加微", "加企鹅", "企鹅号", "企鹅群", "扣扣号", "扣扣群", "加扣扣", "加qq", "qq号", "qq群",
    "薇信", "v信", "微x", "vx", "wx", "加v", "q号", "私我", "加群", "进群", "私聊我", "私信我", "看主页", "主页联系",
    "刷单", "刷单返利", "代开发票", "办证", "套现", "裸贷", "网贷秒批",
)
GAMBLING_DRUGS_SEX: tuple[str, ...] = (
    "赌博", "博彩", "网赌", "赌球", "赌钱", "黄色网站", "六合彩", "毒品", "冰毒", "海洛因", "摇头丸", "k粉", "大麻",
    "约炮", "裸聊", "色情", "嫖娼", "嫖客", "代孕",
)
GLOBAL_WORDS: tuple[str, ...] = INSULTS + ADS_AND_FRAUD + GAMBLING_DRUGS_SEX

# Everyday words the segmenter's (older) dictionary lacks: a homophone of a listed word that is one
# of these is the word itself, not an evasion ("微信支付" is not 薇信).
EVERYDAY_WORDS: frozenset[str] = frozenset({"微信", "支付宝", "抖音", "快手", "拼多多", "淘宝", "京东", "天猫", "小红书", "直播间"})

# Nicknames viewers use for an app, a contact or a shop: a listed word containing the key is also
# listed with each nickname in its place ("加微信" → "加薇信", "加vx", …).
ALIASES: dict[str, tuple[str, ...]] = {
    "微信": ("薇信", "威信", "徽信", "微心", "维信", "卫星", "v信", "vx", "wx", "微x", "v"),
    "qq": ("扣扣", "企鹅", "q号", "抠抠"),
    "扣扣": ("qq", "企鹅"),
    "拼多多": ("拼夕夕", "pdd", "拼dd"),
    "淘宝": ("某宝", "taobao", "桃宝"),
    "抖音": ("某音", "dy"),
    "你妈": ("尼玛", "nm", "你吗"),
}

# Abbreviations too ambiguous to block alone ("TB" is also a terabyte): blocked only in a shopping
# context, and only when the word they stand for is listed. Regexes over the normalized text.
CONTEXT_ALIASES: dict[str, str] = {
    "淘宝": r"(?:去|在|上|到|逛)tb(?![a-z])|(?<![a-z])tb(?:上|搜|买|有|店|同款|更便宜|便宜)",
    "拼多多": r"(?:去|在|上|到)pdd(?![a-z])|(?<![a-z])pdd(?:上|搜|买|有|店|同款|更便宜|便宜)",
}

# Pinyin abbreviations that are whole words on Chinese chat (matched as whole latin tokens only);
# initials of every listed word of three syllables or more are added automatically (cnm, tmd, pdd…).
ABBREVIATIONS: dict[str, str] = {
    "sb": "傻逼", "nmsl": "你妈死了", "wdnmd": "我屌你妈的", "mlgb": "马勒戈壁", "nmb": "你妈逼", "rnm": "日你妈",
    "cnm": "操你妈", "cnmb": "操你妈", "tmd": "他妈的", "gnmd": "滚你妈的", "qnmd": "去你妈的", "sqj": "死全家", "2b": "二逼",
    "vx": "微信", "wx": "微信",
}

# -- answers --------------------------------------------------------------------------------------------

# Absolute claims (Advertising Law art. 9(3)). Regex fragments; a few everyday phrases are excepted
# (最近, 最后, 最好+verb "preferably", 第一次, 第一时间 …).
ABSOLUTE_CLAIMS: tuple[str, ...] = (
    r"最(?!近|后|终|多|少|迟|晚|早|初|好(?:是|用|别|不要|不|在|先|把|放|冲|泡|买|选|等|能|可以|尽快))",
    r"第一(?!次|泡|步|天|个|杯|遍|口|批|件|位|时间|道|轮|期|章|条|罐|眼|印象)",
    r"(?:国家|世界|全球|宇宙)级", r"顶级", r"极品", r"极致", r"顶尖", r"首选", r"唯一", r"独一无二", r"绝无仅有",
    r"史上", r"全网最低", r"王牌", r"冠军", r"no\.?\s*1(?!\d)", r"top\s*1(?!\d)", r"100%", r"百分之百", r"万能", r"领导品牌",
)

# Promises: (label, regex). Each is voiced only when a passage matches the same regex (or one of
# the label's equivalents in PROMISE_EVIDENCE).
PROMISES: tuple[tuple[str, str], ...] = (
    ("买赠", r"买[一二两三四五六七八九十\d]+送[一二两三四五六七八九十\d]+|买.{0,4}送"),
    ("半价", r"半价|对折"),
    ("免单", r"免单"),
    ("终身保修", r"终身(?:保修|质保|包换|维修)|永久(?:保修|质保|包换)"),
    ("保修", r"保修|质保"),
    ("包邮", r"包邮|免运费|免邮"),
    ("最低价", r"全网最低|最低价|价格最低|比.{0,4}都便宜"),
    ("退款", r"无效退款|全额退款|不满意.{0,2}退|包退|退款"),
    ("赔付", r"假一赔[一二两三四五六七八九十\d]+|假一罚[一二两三四五六七八九十\d]+|赔付"),
    ("效果", r"根治|治愈|包治|保证.{0,4}(?:瘦|效果|有效|好)|立竿见影|零风险|稳赚|百分百有效|"
           r"降(?:三高|血压|血糖|血脂)|抗癌|防癌|治疗|疗效|药效|减肥|瘦身|排毒"),
    ("分期", r"免息|分期"),
    ("秒杀", r"秒杀|限时|抢购|清仓"),
    ("七天无理由", r"[七7]天无理由"),
    ("赠品", r"赠品|赠送|附赠|免费送|加送|额外送|白送|送.{0,4}(?:杯|礼|盒|壶|套|包|罐|份|个|只|件|样)|"
           r"(?:还|再|另|就|都)送(?![达到货出往去回])|送(?:你|您|大家|粉丝|各位)"),
)
