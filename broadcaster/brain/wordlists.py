"""Built-in word lists: what every room blocks (unless `moderation.use_global: false`) and what an answer may not claim.

Provenance and licence: these lists were written by hand for this project by its engineers, from
general knowledge of what Chinese live-commerce platforms forbid and of how viewers dodge filters
(initials, pinyin, look-alike characters, app nicknames). No third-party word list was copied; they
are under the project's own licence. The same holds for what was added after heldout5's one run
(competitor platforms, casino/drug/sex/fraud vocabulary, regional insults, emoji stand-ins, Cyrillic and
Greek look-alikes, the gapped PATTERNS, return conditions and urgency promises): written by hand from
general knowledge of live-chat evasion, not from any list, and for what was added after heldout7 and
heldout8 (platform, grocery-app and supermarket names from general knowledge of China's retail market;
regional and net-slang insults; vice, harassment, task/refund/crypto/invoice scam frames; component splits), and after
heldout9 (threat/doxxing, counterfeit, VPN, weapon, debt-settlement, porn-collection and drug-slang frames, gambling
rebates, follow-for-follow, Cantonese curses), and after heldout10 (threat, doxxing, appearance/intelligence-insult,
curse and harassment frames; paid-companionship, worn-clothing, loan, account, investment, party-drug, boosting/scalping
and data-selling offers without a channel; a viewer selling the same thing; tea and vacuum-cup brand names from general
knowledge of the market; Shanghai/Cantonese/north-eastern insult nouns), and after heldout11 (live-commerce anchor and
room names, platforms' payment products, funeral and drug-asking frames, from general knowledge of the market and of
Chinese net slang). They are deliberately short and high-precision: a room adds
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
    # Common chat insults (regional ones included: 滚犊子 north-east, 妈卖批 Sichuan, 龟儿子 Sichuan).
    "脑瘫", "滚犊子", "妈卖批", "傻狗", "蠢货", "蠢猪", "白痴", "弱智", "贱货", "骚货", "人渣", "滚蛋",
    "王八蛋", "龟儿子", "狗娘养的", "傻缺", "傻帽", "垃圾主播", "你妈没了", "你妈无了", "神经病", "废物", "狗屎", "狗主播", "丑八怪",
    "艹", "瓜娃子",
    # Regional ones added after heldout7 (Cantonese 扑街/丢你老母, Sichuan 哈麻批/瓜批), and the insult the
    # initials nmb stand for (an abbreviation is only matched when its meaning is listed).
    "你妈逼", "扑街", "仆街", "冚家铲", "丢你老母", "屌你老母", "哈麻批", "瓜批", "龟孙子", "狗杂种", "贱种", "痴线",
    # Net slang for the same (added after heldout8): 低能儿, 老色批 (lsp),
    # 戆鸠 (Cantonese, on9).
    "低能儿", "老色批", "戆鸠",
    # Added after heldout9 (by class): Shanghai 瘪三, Henan 龟孙, Cantonese curses on the mother with 雷 for 你 (more in
    # the 粤语脏话 pattern; 食屎, 狗逼 and 碧池 are patterns: by sound or initial they are 匙是, 4g比3g, 必吃).
    "瘪三", "龟孙", "丢雷老母", "屌雷老母",
)
ADS_AND_FRAUD: tuple[str, ...] = (
    "加微信", "私加微信", "微信号", "加微", "加企鹅", "企鹅号", "企鹅群", "扣扣号", "扣扣群", "加扣扣", "加qq", "qq号", "qq群",
    "薇信", "v信", "微x", "vx", "wx", "加v", "q号", "私我", "加群", "进群", "私聊我", "私信我", "看主页", "主页联系",
    "刷单", "刷单返利", "代开发票", "办证", "套现", "裸贷", "网贷秒批",
    # Contact requests that name no app: the profile picture/page, "message me" slang.
    "看我头像", "点我头像", "戳我头像", "看我主页", "点我主页", "加我好友", "加好友", "滴滴我", "私我拿", "找我拿货",
    "绿泡泡",
    # Fraud: invoices, loans, cash-out, prize scams.
    "发票代开", "网贷", "黑白户", "无视征信", "不看征信", "秒下款", "洗钱", "跑分", "中奖请联系", "领奖请联系",
    "联系客服领取", "兼职日结", "日赚", "高额返利", "稳赚不赔", "信用卡代还", "假证", "刻章", "代考", "替考",
    "仿真枪", "枪支",
    # Channels by name that are never other words (added after heldout7).
    "钉钉号", "陌陌号", "探探号",
)
GAMBLING_DRUGS_SEX: tuple[str, ...] = (
    "赌博", "博彩", "网赌", "赌球", "赌钱", "黄色网站", "六合彩", "毒品", "冰毒", "海洛因", "摇头丸", "k粉", "大麻",
    "约炮", "裸聊", "色情", "嫖娼", "嫖客", "代孕",
    # Gambling: venues, games, casino brands and the bonus ("彩金") their ads promise.
    "赌场", "百家乐", "老虎机", "北京赛车", "彩金", "葡京", "新葡京", "威尼斯人", "金沙娱乐", "太阳城", "娱乐城",
    "真人娱乐", "皇冠体育", "菠菜网", "菠菜平台", "网上赌", "线上赌", "荷官", "押大小",
    # Drugs and their slang (叶子 = cannabis only in these phrases; 叶子 alone is a tea leaf).
    "飞叶子", "抽叶子", "麻古", "可卡因", "鸦片", "曲马多", "麻果", "嗨药", "迷药", "迷幻药", "听话水", "催情药", "春药", "吸毒", "贩毒",
    # Sex.
    "黄片", "黄网", "毛片", "色片", "成人视频", "成人电影", "成人网站", "黄色视频", "激情视频", "一夜情", "援交", "外围女",
    "裸照", "福利姬", "色图", "黄图", "涩图", "果聊", "学生贷", "校园贷",
    # Drugs sold as vapes (太空油 = etomidate e-liquid), added after heldout7.
    "太空油", "依托咪酯", "合成大麻", "上头电子烟", "上头烟弹",
)
# Other shops and channels: a commerce room does not voice their prices or send viewers there. A room
# selling on one of them lists it in `moderation.allow` (that word and its nicknames are then allowed).
# 天猫 is left out: a brand's own flagship store is usually there.
COMPETITORS: tuple[str, ...] = ("淘宝", "京东", "拼多多", "闲鱼", "1688", "抖店", "抖音小店", "快手小店", "唯品会", "苏宁易购",
                                "阿里巴巴批发",
                                # E-commerce and grocery apps whose names are no other word (added after heldout7;
                                # ambiguous ones — 转转, 美团, 快手, 大润发 — are places in a price frame below).
                                "淘特", "淘宝特价", "叮咚买菜", "多多买菜", "美团优选", "蘑菇街", "当当网", "考拉海购",
                                "网易严选", "得物app", "抖音商城", "天猫超市")
# Phrases with a listed word that are fine in every room (a carrier is not a shop: "发京东快递吗").
BUILTIN_ALLOW: tuple[str, ...] = ("京东快递", "京东物流", "京东配送", "京东快运", "废物利用", "狗屎运", "抠抠搜搜", "扣扣搜搜",
                                  "抠抠索索",
                                  # 去死 inside a word: exfoliating (去死皮), cleaning corners (去死角)
                                  "去死皮", "去死角", "去死细胞", "死磕",
                                  # a platform's payment or credit product is a way to pay here, not a shop (after heldout11)
                                  "京东白条", "京东支付", "京东金融", "京东e卡", "京东小金库", "淘宝先用后付", "拼多多先用后付",
                                  "多多支付", "抖音月付", "抖音支付", "美团月付", "美团支付", "唯品花", "苏宁任性付")
# A listed word in a context that makes it something else (word → regex over the dense text): 黄片 among tea
# leaves ("茶里有几片黄片", 黄片 = yellowed leaves) unless a sale/viewing cue is near.
CONTEXT_EXCUSES: dict[str, tuple[str, str]] = {
    "黄片": (r"茶|叶|[几一两些]片黄片|黄片(?:叶|子)", r"看|加|私|资源|网站|免费|分享|链接|群"),
}
GLOBAL_WORDS: tuple[str, ...] = INSULTS + ADS_AND_FRAUD + GAMBLING_DRUGS_SEX + COMPETITORS

# Platform-banned topics (political, separatist, extremist): patterns of their own module, see political.py.
from broadcaster.brain.political import POLITICAL_PATTERNS  # noqa: E402

# Phrases that only mean a listed word in use (a gap of a few characters allowed, "代开各种发票"): regexes
# over the dense text (letters and CJK only), each reported as its listed word.
PATTERNS: dict[str, str] = {
    "代开发票": r"代开.{0,4}发?票|(?:发票|票据).{0,2}代开",
    "网贷": r"(?:贷款|借款|口子).{0,6}(?:秒批|秒到|秒下|下款|黑户|白户|无视|不看征信)|黑户.{0,4}(?:可贷|能贷|贷款|下款|借)",
    "中奖诈骗": r"(?:恭喜|祝贺)(?:你|您)?(?:已|被)?(?:中奖|抽中|获得).{0,12}(?:联系|添加|加我|私信|私聊|客服|领取|点我|头像)"
               r"|中奖.{0,6}(?:联系客服|加客服|私聊|私信|加我|点我头像)",
    "免费领取": r"(?:免费|白)(?:领|送|拿).{0,10}(?:点我|看我|私我|私信我|加我|头像|主页)",
    "刷单": r"兼职.{0,6}日[赚入结]|日[赚入结].{0,2}(?:过|上)?[百千万]",
    "赌博": r"(?:娱乐|棋牌|体育|彩票|国际|官网|平台)(?:注册|开户|首充|首存|充值)(?:就|即)?送|注册(?:就|即)?送彩金",
    "闲鱼": r"(?:去|在|上|到|逛)咸鱼|咸鱼(?:上|搜|买|卖|有|店|同款|二手|更便宜|便宜|才|收|出|挂)",
    "京东": r"(?:去|在|上|到|逛)(?:jd|狗东|某东)|(?<![a-z])jd(?:上|搜|买|有|店|自营|同款|更便宜|便宜)|(?:狗东|某东)(?!西)",
    "看我头像": r"(?:看|点|戳|进|翻)(?:我|俺|一下我|下我)的?(?:头像|主页|签名|简介|资料|空间|动态|首页|个签)"
               r"|(?:看|点|戳|翻)(?:我|俺)的?(?:名字|昵称|网名|用户名|id)(?=.*(?:找我|私|加我|便宜|货源|批发|联系|拿货|优惠|同款|有惊喜|福利))"
               r"|(?:需要|要的|想要|有意|感兴趣|懂的)的?.{0,2}(?:看|点|戳|翻)(?:我的?)?(?:头像|主页|签名|简介|个签|名字|昵称|资料)"
               r"|(?<!主播)(?<!你)(?<!店)(?<!店铺)(?<!你的)(?:头像|签名|简介|个签|主页)(?:里|上)?有(?:联系|v|微|q|扣|惊喜|福利|货源|好货|卫星|飞机|企鹅|泡泡|电话|方式)"
               r"|(?:看|点|戳|进|翻)(?:一下|下)?(?:头像|主页|签名|简介)(?:领|拿|抢|送|有惊喜|有福利)",
    "加好友": r"加(?:个|一下|下|我|俺)?(?:好友|盆友)|(?<![a-z])dd我|(?:需要|要的|想要|有意).{0,3}(?:滴滴?|戳|私|撩)我",
    "黄片": r"看片.{0,3}(?:加|私|找|滴|戳)|(?:资源|片源).{0,3}(?:私我|加我|找我|滴我)",
    # (a question about stock, 叶子有货吗, is a tea leaf's: only a claim of stock is a sale cue)
    "大麻": r"叶子.{0,3}(?:有货(?![吗么嘛没])|到货(?!了?[吗么嘛没])|私我?|加我|找我|滴我|要的私)",
    "彩金": r"首[充存]送|充值送彩金",
    # Risky as words (their homophones are everyday: 实时采…), safe as exact phrases.
    "时时彩": r"菠菜.{0,4}(?:导师|计划|群|带单|回血|平台|网|官网|网址)|(?:娱乐|棋牌|彩票|博彩|赌场|体育|彩金).{0,4}(?:官网|网址)|时时彩|幸运飞艇|pk10|pk拾|彩票(?:平台|计划|导师|内部|群|网站?)",
    "刷单兼职": r"兼职.{0,4}(?:打字员?|点赞员?|刷|手机就能|在家)|点赞员|打字员|(?:在家|手机)(?:就能|也能|轻松)(?:赚|月入|日入)|"
              r"月入(?:过|上)?[万1-9]",
    "别家价格": r"(?:别家|隔壁|其他直播间|别的直播间|别人家|外面)(?:直播间|店|店铺)?(?:才|只要|只|就|卖)+\d",
    "私信": r"(?:需要|要的|想要|有意|感兴趣|了解)(?:的)?.{0,2}(?:私信|私聊|私我|滴滴|dd|戳我|加我)(?!主播|客服|店|官方|小助手)"
            r"|私信(?:我)?(?:领|拿|抢|送|免费|有惊喜|有福利)",
    # -- families (added after heldout6, by class): a vice/insult term only in the frame that makes it one.
    # Insult templates: an address (你/主播) + 是/个/像 + a word from the insult lexicon (emoji read as their
    # animal first: 你是🐶 → 你是狗), "长得像X", "像X一样", "脑子被…踢", "X主播".
    "侮辱": r"(?:你|主播|你们|这主播|观众|他|她|他们|她们|楼上|楼下|这人|那人)(?:就|真|简直|才|真的|就是)?(?:是|个|像)(?:个|只|条|头|一条|一只|一头)?"
            r"(?:大|死|臭|蠢|纯)?(?:INSULT_NOUNS)(?![肉粮年毛头蹄皮仔崽宝狗猪屋窝场圈排骨蛋饲血油饼])"
            r"|长得?(?:像|跟)(?:个|只|条|头)?(?:INSULT_NOUNS)|(?:像|跟)(?:个|只|条|头)?(?:INSULT_NOUNS)(?:一样|似的)"
            r"|脑子(?:被.{0,3}(?:踢|夹|挤|撞|门)|进水|瓦特|秀逗|有坑|有泡|有病)"
            r"|(?<![饿笑累热冷困气吓渴晒])死(?:骗子|奸商|胖子|肥猪|猪头|狗|鬼)|(?:骗子|智障|死胖子|LONG_NOUNS|(?<![a-z])(?:INSULT_INITIALS))主播"
            r"|(?:^|主播|你)(?:INSULT_NOUNS)*(?:LONG_NOUNS)一个$"  # an emoji then its word (主播🤡小丑一个 → 小丑小丑一个)
            # an animal that would not even touch it (狗都不喝你这破茶), the host's whole family as an insult noun
            r"|(?<![家的只条头])(?:狗|猪)都不(?:喝|吃|买|要|看|用|听|理|稀罕)|(?:主播|你)全家(?:都|人)?(?:是|都是)(?:INSULT_NOUNS)"
            # a face or a kind of person named by an animal (一张猪脸, 一看就是鸡), a curse on the host's family
            r"|(?:一张|长着?|长了|一副|这张|那张)(?:大|丑)?(?:猪|狗|驴|马|猴|鞋拔子|大饼)脸"
            r"|(?:你|主播)(?:一看就是|一看就|肯定是|分明是|明显是|本来就是)(?:个|只)?(?:鸡|INSULT_NOUNS)(?![肉蛋翅腿汤精毛排骨年])"
            r"|(?:草|操|艹|日|cao|死)(?:.{0,8})(?:主播|你)全家|(?:主播|你)全家(?:死|火葬|暴毙|升天|都死)"
            # numbers that are insults (二百五 = 250, 三八, 十三点) after an address, never a quantity
            # (after heldout11: any copula or "is it" — 你是不是二百五 —, a comparison, a vocative, s13 where 13 looks like B)
            # (the address may take its family: 你全家都是38)
            r"|(?:你|主播|你们|这主播|这人)(?:全家人?|一家人?|家里人|家人)?(?:就|真|简直|才|真的|就是|纯纯|纯|真是|妥妥的?|都|全)*"
            r"(?:是不是|怕不是|是|个|像个?|跟个|当)(?:个|一个)?"
            # (十三点 is also one p.m.: never before 开播, 到, 半 …)
            r"(?:250|二百五|2百5|三八|38|(?:十三点|13点)(?![开下到半前后左右整准过以多钟0-9一二三四五])|s13|sb13|二五仔)"
            r"(?![0-9十百克元块毫斤g点钟号度码岁节妇分的w万])"
            r"|(?:你|主播|你们|这主播)(?:真|简直|纯纯|纯|真是|就是|妥妥的?|太|都是|全是)*(?:二百五|2百5|s13|二五仔)(?![0-9十克元块g毫斤个件罐盒号米])"
            # 三八 right after an address is also 三八节, 三八线: only with an intensifier
            r"|(?:你|主播|你们|这主播)(?:真|简直|纯纯|纯|真是|就是|妥妥的?|太|都是|全是)+三八(?![0-9节线妇红女])"
            r"|(?:这个?|那个?)二百五(?![0-9十克元块g毫斤个件罐盒号米的])"
            r"|(?:像|跟)个?(?:二百五|2百5|250|十三点|s13)(?:一样|似的)|^(?:二百五|2百5)(?![0-9十克元块g毫斤个件罐盒号米])|(?:二百五|2百5|s13)主播"
            r"|(?:主播|你|你们)(?:家)?(?:无|没)(?:马|妈)(?!上)",
    # Betting: odds/stakes/real-money games/cash-out, never 打牌 or 斗地主 alone.
    "赌博盘口": r"外围.{0,6}(?:盘|下注|投注|私)|盘口.{0,6}(?:私|下注|投注|加我)|(?:私聊|私信|加我|找我|来)(?:下注|投注)|下注|投注"
              r"|赢真钱|真钱(?:斗地主|麻将|棋牌|捕鱼|游戏)|(?:斗地主|麻将|棋牌|捕鱼|德州).{0,6}(?:赢钱|提现|上分|下分)|上下分",
    # Drugs by slang: a vice word with a sale cue (出冰，懂的来), so 溜冰场 and 神仙水 (skin care) alone stay clean.
    "毒品暗语": r"(?:^冰(?![岛糖箱淇块镇红绿水泡棍沙激柜])|出冰|卖冰|溜冰|冰毒|笑气|神仙水|听话水|k粉|(?<!茶)叶子|g水|(?:^|出|卖|有|收)k(?![a-z0-9])|"
              r"烟弹|电子烟|烟油|上头|太空).{0,6}(?:懂的来|懂得来|懂的|懂得|同城|闪送|私我|私聊|有货(?![吗么嘛没])|出货(?![吗么嘛没])|当面|面交|货到付款|到付|上头|飘)"
              r"|(?:懂的来|懂得来|同城闪送).{0,6}(?:冰(?![岛糖箱淇块镇红绿水泡棍沙激柜])|笑气|神仙水|k粉|叶子)|出售.{0,8}(?:神仙水|笑气|冰毒|k粉|听话水|迷药)",
    # Loans: approval/limit/payout cues around a loan; a bad credit record "still gets a loan".
    "网贷诈骗": r"(?:秒批|免审|秒过|不查征信|无视征信).{0,10}(?:额度|到账|下款|放款|贷|借)|额度.{0,8}(?:当天|秒|马上|立即)(?:到账|下款|放款)"
              r"|征信.{0,6}(?:能贷|可贷|也能借|能借|可借|也能贷|下款|包过|秒批|能下)|(?:贷款?|借款?|下款).{0,6}包过|包过.{0,4}(?:贷|下款|借)",
    # -- families added after heldout7, by class.
    # Sex services: an out-call/same-city cue with a service word, either order (同城配送 stays clean).
    "色情服务": r"(?:上门|同城|小姐|妹子|学生妹|兼职妹|按摩|外卖小姐).{0,6}(?:全套|包夜|快餐|楼凤|特殊服务|大保健)"
              r"|(?:全套|包夜|快餐|楼凤|特殊服务|大保健).{0,6}(?:上门|同城|小姐|妹子)",
    # Task scams: paid likes/follows, per-order commissions, pulling viewers into a group.
    "任务诈骗": r"(?:点赞|关注|评论|刷单|做任务|浏览).{0,6}(?:返现|返佣|佣金|一单|提现)|返现.{0,8}(?:私|加|群|拉)"
              r"|一单[0-9一二两三四五六七八九十]+(?:元|块)|拉(?:你|人)?进?群|(?:日结|秒结).{0,4}(?:佣金|工资)",
    # Top-up fraud: platform currency sold below face value.
    "代充": r"代充|(?:低价|折扣|打折|内部)(?:代)?充值?(?:抖币|快币|q币|b币|点券|钻石|话费|会员)?"
            r"|(?:抖币|快币|q币|b币|点券|钻石|dou\+|游戏币).{0,6}(?:[一二三四五六七八九1-9]折|低价|便宜|代充|折扣)",
    # Account and card trading: buying, selling or renting bank cards, SIM cards, real-name accounts.
    "账号买卖": r"(?:收|收购|回收|高价收|出|出售|卖|买卖|租|出租|求购|代办|批量)(?:闲置|二手|实名|老|高权重|正规)*"
              r"(?:的)?(?:银行卡|电话卡|手机卡|对公账户|对公户|u盾|身份证|实名(?:认证)?(?:的)?(?:账号|帐号|号)|"
              r"(?:抖音|快手|微信|支付宝|qq|小红书|淘宝|闲鱼|b站|微博)(?:实名)?(?:号|账号|帐号))",
    # Phishing: a link or a prize with bank card/verification code/customer-service contact.
    "钓鱼诈骗": r"(?:点|戳)击?(?:链接|网址|下方链接|这个链接).{0,12}(?:银行卡|卡号|验证码|身份证|密码)"
              r"|(?:银行卡|卡号|验证码|密码)(?:号)?.{0,6}(?:领取|领奖|激活|解冻)"
              r"|(?:抽中|中奖|被选中|幸运观众|幸运粉丝).{0,16}(?:领取|添加客服|加客服|联系客服|银行卡|加我)|中奖通知",
    # Another seller's price or sending viewers elsewhere, whatever the brand: 去那边买, 别在这买, 同款只要…,
    # 比你家划算; a platform in a price frame is added per room (build_moderator: the room's own is left out).
    "别处购买": r"(?:去|到)(?:那边|他家|她家|别家|别处|别的地方|人家|官方店|旗舰店|隔壁|那家)(?:买|下单|拍)"
              r"|(?:别|不要|别再|不要再|千万别)在(?:这|这里|这儿|这边|直播间|你家|你这)(?:买|下单|拍)"
              r"|同款.{0,8}(?:只要|才要?|仅需?|便宜|更便宜|划算|实惠)|同款.{0,4}\d{2,}(?:元|块|rmb)?$"
              r"|(?<!没有)(?<!没)(?<!哪有)比(?:你家|你们家?|你|这里|这边|这儿|直播间|主播家?)的?.{0,2}(?:便宜|划算|实惠|良心|厚道|实在|靠谱|正宗|好喝)"
              r"|(?:找我|私我|私聊我)(?:拿|买|下单)?.{0,4}(?:便宜|更便宜|优惠|划算|低价|底价)"
              # any shop or brand: "去X买" with a comparison anywhere (去大润发超市买，便宜多了; X比这个好，去X买)
              r"|(?:去|到)(?!链接|小黄车|购物车|橱窗|直播间|店铺|购物袋|下面|下方|左下|右下|评论|哪|年|手)(?:(?![这你我])[^去到买]){2,8}?(?:买|下单|购买)"
              r"(?=.*(?:便宜|划算|实惠|更好|同款|一样|才\d|只要|半价|折|比(?:这|你|主播|直播间)))"
              r"|(?<=比)(?:这个|这款|你家|你们家?|这家|主播家?|直播间)的?(?:好|便宜|划算|实惠|正宗).{0,10}(?:去|到)[^去到]{2,8}买"
              r"|(?:隔壁|别家|其他家|别的直播间|其他直播间|人家)(?:直播间|店)?的?.{0,6}(?:更好|更便宜|更划算|更实惠|更正宗)"
              # "go over there" after an offer or a comparison (X直播间9.9秒杀，都去那边; Y的香多了，去他家)
              r"|(?:便宜|划算|实惠|香多了|好多了|好喝多了|更好|秒杀|买[一二三1-3]送|活动|半价|折|同价位).{0,12}"
              r"(?:快去|都去|赶紧去|去那边|去他家|去她家|去那家|去他们家)(?:买|下单|拍|看看|吧|啊)?$",
    # -- families added after heldout8, by class.
    # Pulling viewers off the platform without an app word: a QR code in the profile, "reply 1 and I'll pull you in",
    # "same name on X, search me", a search-engine pointer, a welfare/insider group.
    "引流": r"二维码.{0,6}(?:头像|主页|私|加|进群|简介)|(?:扫|扫一扫|扫码).{0,6}(?:进群|加群|加我)"
            r"|(?:我|俺)拉你(?![一1][把下])|拉你进|带你进群|(?:进|加|入)(?:福利|粉丝|内部|优惠|vip|会员|私密|秘密|交流)群"
            r"|(?:全网|各平台|全平台|小红书|抖音|快手|微博|b站|视频号|公众号|闲鱼|ins|推特|绿色软件|微信|vx|qq)同名(?![吗么呢])"
            r"|同名.{0,4}(?:搜|找我|关注|加)|搜我(?!们|的)|搜索我(?!们|的)"
            r"|(?:百度|谷歌|google|bing|必应|搜狗|360)(?:一下|搜索?)?.{2,14}(?:第一个|第一条)?(?:就是我|就能找到我|找到我)",
    # Sexual harassment of the host: a price for a night, clothes lower, a room.
    "性骚扰": r"(?:主播|你|小姐姐)(?:.{0,4})(?:多少钱一晚|一晚多少|包夜|陪睡|陪我睡|开个?房(?!间)|约不约|约吗|睡一晚)"
              r"|(?:衣服|领口|裙子|衣领)(?:再|能不能|可以)?(?:低|短|少|露)(?:一)?点|露(?:个|一下|点)?(?:胸|腿|沟)|脱(?:了|一件|衣服)",
    # More betting: lottery games, in-play odds, online poker tables, "sure wins".
    "赌博游戏": r"大小单双|(?:快三|快3)(?!点|天|个|年|月|周|十|百|千|万|分|小时|次|号|斤|罐|元|块)|包赢|稳赢|必赢|滚球|"
              r"(?:线上|网上|在线)(?:局|牌局|扑克|德州|百家)|dz扑克|德州扑克|(?:扑克|德州|牌局).{0,6}(?:缺人|带你)|老哥们?上车|"
              r"带你(?:赢|回血|上岸)",
    # Cash-out of credit lines, crypto "arbitrage", invoice points, refund scams, private-data lookups.
    "套现": r"(?:花呗|白条|借呗|信用卡|额度).{0,6}(?:回收|套现|提现|代还|变现|取现)",
    "币圈诈骗": r"(?:usdt|泰达币|比特币|btc|虚拟币|币圈|合约|搬砖).{0,8}(?:高收益|稳赚|日赚|带单|收益|回本|翻倍|躺赚|搬砖)",
    "发票诈骗": r"(?:开票|发票|票).{0,6}(?:点数|几个点|低点|点位)|点数低|各行各业都能开|能开各种票|(?:增值税|普票|专票).{0,4}(?:代开|点数)",
    "退款诈骗": r"(?:你|您)的订单(?:异常|有问题|出现问题|出错)|客服.{0,8}双倍|(?:添加|加)(?:平台|官方)?客服.{0,6}(?:退款|理赔|赔付)"
              # (after heldout12) a refund or claims "agent", or a refund that needs a bank card or a code; a question is none
              r"|(?:理赔|退款|赔付)专员|^(?!.*(?:吗|么|嘛|呢)$)(?=.*(?:退款|理赔|赔付|补偿|退货|赔偿))"
              r".*(?:核实|提供|输入|填写|告诉|报|发|绑定)(?:一下|下)?(?:你的|您的)?(?:银行卡|卡号|验证码|支付宝账号|身份证号)",
    "个人信息": r"(?<![检调审排抽核巡复])查(?:开房|定位|手机定位|户籍|身份证|通话记录|聊天记录|微信记录|行踪|住址|人)(?![员数])|(?:手机|定位)(?:查询|追踪|定位)",
    # Escort ads without out-call words; porn cues (好康的 = something good to watch).
    "色情": r"(?:同城|寂寞|空虚|少妇|人妻|学生妹|嫩模).{0,6}(?:陪聊|陪玩|陪睡|约|视频聊|私聊|上门(?!安装|维修|取|送|自提|测量|家教|辅导))"
            r"|(?:好康的|好康|资源|福利).{0,4}(?:进来|私|加|滴|看我)|进来.{0,4}(?:好康|福利|资源)",
    # Loans without approval words: urgent money with a payout, a payout the same day.
    "急用钱": r"急用钱.{0,10}(?:放款|下款|到账|借|贷)|当天放款|放款.{0,2}(?:快|秒|当天)",
    # Drug slang words that are everyday alone (邮票, 糖果, 蘑菇) with a party or high cue; 叶子 with 飞.
    "毒品聚会": r"(?:邮票|糖果|跳跳糖|蘑菇|小药丸|叶子|草(?![莓原地坪本药丛帽])).{0,6}(?:周末局|趴|派对|嗨|飞不飞|一起飞|要飞|飞吗|飞一下|飞一把|飞一飞)",
    # Casino brands in a name (澳门金沙官方): the place with a casino or "official".
    "澳门赌场": r"澳门.{0,4}(?:金沙|葡京|威尼斯人|赌场|娱乐|博彩|官方|官网|线上|首存)",
    # -- families added after heldout9, by class.
    # Threats and doxxing: "I know where you live", "wait for me after the stream", a host's real name/address
    # published (开盒 = doxxing; 开盒 alone is opening a tin, so only with a name, an address or a person).
    "威胁": r"知道你(?:住在?|家(?:在|住|地址)|的?(?:住址|地址|真名|身份证)|在哪(?:住|个小区))|"
            # (after heldout11) where the host lives, named or asked with a threat: 我知道你在丽水哪个小区, 你住X小区3栋对吧
            r"(?:知道|查到|找到|摸清|打听到|晓得)了?(?:你|主播|你们)(?:家)?(?:就)?(?:住在?|在).{0,8}?(?:哪个|那个|什么|哪|的)?(?:小区|号楼|单元|门牌|宿舍|公寓|楼栋)"
            r"|(?:知道|查到|找到|摸清|打听到|晓得)了?(?:你|主播|你们)(?:家)?的?(?:门牌号?|小区|住址|地址|楼号|单元|车牌号?|孩子(?:的)?学校|公司地址)"
            r"|(?:你|主播)(?:家)?(?:就)?(?:住在?|在).{1,8}(?:小区|花园|公寓|单元|号楼|栋)(?:.{0,6})(?:对吧|没错吧|是吧|我知道|我都知道|等着|别走|找你|大家|去堵|蹲|我去过|我见过|我路过)|(?:下播|下了播|出门|下班|放学)"
            r"(?:了|后|之后|以后)?(?:你)?(?:等着|给我等着|别跑|走着瞧|有你好看)(?!看|明天|下次|开播|回放)|走着瞧|有你好看的"
            r"|开盒.{0,12}(?:真名|住|身份证|电话|地址|家|单位|学校)|(?:开盒|人肉)(?:你|主播|他|她)"
            r"|(?:真名|身份证号?|电话|手机号|单位).{0,10}(?:住在?|家在|家住)[\u4e00-\u9fff]{1,6}(?:区|县|市|小区|街|路|村|镇|栋)"
            r"|(?:弄死|砍死|打死|捅死|整死)(?:你|主播)|找人(?:弄|打|收拾|砍|堵)(?:你|主播)",
    # Cantonese curses on the mother (丢/屌/diu + 你/雷/佢 + 老母/老味), any spelling.
    # X婊 (绿茶婊, 心机婊) and 婊砸; 婊 alone or 婊哥 (a typo of 表哥) are left alone.
    "婊": r"狗逼|碧池|(?:绿茶|心机|白莲|圣母|打工|小|死|臭|老|贱|骚)婊|婊砸|婊里婊气",
    "粤语脏话": r"食屎|(?:丢|屌|叼|diu|顶)(?:你|雷|累|佢|拎|nei|lei)?(?:老母|老味|老豆)|(?:丢|屌|叼|diu)(?:那|你)(?:星|妈)(?!妈)|(?:扑|仆)(?:街|gai)(?:仔|啦|咯)?$",
    # Debt-settlement scams: stopping interest, "negotiating" repayment for a fee, repairing a credit record.
    "债务诈骗": r"停息挂账|(?:逾期|欠款|网贷|信用卡|负债).{0,10}(?:协商还款|停息|挂账|延期还款|代协商|债务优化)"
              r"|(?:代|专业|帮你?|免费)协商(?:还款|分期|延期)|债务优化|征信修复|修复征信|洗白征信|征信洗白|(?:个人|征信)逾期.{0,4}(?:处理|消除)",
    # Porn collections: adult content as a collection, a cloud drive, "the most complete on the net".
    "色情资源": r"成人的?(?:资源|视频|网站|合集|片|内容|影片|电影)|(?:资源|片源)(?:合集|打包|网盘|云盘|度盘|全网最全)"
              r"|(?:资源|福利).{0,6}全网最全",
    # Drug slang that is an everyday word (冰糖, 糖果, 白粉, 猪肉) only with a sale cue and a delivery or wink cue;
    # party drugs with a bulk/night-club cue (笑气气球批发，KTV夜场专供).
    "毒品黑话": r"(?:冰糖|白粉|冰块|猪肉|邮票|糖果|叶子|麻古|果子|大叶|面粉|奶茶粉)(?:出|有货|到货|现货|出售|便宜出).{0,12}"
              r"(?:同城|可送|闪送|懂的|懂得|面交|当面|货到付款|私|配送|上门)"
              r"|(?:同城|懂的|懂得).{0,10}(?:冰糖|白粉|冰块|邮票|糖果|叶子|麻古)(?:出|有货|到货|现货)"
              r"|(?:笑气|神仙水|k粉|冰毒|听话水|迷药|g水|依托咪酯|rush|rush poppers|poppers)(?:气球|弹|瓶)?.{0,6}"
              r"(?:批发|专供|夜场|ktv|酒吧|蹦迪|现货|大量|出售|代购|包邮)",
    # Counterfeits for sale: 高仿/精仿/A货/复刻/原单 with a sale cue or a luxury item (a viewer asking "是不是高仿的"
    # is a question, not an offer).
    "假货": r"(?:出售|出|卖|批发|代购|货源|渠道|私|找我|各种|专做|一手)(?:各种|各类|大牌)?.{0,4}(?:高仿|精仿|a货|超a|复刻|原单)"
            r"|(?:高仿|精仿|a货|超a|复刻|原单)(?:的)?.{0,6}(?:出售|批发|私|找我|一比一|1比1|货源|微信|加我|名表|名包|包包|手表|"
            r"奢侈品|大牌|lv|gucci|劳力士|鞋子|球鞋|名牌)|(?:一比一|1比1)(?:复刻|高仿|原单|还原|做工)",
    # Circumventing the firewall: VPN "airports", nodes, "scientific internet access", ladders for sale.
    "翻墙": r"科学上网|翻墙|(?<![a-z])vpn(?![a-z])|机场节点|节点.{0,4}(?:机场|订阅|包月|稳定|便宜)|(?:机场|节点)(?:订阅|包月|月付|年付|一个月)"
            r"|梯子.{0,6}(?:出|卖|私|一个月|包月|稳定|便宜|好用|节点)|(?<![a-z])(?:ssr|v2ray|clash|shadowsocks)(?![a-z])|外网加速",
    # Weapons: air guns, crossbows, "dog food" (pellets) and knives with a sale cue.
    "枪支": r"(?:气枪|气狗|猎枪|钢珠枪|仿真枪|手枪|枪支|弓弩|管制刀具|铅弹|弹弓枪)(?:和|跟|、)?.{0,6}"
            r"(?:都有|出售|出|卖|有货|私|懂的|懂得|配件|批发|货到付款|包邮|现货)"
            r"|(?:出售|出|卖|批发)(?:各种)?(?:气枪|气狗|猎枪|钢珠枪|仿真枪|手枪|枪支|弓弩|管制刀具|铅弹)",
    # Gambling rebates (返水 = a bookmaker's cash-back), in a comment or a user name.
    "赌博返水": r"(?:菠菜|bc|博彩|体育|真人|电子|棋牌|彩票|娱乐)(?:返水|反水|返点)|(?:返水|反水)(?:\d|[一二三四五六七八九]|百分|高|无上限|秒到|日结)",
    # Smuggled or duty-free tobacco and liquor for sale.
    "走私烟酒": r"(?:免税|走私|水货|出口转内销)(?:的)?(?:香?烟|酒|茅台|雪茄)|(?:外烟|私烟)(?:的)?.{0,4}(?:货源|批发|一手|便宜|出|私)",
    # Self-promotion: follow-for-follow.
    "互粉": r"互粉|互关|互赞|互fo|求互|必回关|秒回关|关注我.{0,6}(?:必回|回关|回粉|互)",
    # Selling competitor places: wholesale markets, the farm, a factory price quoted against this room.
    "市场价格": r"(?<!直播间)(?:市场(?!价)|茶城|茶市|批发|产地|厂家|工厂|厂里|茶农)(?:批发|拿货|进货|直供|出厂)?价?(?:才|只要|只卖|仅需?|就)"
              r"(?:\d{2,}|[0-9一二两三四五六七八九十几百]+(?:元|块|毛|一斤|一罐|一盒|一两)|[二三四五六七八九]?十[一二三四五六七八九]?)",
    "1688": r"(?<![0-9¥$.])1688(?![0-9.]|元|块|rmb|号|米|克|毫升|ml|g|k|w|人|个|件|万|千|百|年|分|次|天|罐)",
    # -- families added after heldout10, by class (each a frame, not a phrase: a harm verb with a target or a
    # threat marker, a body word with a look/touch or size cue, a service or goods class with a sale cue).
    # Threats in plain words: a threat marker (等着, 迟早, 信不信) then a harm verb; going to the host's home, shop or
    # warehouse to do harm; harm done to what is theirs; "don't let me run into you".
    "恐吓": r"(?:等着|等着瞧|迟早|早晚|总有一天|信不信我?|看我不|小心我|有种)(?:被|我|我就|让人|找人|叫人)?.{0,6}?"
            r"(?:砸(?!到脚|脚|碎|价|到底|下来|穿|钱)|泼(?!水|茶|冷)|烧(?!水|开|坏|钱|香|菜)|弄死|收拾你|砍|捅|揍|打死|打残|堵你|堵主播|报复|废了|开瓢|挨揍|挨打)"
            r"|(?:去|到|上|找到|杀到)(?:你|你们|主播)(?:家|店|仓库|公司|门口|店门口|家门口|楼下|单位|厂|工厂)(?:里|门口)?.{0,6}"
            r"(?:泼|砸|堵|闹(?!钟)|拉横幅|扔砖|放火|点火|烧)"
            r"|泼(?:你|主播|他|她)?(?:一身|一脸)?(?:油漆|红油漆|红漆|粪|大粪|硫酸|汽油|狗血)"
            r"|(?:砸|烧|炸|拆|掀|封)了?(?:你|你们|主播)(?:的|家)?(?:店|家|仓库|直播间|摊子?|公司|车|场子|门店|窗户?)"
            r"|(?:别让我|别被我|要是让我|要是被我|哪天让我|哪天被我|让我逮)(?:在.{0,6})?(?:碰到|碰见|遇到|遇见|撞见|逮到|逮着|抓到|堵到)"
            r"(?:你|主播|你们|$)"
            r"|把(?:你|你们|主播)(?:的|家)?(?:店|家|仓库|直播间|摊子?|公司|车|场子|门店|窗户?|腿|头|手)(?:给)?(?:砸|烧|炸|拆|掀|打断|卸)"
            r"|小心(?:你的)?(?:狗命|小命|狗头)|(?:弄死|砍死|打死|捅死|整死|搞死|揍死|做掉|干掉|灭了|撕了)(?:你|主播|你们|你全家|这主播)"
            r"|(?:撞|压|砸|毒|淹|烧|掐|勒)死(?:你|主播|你们|你全家)|约架|出来单挑|线下单挑",
    # Doxxing in plain words: searching a person (人肉/开盒/起底 + a person), "where you live, I know", what
    # identifies the host "I already have", exposing it.
    "人肉": r"(?:人肉|开盒|起底)(?:到|出|搜索|一下|了)*(?:你|主播|你们|他|她)"
            r"|(?:你|主播|你们)(?:的?家(?:住在?|在)?|住在?)(?:哪|哪个|哪里|哪儿|什么)(?:个)?(?:小区|楼|单元|街道?|路|区|村|门牌)?.{0,8}?"
            r"(?:我|都|早就|已经)(?:都|早就|已经|全)?(?:知道|查到|清楚|摸清|门儿清)"
            r"|(?:你|主播)(?:的)?(?:真名|身份证号?|手机号|电话号码?|家庭住址|住址|车牌号?|单位|孩子.{0,4}学校)(?:我)?"
            r"(?:都|早就|已经|全)(?:知道|查到|有了|拿到|掌握|发出来|曝光|发到?(?:群|网上)|挂到?(?:群|网上)|贴到?(?:群|网上))"
            r"|(?:曝光|公开|挂出|发出)(?:你|主播)(?:的)?(?:住址|地址|真名|身份证|电话|手机号|家人|照片|户籍)",
    # Appearance and intelligence insults: 长这样还出来…, 照照镜子, the host's face/body called ugly, an IQ "overdrawn",
    # a host's brain "broken" (an address first: 我脑子坏了 is self-mockery).
    # (the body named too: 胖成这样还喝…, 丑成这样也敢…)
    "人身攻击": r"(?:长|胖|丑|矮|肥|秃)(?:成)?(?:这样|这个样|这副德行|这德行|这逼样|这鬼样|这熊样)(?:子)?(?:了)?(?:还|也|就|都)"
               r"(?:好意思|敢|出来|直播|带货|上镜|露脸|开播|卖|播|喝|吃|穿|涂|用|买)"
              r"|(?:这|那|就这|你这|就你这)(?:长相|模样|颜值|德行|尊容|副嘴脸|张脸)(?:也|还|都)(?:敢|好意思|出来|直播|带货|上镜|露脸|开播)"
              r"|(?:胖|肥|丑|蠢|笨)得?(?:像|跟|和)(?:个|只|头|条)?(?:猪|狗|驴|猩猩|猴子|蛤蟆|熊|狗熊|河马)"
              r"|脑子是个好东西|忘(?:了)?带脑子|脑子(?:忘|落)(?:了)?(?:在)?家"
              r"|(?:回家|先|去|也不|不|还不|自己|赶紧)(?:好好)?照(?:照|一下|下)?镜子|撒泡尿照照|也不照照|照照镜子"
              r"|(?:你|主播|你们)(?:长得?|这张脸|这脸|这模样|这长相)(?:真|太|好|也太|这么|那么|可真|贼|巨)?"
              r"(?:丑|难看|磕碜|寒碜|恶心|猥琐|油腻|肥|胖成猪)"
              r"|丑八怪|丑逼|歪瓜裂枣|猪头脸|大饼脸|死肥宅|矮冬瓜"
              r"|智商(?:欠费|感人|堪忧|余额不足|为零|是零|为负|是负|负数|不在线|下线|掉线|捉急|低下|被狗吃|喂狗)"
              r"|(?:你|主播|你们)(?:的)?智商(?:有问题|不够|低|是硬伤|堪忧)"
              r"|(?:你|主播|侬|你们|这人)(?:的)?(?:脑子|脑袋|脑壳)(?:是不是)?(?:坏掉|坏了|有问题|不好使|不灵光|生锈|被门夹|短路|有屎|抽了)"
              r"|(?:你|主播|你们)(?:真|就是|根本|是不是|怕不是|肯定)?没(?:长)?脑子"
              # an insult noun told to go away (肥猪滚下去), the host told to get lost
              r"|^(?=.*(?:滚|闭嘴|下播|去死|别播)).*?(?:INSULT_NOUNS)(?:赶紧|快|快点|给我|就|还不)?(?:滚(?!动|烫|筒|轮|圆|水|开)|闭嘴|下播|去死|别播)"
              r"|(?:你|主播|你们)(?:赶紧|快|快点|给我|还不|麻溜)(?:滚(?!动|烫|筒|轮|圆|水|开)|爬(?!山|楼|上|起|坡))"
              r"|滚出(?:去|直播间|我的直播间)|滚(?:吧你|远点|远一点|粗|犊子)",
    # Death wishes and curses: "why aren't you dead yet", the host told to die, a shop wished bankrupt.
    "诅咒": r"(?<![花草树苗虫蚊蟑])(?:怎么|咋|为什么|为啥|咋个)还(?:没|不)(?:死|去死|暴毙)(?!心)"
            # (after heldout11) funeral rites for the living host: 给主播上香/烧纸, 主播头七, 一路走好, 🕯🕯 (read as 蜡烛) at them
            r"|(?:给|为|替|帮)(?:主播|你|你们|你全家|你家|这主播)(?:提前|先|早点)?(?:上(?:一?[柱炷])?香|上坟|烧(?:点|些|个)?(?:纸钱?|香|冥币|元宝|纸人)"
            r"|送终|扫墓|送花圈|办后事|办丧事|收尸|守灵|哭丧|立碑|刻碑|超度)|吃(?:你|主播)的?席"
            r"|提前(?:给|为|替)?.{0,4}(?:上香|烧纸|送终|办后事|扫墓|送花圈)|(?:早日|早点|赶紧|快点|提前)(?:头七|出殡|下葬|火化|入土)|坟头(?:蹦迪|跳舞|撒尿|拉屎|草)"
            r"|(?:主播|你|你们)(?:的)?(?:头七(?![天个次年月])|遗照|遗像|忌日|坟头|骨灰盒?|灵堂|牌位|墓碑|追悼会|花圈|棺材|寿衣)"
            r"|(?:主播|你|你们)一路走好|一路走好(?:主播|你)|(?:^|主播|你)(?:安息|rip)(?:吧|了)?$|^(?:rip|安息吧?)(?:主播|你)"
            r"|(?:蜡烛|棺材|墓碑){2,}.{0,10}(?:主播|你)|(?:主播|你).{0,10}(?:蜡烛|棺材|墓碑){2,}"
            r"|(?:你|主播|你们)(?:怎么|咋|赶紧|快|快点|早点|还不|怎么不|咋不|最好)(?:去)?死(?!心)"
            r"|(?:早点|赶紧|快点|快去)死(?:吧|去)|不得好死|断子绝孙|生孩子没屁眼|全家暴毙|(?:出门|走路|开车|下播)(?:就)?被车撞|被车撞死|早死早超生"
            r"|祝你.{0,6}(?:死|暴毙|倒闭|破产|车祸|得癌|生病)|遭报应|天打雷劈|被雷劈|遭天谴"
            r"|(?:坐等|祝|希望|盼着|等着)(?:你|你们|主播)(?:家|店|的店|家店|这店)?(?:早日|赶紧|早点|快点|快)?"
            r"(?:倒闭|破产|关门|封号|被封|凉凉|暴雷|跑路)",
    # Sexual harassment: a sexual body word of the host with a size/look cue, asking to see or touch it, a price for
    # a night (not a hotel's).
    "调戏": r"(?:主播|你|小姐姐|美女|妹妹|姐姐)(?:的)?(?:胸|奶子?|咪咪|乳房?|屁股|臀|下面|内衣|内裤|丝袜|罩杯)"
               r"(?!前|口|针|牌|章|怀|襟|部|肌|闷|痛|疼|围|卡|贴|花)(?:真|挺|好|这么|那么|很|太|也太|贼|巨)?"
               r"(?:大|翘|白|骚|软|弹|性感|诱人|够味|几杯|[a-g]杯|[a-g]罩杯|cup)"
               r"|(?:给我|让我|想|要)(?:看看|看一下|看下|瞧瞧|摸摸|摸一下|摸|揉|舔|亲)(?:你|主播)?(?:的)?"
               r"(?:胸|奶|咪咪|屁股|大腿|腿|下面|内衣|内裤|身子|身体)"
               r"|(?:摸|揉|舔|捏|亲)(?:一下|下|一把|摸|一口)?(?:你|主播)(?:的)?(?:胸|奶|屁股|腿|脸|嘴|小手)"
               r"|(?:胸|奶子?|咪咪|屁股)(?!前|口|针|牌|章|怀|襟|部|肌|闷|痛|疼|围|卡|贴|花).{0,8}"
               r"(?:给我看|让我看|露一下|露出来|摸一下|开摄像头|开个摄像头|开视频)"
               r"|(?<!酒店)(?<!民宿)(?<!宾馆)(?<!房间)(?<!住宿)(?<!客栈)(?:多少钱一晚|一晚多少钱?|一夜多少钱?|包夜多少|过夜多少"
               r"|陪一晚|陪我一晚|睡一晚|约一晚|一晚几百|一炮多少)"
               r"|(?:主播|你|小姐姐)(?:真|好|太|很|这么|贼|有点)?(?:骚|风骚|浪(?!费|漫|潮|花|子|头))(?!扰|动|乱|气|操作|话|味)"
               r"|约(?:吗|不约|一下|一晚|个炮)(?:主播|美女|小姐姐|妹妹)|(?:想|要)(?:跟|和)(?:主播|你)(?:一起)?(?:睡觉|睡一觉|上床|开房|过夜)",
    # Paid companionship and escorts without an app or a channel: 有偿 + a service, a companion service with a wink or
    # a reach, 外围 with a kind or a reach, "flies anywhere in the country".
    "有偿服务": r"有偿(?:陪|聊|约|服务|视频|照片|私房|代|刷|提供|出)"
              r"|(?:陪聊|陪玩|陪睡|陪酒|伴游|陪游)(?:.{0,8})(?:懂的|懂得|私|加我|找我|滴|全国|同城|价格|按小时|一小时|包月|可约|可视频)"
              r"|(?:同城|全国|高端|寂寞|深夜|付费)(?:陪聊|陪玩|伴游|陪睡|陪酒)"
              r"|外围(?:女|模特?|学生|妹|资源|可约|可飞|上门|全国|高端|空姐|网红)|高端(?:外围|伴游|商务模特|会所|私人订制|桑拿)"
              r"|(?:全国|同城|本地|当地)(?:可飞|空降|可约|可上门(?!安装|维修|取|送|自提|服务|测量|家教|辅导)|包机票|都能飞)"
              r"|(?:可飞|空降)(?:全国|各地)"
              r"|(?:学生妹?|女大|大学生|少妇|人妻|嫩模|妹子|小姐姐|模特)(?:兼职)?.{0,6}(?:可上门(?!安装|维修|家教|辅导|取|送)|上门服务|可约|可过夜|包夜|可空降)",
    # Worn clothes and porn "welfare" videos sold to viewers.
    "色情物品": r"原味(?:丝袜|袜子|内衣|内裤|衣物|胖次|私物|衣服)|(?:出|卖|出售|二手)(?:穿过的)?(?:丝袜|内衣|内裤|胖次|私物)"
              r"|穿过的(?:丝袜|内衣|内裤|袜子)|福利(?:姬|网站?|app)"
              # "welfare videos" with a way to get them (福利视频什么时候发 asks about the room's giveaway)
              r"|福利(?:视频|图|片|资源)(?:.{0,6})(?:私|加我|扫码|找我|滴|进群|网盘|合集|免费看|看我)"
              r"|(?:扫码|扫一扫|点链接|点我|进群|加我)(?:.{0,4})(?:看|领)(?:福利|美女|资源|好康|片|小视频|私密)"
              r"|(?:寂寞|空虚|无聊)(?:了吗|吗|了)?.{0,6}(?:扫码|看片|福利|私我|加我|进来看)",
    # Loans offered: loan "channels" (口子), low interest or no collateral with a loan word, "need money? ask me".
    "贷款广告": r"新口子|下款口子|^(?=.*(?:钱|贷|借|利息|下款|额度|急用|征信|放款|到账|黑户))"
              r".*口子(?:.{0,6})(?:多|有|私|找我|加我|下款|秒|稳|通过率)"
              r"|(?:低息|低利息|利息低|无抵押|免抵押|零抵押|无担保|不看征信|黑户|白户)(?:.{0,8})(?:贷|借|下款|放款|口子|额度|找我|私|到账)"
              r"|代办(?:大额)?(?:信用卡|贷款|学历|驾照|证件)|(?:高额|大额|黑户)信用卡(?:.{0,6})(?:办|下卡|包过|私|找我)"
              r"|(?:出售|代办|办理|包办|专办)(?:各类|各种)?(?:证件|毕业证|学历证?|驾照|身份证|资格证|假证)"
              r"|(?:借钱|贷款|周转|急用钱|缺钱|要用钱)(?:.{0,4})(?:找我|私我|私聊|加我|滴我|联系我)(?!妈|爸)"
              r"|(?:急用钱|缺钱|周转不开)(?:.{0,10})(?:口子|利息|下款|放款|额度)",
    # Party drugs without a listed name: an inherently suspect pill, or an everyday word with a party cue, and a
    # delivery or wink cue (蘑菇有货吗 in a grocery room has neither a party cue nor a suspect word).
    "毒品配送": r"(?:小药丸|嗨药|助兴药|上头药|聪明药|快乐粉|开心水|快乐水|神仙粉|蓝精灵|g点液|失身水)(?:.{0,6})"
              r"(?:同城|可送|配送|包邮|发货|有货|到货|现货|私|懂的|懂得|面交|闪送|秒发)"
              r"|^(?=.*(?:蹦迪|夜店|ktv|酒吧|派对|趴体|嗨|high|一起飞|上头|助兴))"
              r".*(?:药丸|糖果|邮票|蘑菇|叶子|粉|水|烟)(?:.{0,6})(?:同城发|同城送|同城闪送|闪送|可送|配送|有货|到货|现货|私我|懂的|懂得|面交)",
    # Accounts and followers for sale: an account kind with a sale verb, "10k-follower account", a shop window.
    "账号交易": r"(?:出售|低价出|便宜出|批量出|长期出|大量出|转让|收购|高价收|回收|求购|出租)(?:.{0,8})"
              r"(?:老号|白号|粉丝号|橱窗号|直播号|小号|[0-9万千百w]+粉|账号|帐号|实名号)"
              r"|(?:卖|出)(?=[0-9一二三四五六七八九十百千万w]+粉)"
              r"|[0-9一二三四五六七八九十百千万w]+粉(?:老)?(?:抖音|快手|小红书|微博|b站|视频号|qq|微信)?(?:老)?(?:号|账号|帐号)"
              r"|(?:带|开通了?)橱窗(?:的)?(?:号|账号|帐号)"
              r"|(?:买粉|刷粉|涨粉|卖粉|刷量|刷播放|刷赞)(?:.{0,6})(?:私|找我|加我|便宜|[0-9一二三四五六七八九十百千万]+(?:个|元|块))",
    # Investment scams: a "teacher" leading trades, a return doubled in days, trading crypto/forex as a pitch.
    "投资诈骗": r"炒币|炒外汇|外汇平台|荐股|牛股推荐|内幕消息.{0,6}(?:私|带|加我|稳赚|必中|包赚)|稳赚不亏|保本保息|高收益理财"
              r"|(?:老师|导师|大师|带你|带大家|跟我|跟着我|跟单)(?:.{0,4})(?:炒股|炒币|炒外汇|投资|理财|赚钱|搞钱|翻倍|上车|回本|赚大钱)"
              r"|(?:数字货币|虚拟货币|期货|外汇|理财|投资)(?:.{0,8})(?:翻倍|稳赚|保本|高收益|日赚|月赚|带单)"
              r"|^(?=.*(?:收益|赚|投资|项目|回报|本金|带你|老师|导师|私|找我|币|股|理财))"
              r".*(?:一周|一个月|一天|[0-9一二三四五六七八九十几]+(?:天|周|个月))(?:就|能|可以|稳|保证)?(?:翻倍|翻番|翻一番)",
    # Another seller's price without a brand: a place that sells (a wholesale market, a factory, a tea farm, a counter)
    # then a price, and a price with "ask me" (一斤才三十，要的找我).
    "别处价格": r"(?<!直播间)(?:市场(?!价)|产区|原产地|茶城|茶市|批发市场|菜市场|早市|集市|地摊|路边摊|厂家|工厂|厂里|茶厂|茶场|茶园|茶农|农户|专柜|"
              r"门店|实体店|线下店)(?!价)[^价]{0,6}?"
              r"(?:(?:才|只要|只卖|仅需?|就|卖|批发|零售|拿货)?(?:\d{2,}|[0-9一二两三四五六七八九十几百]+)(?:元|块|毛)(?!钱?的)"
              r"|(?:一斤|一罐|一盒|一两|一包)(?:才|只要|就|只卖|卖)(?:\d{2,}|[一二三四五六七八九十几百]+)|\d{2,}就有"
              r"|(?:才|只要|只卖|仅需?)(?:\d{2,}|[0-9一二两三四五六七八九十几百]+)(?:一斤|一罐|一盒|一两|斤|罐|盒)"
              r"|卖.{0,3}?(?:\d{2,}|[0-9一二两三四五六七八九十几百]+)(?:一斤|一罐|一盒|一两|1斤|1罐|1盒|1两))"
              r"|(?:(?:\d{2,}|[0-9一二两三四五六七八九十几百]+)(?:元|块)|(?:才|只要|只卖|仅需?)(?:\d{2,}|[一二三四五六七八九十几百]+))"
              r".{0,10}(?<!问题)(?<!售后)(?<!有事)(?:要的|需要的|想要的)?(?:找我|私我|滴我|加我|私聊我|私信我)(?!妈|爸|老公|老婆|家人|朋友|同事|们)"
              r"|(?:出厂价|批发价|拿货价|进货价|成本价|底价|内部价)(?:才|只要|就|是)?(?:\d{2,}|[一二三四五六七八九十几百]+)"
              r".{0,10}(?:私|找我|加我|滴我|要的|需要的)(?!妈|爸|老公|老婆|家人|朋友|同事|们)",
    # Contact hints without an app or an id: "follow my X account, same name", "my name is the contact", "see my
    # signature", "V me 50" (a transfer), "add a contact, I'll send it privately for less".
    "联系暗示": r"关注我(?:的)?(?:抖音|快手|小红书|微博|b站|视频号|公众号|红书|斗音|围脖)|(?:抖音|快手|小红书|微博|b站|视频号|公众号)号同名"
              r"|(?:名字|昵称|网名|用户名|头像|签名)(?:就是|就|即|里有|上有|是)(?:联系方式|v|微信|vx|wx|扣扣|q号|号码|联系)"
              r"|^(?:看|点|戳)(?:一下|下)?(?:签名|个签)|(?<![a-z])v(?:我|俺)(?:\d{2,}|\d(?:块|元)|[一二三四五六七八九十百]{2,})"
              r"|加(?:个|一下|下|我)?联系方式|私发(?:你|给你)"
              r"|(?:我|俺)(?:的)?(?:抖音|快手|小红书|微博|b站|视频号|公众号|闲鱼|淘宝|微店|红书|围脖)(?:号|店|主页)?(?:上|里)?有"
              r"(?:链接|联系方式|货|店|优惠|同款|惊喜|福利)"
              r"|(?:联系|电话|手机|微信|v|vx|联系方式|号码)(?:方式|号码|号)?(?:在|见|看)(?:我的?)?(?:主页|简介|签名|头像|资料|置顶|评论区)",
    # Another seller's promotion or "this money buys more there", and a shop kind's price (线下茶叶店才卖五十).
    "别处优惠": r"(?:隔壁|别家|他家|网上|其他直播间|别的直播间)(?:直播间|店)?.{0,8}(?:买[一二三1-3]送|半价|打折|[一二三四五六七八九]折|秒杀)"
              r"(?!.*[吗么嘛呢])"  # a question (网上打折的是正品吗) is not a claim
              r"|(?:这个价|这价格?|这个价格|这钱|这些钱|同样的钱|同样价格)(?:在|去|到)?(?:外面|别家|网上|超市|别处|其他地方|别的地方|隔壁|市场"
              # platform nicknames (after heldout12: 这价格在多多上能买三罐)
              r"|多多|某多多?|拼夕夕|并夕夕|pdd|拼多多|淘宝|某宝|tb|京东|某东|jd|闲鱼|咸鱼|某鱼)(?:上|里)?"
              r"(?:都|能|可以|够)+买(?:[两三四五2-5]|好几)"
              r"|(?:茶叶店|茶店|茶庄|实体店|线下店|线下|网店|平台|网上|外卖|菜场)(?:里|上)?(?:才|只要|只|就|仅)(?:卖|要|售)?"
              r"(?:\d{2,}|[一二三四五六七八九十几百]+)(?!罐|盒|件|个|单|年|天|人|份|次)",
    # Gambling credit ("up/down points"), escorts and drug-sex slang, paid-task scams, invoices, ghost-writing and
    # exam answers, personal data for sale.
    "上下分": r"上分.{0,2}下分|下分.{0,2}上分|(?:上分|下分)(?:找我|私|加我|秒到|秒下|微信|qq)"
             r"|(?:足彩|竞彩|体彩|彩票|六合|时时彩|球赛|赛事)(?:.{0,6})(?:推荐|稳赚|必中|包中|带单|内部|计划|回血|跟单)",
    # Game boosting, ticket scalping, fake cigarettes and liquor: goods and services no shop here sells.
    "黑产代办": r"代练.{0,6}(?:上分|包上|找我|私|接单|便宜|价格)|(?:接|找我)代练|代打上分|包上(?:王者|星耀|钻石|荣耀)|黄牛票|代拍(?:门票|演唱会|球票|车票)|代抢(?:门票|票|演唱会|车票)"
              r"|(?:门票|演唱会票|球票)(?:.{0,6})(?:高价出|代抢|代拍)"
              r"|假(?:烟|酒|茅台|五粮液|中华)(?:.{0,6})(?:出|卖|货源|批发|一手|私)|(?:出|卖|批发)(?:各种)?假(?:烟|酒|茅台)",
    # Loans by speed or collateral.
    "贷款速度": r"(?:借款|借钱|贷款|额度|下款)(?:.{0,8})(?:[0-9一二三四五六七八九十几]+分钟|秒|当天|马上|立即)(?:到账|放款|下款|拿钱)"
              r"|抵押(?:贷|借)|(?:贷款|借款|借钱).{0,6}当天(?:拿钱|放款|到账)|当天拿钱",
    # Pinduoduo's "cut a slice" share scheme (a competitor's promotion; a room selling there allows 拼多多).
    "拼多多": r"砍一刀|帮(?:我|忙)砍(?:一刀|价)",
    # The viewer selling the same thing: "buy at mine", "I have the same, cheaper", "same tea, I sell it for 60", "my family's
    # tea garden ships direct", "come to my page/moments/shop window".
    # Answers pass the same moderator: the anchor says "我们家茶园直发", "来我直播间", "在直播间买", so these frames are the
    # ones a shop does not say about itself (我家 not 我们家, a personal feed, a cheaper-than-here cue).
    "自卖": r"^(?=.*(?:便宜|私|找我|少[0-9一二三四五六七八九十几]|划算|半价|[0-9一二三四五六七八九]折))"
            r".*(?:在|来|到|找)(?:我|俺)(?:这|这里|这儿|家|店|店里)(?:买|拿|下单|订)"
            r"|^(?=.*(?:便宜|私|找我|[0-9一二三四五六七八九十]+(?:块|元)|价|半|少))"
            r".*(?:我|俺)(?:这|这里|这儿|家|店)(?:也)?有(?:一样|同样|同款|一模一样|更好|更便宜)"
            r"|(?:同样|一样|同款)的?(?:茶|货|杯子|东西)?(?:我|俺)(?:这)?(?:卖|只卖|才卖|只要|出)"
            r"|(?<![们])(?:我|俺)(?:家|自家)(?:的)?(?:茶园|茶厂|茶山|工厂|厂|店|茶场)(?:直发|直供|直销|自产|出货|卖|批发)"
            r"|(?:来|去|看|进|逛)(?:一下|下)?我(?:的)?(?:朋友圈|空间|动态)(?!的)"
            r"|私信(?!客服|主播|官方).{0,8}自动回复(?!吗)",
    "色情暗语": r"找小姐(?!姐)|小姐(?:上门|服务|全套|包夜)|冰妹|来我(?:的)?(?:房间|被窝|床上)"
              r"|(?:晚上|今晚|半夜)(?:来|去)(?:我|你)(?:的)?(?:房间|被窝|床上)"
              # dressing sexier (穿少点别感冒 is care: only 透/性感/暴露)
              r"|(?:主播|你|小姐姐)(?:下次|明天|能不能|可以|再)?穿(?:得)?(?:透|性感|暴露|骚)(?:点|一点|些)"
              r"|亲(?:一个|一下|个|我一下)(?:嘛|吧|呗)?(?:主播|美女|小姐姐)|(?:主播|美女|小姐姐)亲(?:一个|一下|个)(?:嘛|吧|呗)?$"
              r"|(?:腰|腿|胸|屁股|身材|嘴).{0,6}(?:想|好想|让我)(?:抱|搂|亲|摸|舔|睡)|(?:想|好想)(?:抱|搂|亲|摸|睡)(?:你|主播)"
              r"|(?:衣服|裙子|上衣|裙摆)(?:撩|掀|拉|脱)(?:起来|上去|下来|开)|(?:晚上|今晚)(?:和我|跟我)?一起睡(?!前|不着)|陪我睡"
              r"|(?:给我|让我)舔|舔(?:你|主播)(?:的)?(?:脚|腿|胸|嘴|脸)|(?:脚|腿|丝袜).{0,6}舔"
              r"|(?:有|提供)特殊服务(?!要求|吗)|特殊服务.{0,4}(?:懂的|懂得|私|上门|找我|加我)|全套服务.{0,4}(?:懂的|私|上门|找我)|大保健|迷奸|(?:催情|迷情|失身)(?:水|药|粉|香)"
              r"|(?<![a-z])(?:a片|av(?:网站|资源|女优)|h片)|三级片",
    "兼职诈骗": r"(?:点赞|关注|评论|做任务|浏览|看视频|打字|手工|刷视频)(?:.{0,4})(?:赚钱|日结|挣钱|有钱拿|月入|日入|赚零花钱)",
    "代写代考": r"代写(?:论文|作业|毕业|文章|报告|简历)|代做(?:作业|毕设|论文)|论文(?:代写|包过|降重)"
              r"|(?:考试|四六级|考研|驾考|英语|期末)(?:.{0,4})答案(?:.{0,4})(?:提前|出售|有|私|包过)|答案提前"
              r"|(?:各种|各类)(?:发票|票)(?:都能开|都有|都可以开)|(?:帮忙|帮你|可以|能)开(?:各种|各类)?(?:发票|票).{0,6}(?:各种|都有|都能|点数|找我|私|低价)",
    "信息买卖": r"(?:出售|卖|买卖|收购|批量出)(?:.{0,4})(?:个人信息|公民信息|用户数据|客户数据|手机号码|号码资源|快递信息|开房记录|身份信息)",
    # Insults in plain words: "are you sick", disgusting/shameless to the host's face, a crowd of insult nouns, curses on
    # the host's family, "old undying", go get plastic surgery.
    "辱骂": r"(?:你|主播|你们)(?:是不是|怕不是|真|就是|纯)?有(?:大)?病(?:吧|啊|呀|$)|有(?:大)?病吧你|脑子有病"
            r"|(?:你|主播|你们)(?:真|好|太|真的|可真|也太)?(?:恶心|下贱|下作|无耻)(?:死了|透了)?(?:吧|啊|呀|了)?$"
            r"|(?:恶心|下贱|无耻)(?:死了|透了)?(?:你|主播)了?$|(?:臭)?不要脸(?!盆|红)|要点脸|要不要脸"
            r"|丑.{0,4}还(?:直播|出来|带货|好意思|露脸|开播)|(?:你|主播)(?:去|赶紧|快去|该|早点)整(?:个)?容"
            r"|老不死|去你(?:大爷|奶奶|姥姥|妹)的?(?!家|那|茶|杯|也|都)"
            r"|(?:一群|一帮|一堆|都是|全是|全都是)(?:大|死|臭|蠢)?(?:CROWD_NOUNS)(?![肉粮年毛头蹄皮仔崽宝屋窝场圈排骨蛋饲血油饼])"
            r"|(?:CROWD_NOUNS)才(?:买|信|看|喝|来|用|听)"
            # an address, a copula or intensifier, then an insult noun (纯纯大冤种) or a pejorative head (窝囊废, 搅屎棍, 傻大个)
            r"|(?:你|主播|你们|这人|这主播)(?:这个|这种)?(?:就|真|简直|才|真的|就是|纯纯|纯|真是|完全是|根本就是|妥妥的?)+"
            r"(?:是|像|当)?(?:个|一个|一只|一条|一头)?(?:大|死|臭|蠢|老|小)?(?:CROWD_NOUNS)"
            r"|(?:你|主播|你们|这人|这主播)[^|]{0,4}?(?:是个|是一个|就是个|纯纯|真是个|像个|跟个)[\u4e00-\u9fff]{0,5}?"
            r"(?:废物?|蠢货|货色|怂包|草包|饭桶|渣|棍|冤种|蠢材|孬种|败类|走狗|疯子|疯狗)(?:[吧啊呀]|$)"
            r"|(?:你|主播|你们|这人|这主播)[^|]{0,4}?(?:是个|是一个|就是个|真是个|像个|跟个)(?:傻|蠢|贱|烂|臭)(?!瓜|萌|美)[\u4e00-\u9fff]",
    # Waiting for the host after the stream, "I'll come find you", the host's family made to pay.
    # -- families added after heldout11, by class.
    # Another live room or anchor (隔壁X直播间, 另一个号, 别家直播间, a known anchor by name) with an offer: a gift, a price, a
    # discount, "more honest" — not a question about it (隔壁直播间也送杯子吗).
    "别家直播间": r"(?<!比)(?:(?:隔壁|别家|别的|其他|其它|另一个|另外一个|另一家|另外一家|有个|有家|某个?)(?:号|账号|主播|家)?的?"
              r"[\u4e00-\u9fffa-z0-9]{0,6}?(?:直播间|主播)|人家的?直播间|(?:另一个|另外一个|其他|其它|别的)(?:号|账号|店铺|店|商家|卖家)"
              r"|(?:ANCHORS)(?:的)?(?:直播间|家|那边|那里|那)?|隔壁|别家)"
              # the gap says nothing for this room (看了别的直播间，还是你们家实惠)
              r"(?:(?!还是|没有?|不如|比不上|你家|你们|主播家|这里|这边|这家).){0,12}?(?:送(?!的|货|到|达|出|走|来|去|回|了?我)|更?便宜|良心|厚道|实惠|划算|卖\d|卖[一二两三四五六七八九十]|才\d|才[一二两三四五六七八九十]"
              r"|只要|仅需?\d|\d+(?:元|块)|[一二两三四五六七八九十]+(?:元|块)|买[一二三1-3]送|半价|[1-9一二三四五六七八九]折|打折|秒杀|更好|好喝多了)"
              r"(?!.{0,6}(?:吗|么|嘛|呢)$)",
    # Talking viewers out of buying (别买, 智商税, 割韭菜) with a cheaper or equal place or a cost claim (超市散装的一样,
    # 成本也就二十): a buyer's doubt alone (这是不是智商税) or a question (超市的一样吗) is not another seller.
    "劝退": r"^(?=.*(?:别买|不要买|别下单|不要下单|别拍|不要拍|劝退|劝大家|智商税|割韭菜|当韭菜|被割|冤大头|坑钱|坑人|暴利))"
            r".*(?:(?:超市|菜市场|市场|外面|网上|批发|散装|散称|散卖|产地|茶城|茶市|某宝|某东|某多多|别家|别处|楼下|小卖部|便利店|路边|地摊|"
            r"其他地方|别的地方|隔壁|老家).{0,8}?(?:一样|同款|差不多|都有|便宜|才\d|才[一二两三四五六七八九十几]|只要|\d+(?:元|块)|"
            r"[一二两三四五六七八九十几]+(?:元|块)|(?:\d+|[一二两三四五六七八九十几百]+)(?:一斤|一罐|一盒|一大包|斤))"
            r"|一搜一大把|一搜一大堆|到处都是|满大街都是|遍地都是|(?:成本|进价|本钱)(?:价)?(?:也就|顶多|最多|撑死|才|就|不到|不过)+"
            r"(?:\d|[一二两三四五六七八九十几]+))(?!吗|么|嘛|呢)",
    # Sending viewers elsewhere after running this room down (买茶还是去八马吧，这家不行).
    "拉踩": r"^(?=.*(?:(?:这家|这个直播间|这直播间|你家|你们家|主播家|这店|这里|这边)(?:的)?(?:茶|东西|货)?(?:真|太|很)?"
            r"(?:不行|不好|太贵|贵死了|坑人?|垃圾|不靠谱|黑心|割韭菜|太坑|假货|不正宗|不值)|(?:垃圾|黑心|坑人的?|骗人的?)(?:直播间|主播|店|商家)))"
            r".*(?:还是|不如|建议|直接|都|快|赶紧)(?:去|到|上)(?!死)[\u4e00-\u9fffa-z0-9]{1,8}?(?:吧|买|下单|看看|拍)",
    # Drugs asked for with a use cue (有冰吗，溜一下; 有叶子吗想飞) or where to get them (哪里能搞到冰).
    "毒品求购": r"(?:有|卖|出|搞|整|弄|来|求|买)(?:没有要|没有|点|些|一点|一些|个|要)?(?:DRUG_SLANG|货)(?:吗|么|没|嘛|不|没有)?.{0,6}"
              r"(?:溜(?:一下|一口|两口|冰|个|点|溜)|嗨(?:一下|一把|起来|皮)|high|吸(?:一口|两口|一下)|嗑|上头|整一口|来一口)"
              r"|(?:有|卖|出|搞|整|弄|来|求|买)(?:没有|点|些|一点|一些|个)?(?:DRUG_SLANG)(?:吗|么|没|嘛|不|没有)?.{0,6}(?:想飞|一起飞|飞一下|飞一把)"
              r"|(?:溜(?:一下|一口|冰(?!场|鞋|课))|想飞|一起飞|飞叶子|嗨一下|high一下|吸一口).{0,6}(?:有|卖|出|搞|整|弄|来|求|买)(?:没有|点|些|一点|个)?(?:DRUG_SLANG)"
              r"|(?:哪里|哪儿|哪能|去哪|在哪|怎么)(?:能|可以|才能)?(?:搞到|弄到|整到|搞点|弄点|整点)(?:DRUG_SLANG|大麻|冰毒)",
    "堵人": r"等(?:你|主播)下播.{0,6}(?:楼下|门口|堵|找你|见)|(?:我在|就在)(?:你家|你们店|你们|你)(?:楼下|门口)"
            r"|等着.{0,3}(?:去|来)?找你(?:算账|麻烦)?$|找你(?:算账|麻烦)|(?:全家|家人)(?:陪葬|偿命|遭殃)|给(?:你|你们)陪葬",
    # -- families added after heldout12, by class.
    # A contact app named by its look (那个绿色的聊天软件, 蓝色app) with "find/add me", and a name or id "in my avatar/signature"
    # (名字就是我头像上那四个字, 号就在签名里): "我头像上的茶是这款吗" names no id.
    "无名联系": r"^(?=.*(?:找我|加我|搜我|私我|联系我|滴我|私聊我|私信我|来撩))"
              r".*(?:(?:绿色|蓝色|黄色|小绿|小蓝|绿|蓝|带企鹅|有企鹅|企鹅)(?:色)?(?:图标)?的?(?:那个)?(?:聊天|社交|通讯)?(?:软件|app|应用|图标)|聊天软件|社交软件)"
              r"|(?:名字|昵称|网名|id|账号|帐号|(?<![型编批货单序色学车房])号)(?:就|也)?(?:是|在|写在)(?:我的?)?(?:头像|签名|个签|简介|主页|资料)(?:上|里)"
              r"|(?:头像|签名|个签|简介)(?:上|里)(?:的|那串|那几个|那个)?.{0,6}(?:就是|是)(?:我的?)(?:号|id|微信|联系方式|账号|帐号)",
    # The viewer selling the same thing for less from their own place: "cheaper than here" with "ask me".
    "比这便宜": r"(?:比这|比你们?|比直播间|比主播|比这里|比这边)(?:家|的|里)?.{0,6}?(?:便宜|划算|实惠|低)"
              r".{0,12}(?:找我|私我|加我|滴我|私聊我|私信我|来我这|到我这)(?!妈|爸|老公|老婆|家人|朋友|同事|们)"
              r"|(?:半价|[一二三四五六七八九]折|便宜(?:一半|很多|好多))(?:给|卖|出)(?:你们|大家|你).{0,8}(?:找我|私我|加我|滴我|私聊我|私信我)",
    # Another brand's goods praised as cheaper or better by the trade's word for a competitor (友商), not asked about.
    "友商": r"(?:友商|竞品)(?:(?!不|没|还是|比不上).){0,12}?(?:更?便宜|才卖|才要|才[0-9一二两三四五六七八九十几]|只要|只卖|仅|划算|实惠|好喝|香多了|更香|更好|送|半价|打折|劝退)(?!.{0,6}(?:吗|么|嘛|呢)$)",
    # Talked out of buying and sent to a market instead (别买了，不如去茶叶城现称).
    "劝退去别处": r"^(?=.*(?:别买|不要买|别下单|不要下单|别拍|不要拍|劝退|智商税|割韭菜|冤大头))"
                r".*(?:不如|还不如|建议|直接|还是|自己)(?:去|到|上)[\u4e00-\u9fffa-z]{0,6}?(?:城|市场|超市|茶市|菜场|产地|批发|现称|散称|称)"
                r"|^(?=.*(?:劝退|智商税|割韭菜|冤大头|坑人|坑钱)).*(?:去|到)(?:茶叶城|茶城|茶叶市场|批发市场|市场|超市|茶市|菜场|产地)"
                r"(?:自己|直接)?(?:买|称|拿|看)",
    # Fake certificates: a certificate made to order or "checkable online" (办证, 健康证学历证可查).
    "假证": r"办(?:个|理|一个)?(?:各种|各类)?(?:健康证|学历证|毕业证|学位证|驾驶证|驾照|身份证|资格证|证件|证书|文凭)"
            r".{0,12}(?:可查|能查|保过|包过|找我|私|加我|当天|拿证|联网)"
            r"|(?:健康证|学历证|毕业证|学位证|文凭|资格证)(?:.{0,8})(?:可查|能查|包查|联网)"
            r"|(?:证件|证书|学历|文凭)(?:代办|包办)|代办(?:各类|各种)?(?:证件|证书|学历|文凭|健康证|毕业证|学位证|驾照|资格证)|(?:健康证|体检报告).{0,6}(?:不用体检|免体检|包过)|学信网(?:可查|能查|备案)",
    # Appearance beyond saving (丑 + 救不了, 美颜都救不了).
    "外貌羞辱": r"(?:丑|难看|磕碜|寒碜).{0,8}(?:救不了|没救了?|拯救不了|遮不住|挡不住)"
              r"|(?:美颜|滤镜|整容|化妆|ps)(?:开)?.{0,4}(?:都|也)(?:救不了|拯救不了|遮不住|挡不住)"
              r"|(?:丑|难看|磕碜|寒碜).{0,12}(?:美颜|滤镜|整容|化妆).{0,6}(?:没用|白开|不管用)"
              r"|(?:长这样|长成这样|这长相|这颜值|这张脸|这张老脸).{0,8}(?:没救|救不了|白开|也没用)",
    # Dialect curses written out: Shanghai 册那/触那, Hokkien and Henan 干恁娘/姦恁娘/驶恁娘, Taiwanese 靠北/哭夭, Cantonese
    # 扑你个街/冚家富贵/顶你个肺. 手册那页 and 靠北边走 are speech.
    "方言脏话": r"(?<![手画名账相注花簿一两三几本分])册那|触那|戳那"
              r"|(?:干|姦|奸|驶|操|日|草|肏)(?:恁|林|伊)(?:娘|老母|祖嬷|阿嬷|老师)|(?:干|姦|驶|肏)你(?:娘|老母|祖嬷)"
              r"|靠北(?![边面方京站门侧坡上下])|靠夭|哭夭|(?:扑|仆)(?:你|佢|雷)(?:个|嘅|条)?街|冚家(?:富贵|铲|产)|顶你个肺|含家铲",
    # Innuendo: an invitation to a hotel room alone or at night, and a body word then "elsewhere" sweet/soft.
    "开房暗示": r"(?:晚上|今晚|半夜|深夜|单独|一个人|下播后|下播了|下了播)(?:有空吗?)?.{0,6}(?:来|去|到)(?:我|你)?(?:的|住的)?(?:酒店|宾馆|旅馆)"
              r"|(?:来|去|到)(?:我|你)(?:的|住的)?(?:酒店|宾馆|旅馆)(?:房间)?.{0,8}(?:单独|一个人|就我们|我们两个|两个人|过夜|陪我|晚上|今晚)"
              r"|(?:嘴|腿|胸|身材|皮肤|手|脸|声音)(?:.{0,10})(?:别的地方|其他地方|其它地方|下面)(?:.{0,2})(?:甜|软|香|嫩|紧|滑)"
              r"|(?:酒店|宾馆|旅馆|房间).{0,10}(?:我去找你|我来找你|等你|陪你|陪我)|开(?:好|个|间|了)?房(?:间)?(?:等你|等着你|陪我|一起)"
              r"|(?:一起|和我|跟我|陪我)开房|(?:嘴|小嘴).{0,10}(?:含得住|含住|含不住|吞得下)",
    # Doxxing boasts: the host's records dug out (户籍住址挖出来了) or published (发群里曝光).
    "开盒炫耀": r"(?:你|主播|你们|你家)(?:的|家)?(?:户籍|住址|家庭住址|地址|身份证号?|手机号|真名|家人信息|户口|工作单位|开房记录)"
              r".{0,8}?(?:挖出来|扒出来|查到|查出来|人肉出来|搞到|弄到|拿到)"
              r"|(?:户籍|住址|地址|身份证|手机号|电话|真名|家人|户口|单位|照片|信息).{0,8}(?:挖|扒|查|人肉|搞)(?:出来|到)"
              r".{0,8}(?:发群|群里|曝光|公开|挂出来|挂网上|发网上)"
              r"|(?:知道|查到|找到|摸清)了?(?:你|主播)(?:家)?的?(?:孩子|小孩|女儿|儿子|老婆|老公|爸妈|父母)(?:在)?(?:哪|哪个|什么)(?:上学|学校|上班|工作)"
              r"|(?:你|主播)(?:家)?(?:在哪个?|在什么)(?:学校|公司|单位|小区)(?:上班|上学|工作|住)?.{0,4}?(?:我)?(?:都|全|已经)?(?:查出来|查到|摸清)",
    # Veiled threats: "I know people who know you" with a harm cue (认识你们老板的人多了，让你好看).
    "暗中威胁": r"认识(?:你|主播).{0,12}(?:的人|关系|朋友).{0,10}(?:让你(?:们)?好看|走着瞧|出门小心|等着瞧|有你(?:们)?好看|给你(?:们)?点颜色|别想好过"
              r"|混不下去|开不下去|干不下去|关门)|让你(?:们)?好看$|给你(?:们)?点颜色(?:看看|瞧瞧)"
              r"|(?:认识|这片有|那片有|本地有|道上有|上面有|当官|管事)(?:.{0,14})(?:出门小心|出门当心|让你(?:们)?(?:关门|倒闭|滚蛋)|等着瞧|走着瞧"
              r"|有你(?:们)?好看|别想好过|混不下去|开不下去)|(?:这片|那片|本地|道上|上面)有人.{0,6}(?:小心|当心)",
}
PATTERNS.update(POLITICAL_PATTERNS)

# Words an insult template may end in (after emoji are read: 🐶 → 狗): 你是X, 你个X, 长得像X, 像X一样.
INSULT_NOUNS: tuple[str, ...] = (
    "狗", "猪", "驴", "蠢驴", "瓜皮", "瓜娃子", "傻子", "骗子", "猴子", "王八", "乌龟", "畜牲", "猪头", "舔狗", "垃圾",
    "废物", "小丑", "傻瓜", "笨蛋", "蠢蛋", "奸商", "死胖子", "丑八怪", "癞蛤蟆", "屎", "草泥马", "白痴", "弱智", "憨憨",
    "蛤蟆", "猩猩", "狐狸精", "老鼠", "蛆", "绿茶婊",
)
# Latin initials of insults (fw 废物, zz 智障, nc 脑残): too ambiguous alone, insults before 主播 ("fw主播").
INSULT_INITIALS: tuple[str, ...] = ("zz", "sb", "fw", "nc", "lj", "bc", "rz", "nt", "sc", "2b")
INSULT_NOUNS = (*INSULT_NOUNS, "扑街", "哈麻批", "瓜批", "憨批", "傻缺", "傻帽", "神经病", "脑残", "脑瘫", "人渣", "贱人", "杂种", "畜生", "龟孙子",
                # chat slang only insults in an insult slot (你是X, X主播): 寄吧/铸币 have everyday homophones (几把, 主笔)
                "哈批", "寄吧", "几把", "铸币", "伞兵", "低能儿", "低能", "弱鸡", "菜狗", "戏子",
                # after heldout9: 狗比 is also a comparison (狗比猫好养), so only in a slot; 龟孙, 瘪三 as nouns
                "狗比", "龟孙", "瘪三",
                # after heldout10 (by class): appearance (肥猪, 肥婆), the seller as a criminal (诈骗犯, 黑心商家), Shanghai
                # 戆大/小赤佬/阿木林, Cantonese 废柴/八婆, north-east 虎逼/山炮, Shaanxi 瓜怂, Henan 鳖孙
                "肥猪", "母猪", "肥婆", "死肥宅", "丑鬼", "诈骗犯", "骗子公司", "黑心商家", "无良商家", "黑心商人", "吸血鬼",
                "戆大", "戆头", "小赤佬", "阿木林", "猪头三", "废柴", "八婆", "死八婆", "虎逼", "山炮", "二货", "瓜怂", "哈怂",
                "鳖孙", "孙贼", "呆逼", "冤种", "大冤种", "窝囊废", "搅屎棍", "傻大个", "傻狍子", "蠢材", "饭桶", "草包", "怂包",
                "孬种", "混蛋", "败类", "狗腿子", "走狗", "土鳖", "乡巴佬", "疯狗", "贱骨头")
# Nouns that insult after 你个/你是 but are fond before 主播 (憨憨主播): left out of "X主播" and "X一个".
FOND_NOUNS = frozenset({"憨憨", "笨蛋", "傻瓜"})
# Insult nouns that are ordinary words when said on their own ("猴子？" about a cup's print, "垃圾" about rubbish): they
# insult in a slot (你是X, X主播) but not as a clause by themselves.
NEUTRAL_NOUNS = frozenset({"乌龟", "猴子", "蛤蟆", "癞蛤蟆", "猩猩", "老鼠", "王八", "戏子", "吸血鬼", "母猪", "垃圾", "狐狸精",
                           "小丑", "笨蛋", "傻瓜", "憨憨"})
# An insult noun told to go away: nouns of two characters or more, fond ones left out (小狗下播了 is no insult).
# Live-commerce anchors and rooms known by name (written by hand after heldout11 from general knowledge of the market):
# another room's offer named by its anchor is another seller's.
# Names that are everyday phrases too (交个朋友, 蛋蛋, 遥望) are left out: they name a room only before 直播间.
ANCHORS: tuple[str, ...] = ("李佳琦", "辛巴", "辛有志", "薇娅", "罗永浩", "董宇辉", "东方甄选", "小杨哥", "疯狂小杨哥", "三只羊",
                            "烈儿宝贝", "刘畊宏", "广东夫妇", "朱瓜瓜", "贾乃亮", "瑜大公子", "骆王宇", "与辉同行", "俞敏洪", "陈洁kiki")
# Everyday words that are drug slang when asked for with a use cue (冰 but not 冰块/冰红茶, 草 but not 草莓).
DRUG_SLANG = (r"冰(?![岛糖箱淇块镇红绿水泡棍沙激柜茶饮的爽凉皮粉条])|叶子|草(?![莓原地坪本药丛帽])|糖果|邮票|k粉|(?<![a-z])k(?![a-z0-9])"
              r"|果子|麻古|笑气|神仙水")
PATTERNS["别家直播间"] = PATTERNS["别家直播间"].replace("ANCHORS", "|".join(sorted(ANCHORS, key=len, reverse=True)))
PATTERNS["毒品求购"] = PATTERNS["毒品求购"].replace("DRUG_SLANG", DRUG_SLANG)
PATTERNS["人身攻击"] = PATTERNS["人身攻击"].replace("INSULT_NOUNS", "|".join(sorted({n for n in INSULT_NOUNS if len(n) >= 2} - FOND_NOUNS, key=len, reverse=True)))
PATTERNS["辱骂"] = PATTERNS["辱骂"].replace("CROWD_NOUNS", "|".join(sorted({n for n in INSULT_NOUNS if len(n) >= 2} - FOND_NOUNS - NEUTRAL_NOUNS, key=len, reverse=True)))
PATTERNS["侮辱"] = (PATTERNS["侮辱"].replace("LONG_NOUNS", "|".join(sorted({n for n in INSULT_NOUNS if len(n) >= 2} - FOND_NOUNS, key=len, reverse=True)))
                  .replace("INSULT_NOUNS", "|".join(sorted(set(INSULT_NOUNS), key=len, reverse=True)))
                  .replace("INSULT_INITIALS", "|".join(INSULT_INITIALS)))
# Platforms and store kinds that, in a price frame (只要/才/更便宜/划算/满减/同款), are another seller.
# Written by hand (after heldout7) from general knowledge of China's retail market: the e-commerce, social-commerce,
# second-hand, grocery-delivery apps and the supermarket/warehouse chains a viewer may name as "cheaper there";
# shop kinds (旗舰店, 超市 …) stand for any brand's store. A price, a discount or "the same item" after one is
# another seller's offer (the room's own platform, in `moderation.allow`, is left out).
PRICE_ELSEWHERE_PLACES: tuple[str, ...] = (
    "某猫", "天猫", "猫超", "某红书", "某书", "红书", "小红薯", "某多多", "快手", "美团", "盒马", "山姆", "xhs", "小红书", "dy", "抖音", "唯品会", "淘宝", "京东", "拼多多",
    "闲鱼", "咸鱼", "海鲜市场", "小黄鱼", "某鱼", "某宝", "某东", "拼夕夕", "并夕夕", "百亿补贴", "视频号", "转转", "得物", "识货", "淘特", "叮咚买菜", "多多买菜",
    "朴朴", "每日优鲜", "美团优选", "兴盛优选", "大润发", "沃尔玛", "家乐福", "永辉超市", "华润万家", "开市客", "costco",
    "麦德龙", "奥乐齐", "胖东来", "亚马逊", "苏宁", "微店", "有赞", "蘑菇街", "1688",
    # tea and vacuum-cup brands (after heldout10): another brand's price is another seller's
    "大益", "八马", "竹叶青", "张一元", "吴裕泰", "天福茗茶", "艺福堂", "小罐茶", "立顿", "川宁", "澜沧古茶", "华祥苑", "卢正浩",
    "西湖牌", "贡牌", "膳魔师", "象印", "虎牌", "富光", "哈尔斯", "苏泊尔", "乐扣", "特美刻", "物生物", "希诺", "名创优品",
    "无印良品", "宜家",
    "官方店", "旗舰店", "专卖店", "专营店", "直营店", "实体店", "批发市场", "超市", "商场", "便利店",
)
# Places that are only deictic ("over there", "next door"): a plain number after them is not a price (外面等了20分钟).
PRICE_ELSEWHERE_DEICTIC: tuple[str, ...] = ("他家", "那边", "隔壁", "别家", "外面", "网上", "其他平台", "别的平台")
PRICE_FRAME = (r".{0,14}(?:只要|才(?:卖|要)?\d|才要|[0-9一二两三四五六七八九十百]{2,}多?(?:元|块)(?!钱?的)(?![^|]*[吗么嘛呢])|仅需?\d|更便宜|便宜(?:\d|了?[一二三四五六七八九十几多]|好多|不少|很多)|更划算|满减|同款)"
               r"(?![吗么嘛呢不没])")  # a question (美团更便宜吗) is not a claim
# After a platform or store: also a bare price (六十九一罐, 一罐五十, 七十九两罐), a discount or "sold the same there".
_NUM = "[0-9一二两三四五六七八九十百千]"
PRICE_FRAME_PLATFORM = (r"(?:(?![吗嘛呢])[^|]){0,14}(?:只要|才\d|才要|仅需?\d|更便宜|便宜|更划算|划算|实惠|满减|同款|半价|打折|[一二三四五六七八九1-9]折|"
                        rf"包邮|补贴|二手|全新未拆|(?:卖|售)价?{_NUM}{{2,}}|买[一二三1-3]送[一二三1-3]|秒杀|搞活动|在搞|清仓|[0-9一二两三四五六七八九十百]{{2,}}出|"
                        rf"{_NUM}+(?:元|块|rmb)|{_NUM}{{2,}}[罐盒瓶个件斤包袋]|[一两1-2][罐盒瓶个件斤包袋]{_NUM}{{2,}}|¥{_NUM}+|"
                        rf"{_NUM}{{2,}}(?:元|块)?就(?:有|能买|买得到|能买到|能拿|拿下))"
                        r"(?![吗么嘛呢不没])")

# The contact rule's view of a text: emoji that stand for a syllable or a word (🐴 for 妈/马, 🍑 for
# 淘/桃, 🐧 for QQ's penguin), and latin look-alikes from other scripts (Cyrillic х, Greek ο).
EMOJI_STANDINS: dict[str, str] = {
    "🐴": "马", "🐎": "马", "🏇": "马", "🍑": "桃", "🐶": "狗", "🐕": "狗", "🐷": "猪", "🐖": "猪", "🐔": "鸡", "🐢": "龟",
    "🐧": "企鹅", "🍃": "叶", "💊": "药", "🎰": "赌", "🎲": "赌", "🔞": "成人", "💩": "屎", "🐟": "鱼", "🐠": "鱼",
    "🐂": "牛", "🐮": "牛", "💰": "钱", "🈶": "有", "🈚": "无", "🉑": "可", "🈲": "禁", "🥚": "蛋", "🐭": "鼠", "🐍": "蛇",
    "🍆": "茄", "💚": "绿", "🫧": "泡泡",
    # animals and objects addressed at a person (你是🐶, 像🐷一样, 🦙你个…), apps and contact cues (✈️ Telegram)
    "🦙": "草泥马", "🌿": "草", "🌱": "草", "🤬": "艹", "🐩": "狗", "🦮": "狗", "🐺": "狼", "🦊": "狐狸", "🐗": "猪", "🐽": "猪", "🐒": "猴子", "🐵": "猴子",
    "🙈": "猴子", "🐸": "蛤蟆", "🐀": "鼠", "🐁": "鼠", "🐓": "鸡", "🐤": "鸡", "🐥": "鸡", "🐣": "鸡", "🦆": "鸭", "🐑": "羊",
    "🐐": "羊", "🐃": "牛", "🐄": "牛", "🐛": "虫", "🪱": "虫", "🐌": "蜗牛", "🤡": "小丑", "🐉": "龙", "🐲": "龙", "🐇": "兔",
    "🐰": "兔", "🐻": "熊", "🐼": "熊猫", "🦍": "猩猩", "🐦": "鸟", "🕊": "鸽", "🦢": "鹅", "🦉": "猫头鹰",
    "🖕": "艹",  # the gesture is the insult itself
    "🕯": "蜡烛", "⚰": "棺材", "🪦": "墓碑",  # mourning emoji: a death wish when aimed at the living host (see 诅咒)
    "✈": "飞机", "🛩": "飞机", "🛫": "飞机", "🛰": "卫星", "📡": "卫星", "📞": "电话", "☎": "电话", "📱": "手机", "🔗": "链接",
}
# Characters written as their two components side by side (亻言 for 信, 女马 for 妈): read back as the character
# (before every rule). Only pairs that are no word of their own (日月, 女子 are words; they are left out), for
# the characters contact, vice, insult and competitor words are made of; CJK radical-supplement forms (⺅)
# are read as the component first.
COMPONENT_PAIRS: dict[str, str] = {
    "亻言": "信", "亻尔": "你", "女马": "妈", "扌喿": "操", "扌口": "扣", "力口": "加", "君羊": "群", "贝者": "赌", "貝者": "赌",
    "女票": "嫖", "女昌": "娼", "女支": "妓", "木仓": "枪", "石马": "码", "扌叟": "搜", "氵匋": "淘", "扌并": "拼", "钅戋": "钱",
    "纟勺": "约", "火包": "炮", "艹早": "草", "辶畐": "逼", "犭句": "狗", "犭者": "猪", "疒知": "痴", "疒难": "瘫", "马扁": "骗",
    "代贝": "贷", "贝长": "账", "口丂": "号", "讠青": "请", "讠舌": "话", "钅艮": "银", "扌戈": "找", "禾厶": "私", "耳卯": "聊",
    "彳散": "微", "彳敫": "微", "氵查": "渣", "亻専": "傅", "钅帛": "锦",
}
RADICAL_FORMS: dict[str, str] = {"⺅": "亻", "⺡": "氵", "⺘": "扌", "⻈": "讠", "⺗": "忄", "⻏": "阝", "⻖": "阝", "⺮": "竹", "⻗": "雨",
                                 "⺼": "月", "⺌": "小", "⺣": "灬", "⺨": "犭", "⺪": "疒", "⻊": "足", "⻉": "贝", "⻋": "车",
                                 "⻓": "长", "⻔": "门", "⻢": "马", "⻥": "鱼", "⺧": "牛", "⺭": "礻", "⻂": "衤", "⺶": "羊"}
LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "һ": "h", "ɡ": "g",
    "ь": "b", "п": "n", "г": "r", "и": "u", "л": "n", "д": "a", "ѵ": "v", "ѷ": "v", "ѡ": "w", "ɯ": "w",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ω": "w", "μ": "u", "γ": "y", "ς": "s", "σ": "o", "λ": "a",
    # small capitals and other letter forms NFKC keeps (ᴡx)
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j", "ᴋ": "k",
    "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w",
    "ʏ": "y", "ᴢ": "z", "ɑ": "a", "ɩ": "i", "ʋ": "v", "ⅴ": "v", "ⅹ": "x",
}

# Characters whose first reading in pypinyin's table is not the everyday one (伽 is gā there, jiā in 瑜伽), read
# as the everyday one: a homophone evasion uses the reading people know (伽薇 for 加微).
READINGS: dict[str, str] = {"伽": "jia"}

# Everyday words the segmenter's (older) dictionary lacks: a homophone of a listed word that is one
# of these is the word itself, not an evasion ("微信支付" is not 薇信).
EVERYDAY_WORDS: frozenset[str] = frozenset({
    "微信", "支付宝", "抖音", "快手", "拼多多", "淘宝", "京东", "天猫", "小红书", "直播间",
    # homophones of listed words that are words of their own
    "咸鱼", "网袋", "白吃", "圆角", "普京", "惊动", "独唱", "存货", "见货", "扫货", "压片", "弟弟", "小气", "消气",
    # (after heldout10) everyday words that sound like a listed one: 忘带 ~ 网贷, 鲜鱼 ~ 闲鱼, 打骂 ~ 大麻, 细读 ~ 吸毒 …
    "忘带", "鲜鱼", "打骂", "细读", "课长", "远郊", "板正", "待考", "博采", "果料", "落照", "建中", "间种", "强直", "肚肠",
})
# Chat abbreviations that are everyday slang, never taken for the initials of a listed word.
COMMON_ABBREVIATIONS: frozenset[str] = frozenset({
    "yyds", "xswl", "awsl", "dbq", "nsdd", "u1s1", "yysy", "zqsg", "bhys", "cpdd", "nbcs", "kswl", "plmm", "ssfd", "xjj",
    "xgg", "yyq", "bdjw", "gg", "mm", "dd", "hhh", "www", "bbq", "ok", "diy", "vip", "app", "ceo", "kol", "dj", "bgm",
})

# Nicknames viewers use for an app, a contact or a shop: a listed word containing the key is also
# listed with each nickname in its place ("加微信" → "加薇信", "加vx", …).
ALIASES: dict[str, tuple[str, ...]] = {
    "微信": ("薇信", "威信", "徽信", "微心", "维信", "卫星", "v信", "vx", "wx", "微x", "v", "绿泡泡", "weixin", "wechat",
             "绿色软件", "绿色app", "绿色聊天软件", "绿软"),
    "qq": ("扣扣", "企鹅", "q号", "抠抠", "蔻蔻", "寇寇", "koukou"),
    "扣扣": ("qq", "企鹅", "蔻蔻", "寇寇", "koukou"),
    "拼多多": ("拼夕夕", "并夕夕", "pin夕夕", "pdd", "拼dd", "拼多", "某多多"),
    "淘宝": ("某宝", "taobao", "桃宝", "淘bao"),
    "京东": ("某东", "狗东", "jingdong"),
    "闲鱼": ("xianyu",),
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
    "lsp": "老色批", "on9": "戆鸠", "sb": "傻逼", "nmsl": "你妈死了", "wdnmd": "我屌你妈的", "mlgb": "马勒戈壁", "nmb": "你妈逼", "rnm": "日你妈",
    "cnm": "操你妈", "cnmb": "操你妈", "tmd": "他妈的", "gnmd": "滚你妈的", "qnmd": "去你妈的", "sqj": "死全家", "2b": "二逼",
    "vx": "微信", "wx": "微信", "mmp": "妈卖批", "nmd": "你妈的", "wcnm": "操你妈", "cnmd": "操你妈", "nmlgb": "马勒戈壁",
    "bjl": "百家乐", "zz": "智障",
}

# -- answers --------------------------------------------------------------------------------------------

# Absolute claims (Advertising Law art. 9(3)). Regex fragments; a few everyday phrases are excepted
# (最近, 最后, 最好+verb "preferably", 第一次, 第一时间 …).
ABSOLUTE_CLAIMS: tuple[str, ...] = (
    # (最好 + a verb is advice, 最好用冷水洗; 最好用的 / 最好用！ is a claim)
    r"最(?!近|后|终|多|少|迟|晚|早|初|好(?:是|用(?![的了！!。，,]|$)|别|不要|不|在|先|把|放|冲|泡|买|选|等|能|可以|尽快))",
    r"全网(?:最|第一|首|独|唯一|销量)",
    r"第一(?!次|泡|步|天|个|杯|遍|口|批|件|位|时间|道|轮|期|章|条|罐|眼|印象)",
    r"(?:国家|世界|全球|宇宙)级", r"顶级", r"极品", r"极致", r"顶尖", r"首选", r"唯一", r"独一无二", r"绝无仅有",
    r"史上", r"全网最低", r"王牌", r"冠军", r"销冠", r"独家", r"首[个家款](?!单)", r"祖传", r"特供", r"专供", r"no\.?\s*1(?!\d)", r"top\s*1(?!\d)", r"100%", r"百分之百", r"万能", r"领导品牌",
)

# Promises: (label, regex). Each is voiced only when a passage matches the same regex (or one of
# the label's equivalents in PROMISE_EVIDENCE).
# Conditions of a return/refund promise (label, regex): a sentence that promises a return under a
# condition is voiced only when one passage clause states the same condition the same way (未拆封 is
# not 拆封); restrictions a passage clause adds (质量问题) must be said too.
# Labels whose passages must contain the very phrase the sentence says (顺丰 is not grounded by 中通).
EXACT_PROMISES: frozenset[str] = frozenset({"快递公司", "品质承诺", "发货时效", "销售渠道", "发票类型", "付款方式"})
RETURN_WORDS = r"退|包换|能换|可以换|换货|换新"
RETURN_CONDITIONS: tuple[tuple[str, str], ...] = (
    ("拆封", r"拆封|开封|拆开|打开|拆了|开了|启封|拆过|开过|拆包装|开袋"),
    ("使用", r"喝过|用过|使用过|泡过|吃过|穿过|洗过|试过"),
    ("无理由", r"无理由|无条件|随便退|随意退|任何原因|什么原因都|不需要理由|不用理由|不喜欢|不想要|不满意|不合口味|口味不合|照样(?:给您|给你)?退"),
    ("随时", r"随时|任何时候|永久|终身|多久都|不限时|无限期"),
    ("全额", r"全额|全款|一分不少"),
    ("运费", r"运费|邮费"),
)
RETURN_RESTRICTIONS = r"质量问题|破损|坏了|受潮|异味|漏|瑕疵|错发|少发"
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
           r"降(?:三高|血压|血糖|血脂)|抗癌|防癌|治疗|疗效|药效|减肥|瘦身|排毒|刮油|燃脂|消脂|减脂|去脂|降脂|掉秤|瘦(?:一圈|几斤|下来|了|肚子)|"
           # a cure claimed for a disease, in Chinese or English ("能治高血压", "cures cancer")
           r"治(?:好|愈)?(?:高血压|糖尿病|癌|肿瘤|失眠|胃病|百病|感冒|三高|痛风|便秘|病)|(?:能|可以|专)治|"
           r"\b(?:cures?|heals?|treats?|prevents?|fights?)\b.{0,20}\b(?:cancer|diabetes|disease|blood pressure|"
           r"hypertension|illness|insomnia)|anti-?cancer|lowers? blood (?:pressure|sugar)"),
    ("保价", r"保价|价保|退差价|补差价|差价(?:退|补|返)|降价(?:就|了)?(?:退|补|返)"),
    ("分期", r"免息|分期"),
    ("秒杀", r"秒杀|限时|抢购|清仓"),
    ("七天无理由", r"[七7]天无理由"),
    # Named facts a passage must name itself (the same phrase, see EXACT_PROMISES): carriers, quality
    # and origin claims, shipping speed.
    ("快递公司", r"顺丰|圆通|中通|申通|韵达|极兔|德邦|邮政|ems|京东快递|京东物流|百世|天天快递"),
    ("品质承诺", r"无农药|零农残|没有农药|农残为零|有机|纯天然|无添加|零添加|不含(?:任何)?(?:添加剂|防腐剂|香精|色素|农药)|"
               r"绿色食品|无公害|正品保证|保证正品|假一|保真|原产地直供|产地直发|认证|金奖|银奖|获奖|专利|非遗|老字号"),
    ("发货时效", r"(?:当天|当日|今天|马上|立刻|立即)(?:就|会|都|能|可以)?发(?:货|出|走)|当天发|当日发|次日达|隔日达|明天就到|"
               r"今天下单明天到|[秒闪]发|"
               # when it arrives (added after heldout9): a day or a number of days, then arrival (明天就能到, 三天内送到)
               r"(?:明天|明日|后天|次日|隔天|隔日|第二天|当天|当日|今天|今晚|[一二两三四五1-5]天(?:内|之内|以内)?)"
               r"(?:就|一定|肯定|保证|准|能|可以|会|都|也)*(?:到|送到|到货|收到|送达|签收|寄到)(?!手价|手的价|底)"),
    # How the buyer may pay (after heldout9): cash on delivery and pay-after-trying are the seller's to offer.
    ("付款方式", r"货到付款|到付|先用后付|先收货后付款?|收到(?:货)?再(?:给钱|付款|付钱|付)|先尝后买|先试后买|先试后付"),
    ("运费险", r"运费险|退货险"),
    ("发票类型", r"专票|专用发票|增值税发票|纸质发票|普票|普通发票"),
    # Health benefits and who may safely consume it (added after heldout7): a food's answer may not promise what
    # its passages do not (Advertising Law art. 17: no health-function claims outside approved products).
    ("健康功效", r"(?:对|有益于|有利于|有助于)[^，。！？,.!?]{0,4}(?:胎儿|宝宝|婴儿|孕妇|身体|健康|皮肤|肝|胃|心脏|血管|睡眠|免疫|大脑|视力)"
               r"(?:有|很有|都有)?(?:好处|帮助|益处|益)|安胎|养胃|护胃|护肝|养肝|美容养颜|养颜|美白|提高免疫|增强免疫|"
               r"增强抵抗力|提高抵抗力|延年益寿|长寿|助眠|改善睡眠|(?:孕妇|哺乳期|婴儿|宝宝|小孩|儿童|老人|病人)(?:也|都)?"
               r"(?:可以|能|放心|随便)(?:喝|吃|用)|放心(?:喝|吃|用)|没有(?:任何)?副作用|无副作用"),
    # Other sales channels named as places to buy: only the channels the passages name (天猫旗舰店也能搜到).
    ("销售渠道", r"天猫|淘宝|京东|拼多多|抖店|快手小店|唯品会|闲鱼|1688|旗舰店|官网|专卖店|实体店|门店|线下店|超市|"
               r"其他平台|别的平台|其他渠道|别的渠道"),
    # Urgency and price changes: a deadline or a price rise the seller must actually have announced.
    ("涨价/限时", r"涨价|提价|调价|恢复原价|回到原价|恢复日常价|变回原价|(?:明天|明日|下播|过了今天|今天过后|活动结束|"
                r"以后|过几天|下周|下次).{0,6}(?:就?涨|会?贵|原价|恢复|没有了|没了|取消|结束|不是这个价)|"
                r"最后一天|最后[一1]波|最后[几\d一二三两]+[单件罐份个]|仅限今[天日晚]|只有今[天晚]|只限今[天晚]|就今[天晚]|"
                r"错过.{0,4}(?:没有|再等|就没)|(?:马上|即将|很快)(?:恢复|涨|下架|截止|结束|没了|售罄|断货)|下架|"
                r"库存(?:不多|紧张|告急)|只剩|仅剩|卖完就没|手慢无|"
                r"(?:明天|以后|一直|永远|长期)(?:还|都|也|一直)?是这个价|价格(?:一直)?不变|长期有效|永久有效"),
    ("赠品", r"赠品|赠送|附赠|免费送|加送|额外送|白送|送.{0,4}(?:杯|礼|盒|壶|套|包|罐|份|个|只|件|样)|"
           r"(?:还|再|另|就|都)送(?![达到货出往去回])|送(?:你|您|大家|粉丝|各位)"),
)
