"""Predicates said in many words (a small commerce thesaurus): where a sentence says a denied predicate in any of them.

"不支持货到付款" is gone against by "收到货再付钱", "不防水" by "下雨天放外面也没事", "不适合儿童" by "小朋友也能用": each entry
is a predicate the facts deny and the words viewers and models say it in.
"""

from __future__ import annotations

import re

# Predicates that are said in many words: shipping and paying on delivery (a small commerce thesaurus).
SAME = (
    ("发货", r"发货|发|寄|邮寄|配送|送到|送达|到货|能到|可以到|运到"),
    ("货到付款", r"货到付款|到付|货到再付|收(?:到)?货(?:后|再)?(?:付|给钱)|收到货?[\u4e00-\u9fff]{0,5}?再(?:付|给钱|掏钱|买单)|收到(?:再|后)?(?:付|给钱)|送到(?:再)?付|先(?:收|用)后付|先收货"),
    ("机洗", r"机洗|洗衣机"),
    # water on it in the words of weather and use (下雨天放外面也没事, 泡水里): what 不防水 denies
    ("防水", r"防水|淋[一点些了下个]{0,2}雨|淋湿|下雨|雨天|雨里|沾水|泡水|进水|浸水|水里|水洗|冲水|(?:拿|用)水冲"),
    ("拆封", r"拆封|拆开|拆了|拆袋|打开|开封|开袋|开盖|拆包装"),
    ("拆卸", r"拆卸|拆下|拆掉|拆开|可拆|能拆|拆洗"),  # (what 不可拆卸 denies: 电源线可以拆下来)
    # use in any words (也可以用, 能用, 用没问题): what "X人群不建议使用" denies, of X
    ("使用", r"使用|能用|可以用|可用|用(?:没问题|没事|也行|都行|着没事)"),
    # sun on it (拿到太阳底下晒一晒): what 不能暴晒 denies
    ("暴晒", r"暴晒|晒太阳|太阳底下|太阳下|阳光下|阳光直射|太阳直射|直晒|日晒|晒一晒|晒晒|晾晒|拿去晒|拿出去晒"),
    # water on it in the words of washing (丢洗衣机洗, 冲一冲): what 不能水洗 denies
    ("水洗", r"水洗|机洗|洗衣机|手洗|冲洗|泡水|过水|洗一洗|洗洗|拿去洗|(?:拿|用|放)?水(?:里)?冲|冲一冲|冲冲"),
    # left in water (泡在水里刷, 泡盆里): what 不可长时间浸泡 denies
    ("浸泡", r"浸泡|泡在水里|泡水里|泡在盆里|泡盆里|泡着|泡一泡|泡一下|泡水"),
    # the people a product is not for, in the words viewers and models use for them
    ("儿童", r"儿童|小孩|孩子|小朋友|宝宝|娃|幼儿|小学生|童"),
    ("婴幼儿", r"婴幼儿|婴儿|新生儿|婴童|幼儿"),  # (not 宝宝: viewers are 宝宝们 too)
    ("孕妇", r"孕妇|孕期|怀孕|准妈妈|孕妈"),
    ("老人", r"老人|老年人|长辈|爷爷|奶奶|外公|外婆"),
    # young pets in the words owners call them (满月的小奶猫): what 不适合幼猫 denies
    ("幼猫", r"幼猫|小奶猫|奶猫|猫崽|小猫崽|刚出生的小?猫"),
    ("幼犬", r"幼犬|小奶狗|奶狗|狗崽|小狗崽|刚出生的小?狗"),
    # cool to the touch in any words (冰丝凉感, 夏天盖特别凉快): what 不适合想要冰凉感的 denies
    ("冰凉", r"冰凉|凉感|凉快|凉爽|清凉|冰丝|冰感|凉丝丝"),
    # the floor in the words of cleaning it (拖地擦桌子都行): what 不能用于地面清洁 denies
    ("地面清洁", r"地面清洁|拖地|擦地|地板|地面"),
    # water hot enough to scald (倒开水烫一烫): what a limit on 热水 denies
    ("热水", r"热水|开水|沸水|滚水|烧开的水|刚烧开"),
    # a function by what it does (吸灰, 吸头发): what 没有吸尘功能 denies
    ("吸尘", r"吸尘|吸灰|吸头发|吸毛发|吸碎屑"),
    # a damp cloth in any words (湿毛巾): what 不要用湿布擦 denies
    ("湿布", r"湿布|湿毛巾|湿抹布|湿纸巾|湿巾|湿的布|湿的毛巾|拧干的毛巾"),
    # strong acids by the household cleaners that are (洁厕灵): what 禁止使用强酸类清洁剂 denies
    ("强酸", r"强酸|洁厕灵|洁厕剂|洁厕液|除垢剂|盐酸|草酸"),
)

# Predicates said in many words only of a thing the denial names (拖布头…不在保修范围 against 拖布头坏了也包换): said of
# nothing in particular, the whole product's own warranty (整机保修1年) would go against its exclusions.
OF_A_THING = (("保修", r"保修|质保|包换|包修|免费换|免费修|给换|给修|管换"),)

# What viewers ask in everyday words that the facts say in the catalogue's (脏水 → 污水, 续航 → 充电, 裂了 → 破损): the
# catalogue word is searched for too. (Not the people, a slot of their own; not 保修, whose 给换 is also a return.)
_ASKED = (*((c, rx) for c, rx in SAME if c in {"热水", "吸尘", "强酸", "湿布", "浸泡", "幼猫", "幼犬", "冰凉", "暴晒"}),
          ("污水", r"脏水|污水"),
          ("地毯", r"毯子|毛毯|地垫"),
          ("破损", r"裂了|碎了|破了|摔坏|压坏|磕坏|裂开|开裂|摔碎|压碎|压扁|瘪了"),
          ("充电", r"续航|电池|没电|插电|电量|充一次电|充满电"),
          ("消毒液", r"漂白水|漂白剂|消毒水"),
          # (a size in the trade's words: 多粗, 几号管 → 直径; a lock of hair: 一撮 → 每缕; a cord twisting: 拧成麻花 → 缠绕;
          # warming up: 预热 → 设定温度)
          ("直径", r"多粗|粗细|几号管|管径|几号的"),
          ("每缕", r"一撮|一缕|一股|每撮|每股"),
          ("缠绕", r"拧成麻花|拧麻花|打结|缠在一起|绞在一起|缠住"),
          ("设定温度", r"预热|热起来|升温"),
          # (a part that moves with the face or the body: 刀头是死的还是会动的 → 浮动)
          ("浮动", r"会动|能动|活动的|动不动|是死的|固定的"),
          # (damage the buyer did: 自己不小心摔断的 → 人为损坏除外)
          ("人为", r"(?:自己|不小心|一不小心)[\u4e00-\u9fff]{0,2}?(?:摔|弄|碰|压|踩|掰|折|坐)"),
          ("防雷", r"打雷|雷雨|雷阵雨|闪电|雷电"),
          ("防晒", r"紫外线|晒黑|晒伤|怕晒|遮阳|挡太阳|大太阳|太阳(?:大|天|底下)"),
          # phones by their makers' names (苹果11, oppo的): the facts say iPhone and 安卓
          ("iphone", r"苹果(?:手机|\s*\d{1,2}(?![\d.]|\s*[斤元块个件盒箱]))|(?<![a-z])ip(?:\s*\d{1,2})(?![\d])"),
          ("安卓", r"华为|小米|红米|荣耀|(?<![a-z])(?:oppo|vivo|iqoo|realme|redmi|honor|huawei|xiaomi|samsung)(?![a-z])|三星|一加|魅族|鸿蒙"))


def catalogue_words(text: str) -> list[str]:
    """The catalogue's words for what a question says in everyday words (开水 → 热水, 洁厕灵 → 强酸)."""
    return [canon for canon, rx in _ASKED if canon not in text and re.search(rx, text)]


# The people a product is not for: named by a word of their own, never as part of a longer key (儿童款 is a product line).
PEOPLE = frozenset({"儿童", "婴幼儿", "孕妇", "老人"})


def span(sentence: str, key: str, *, as_word: bool = False, of_a_thing: bool = False) -> tuple[int, int]:
    """Where the sentence says a denied predicate, in its words or a word of the same meaning ((-1, -1): nowhere);
    `as_word`: a key that is one of the thesaurus' words means what its entry does (an action: 拆袋 is 拆封);
    `of_a_thing`: the denial names what it is about (OF_A_THING's words count too)."""
    entries = (*SAME, *OF_A_THING) if of_a_thing else SAME
    same = [rx for canon, rx in entries if key == canon or (canon in key and len(key) <= len(canon) + 2 and canon not in PEOPLE)]
    for rx in same or [rx for _, rx in SAME if as_word and re.fullmatch(rx, key)][:1]:
        m = re.search(rx, sentence)
        return (m.start(), m.end()) if m else (-1, -1)
    at = sentence.find(key)
    return (at, at + len(key)) if at >= 0 else (-1, -1)


def find(sentence: str, key: str, *, as_word: bool = False) -> int:
    return span(sentence, key, as_word=as_word)[0]


def find_action(sentence: str, key: str) -> int:
    return find(sentence, key, as_word=True)
