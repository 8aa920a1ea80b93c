"""What a viewer's question asks for: its slot (price, shipping, how to use …) and what it is about.

Question-type words map to one slot ("多少钱", "价格", "怎么卖", "几块", "贵不贵" → price), so an FAQ
entry is found for any paraphrase that asks the same thing about the same product ("怎么泡比较好喝"
→ "怎么泡"), and an extractive answer takes the passage sentence that answers the slot (a price
question gets the sentence with the price), not the one that shares the most characters. Keys are
compared edit-tolerantly, so a typo ("保质其多久") still finds its entry.

Since heldout10: a slot asked in unusual words maps to it (一泡能续几回, 放几克 → howto; 两罐一起拍多少 → price; a carrier
named → shipping); a closing 不/没 is a question particle, not a topic (要运费不); a quantity question's unit
(asked_units: 几克 → 克, 几回 → a count of brews) picks, of the entries and sentences that answer the slot, the one
stating a figure in that unit; and is_question tells a question by its form, however short, from a remark. Slots of
other kinds of products (size, care, wear, list price, a material named) and, for retrieval, only the slot words the
passages use.

Since heldout12: opened in any verb with how long (打开盖子以后多久得喝完) asks shelf_life, 发出来 is shipping, and how well
it sells (卖得好不好, 买的人多吗) is a slot of its own (sales).

Since heldout14/15 (three independent writers asked each of these in their own words): paying on delivery or in parts
in any words (到了再给钱, 分开付) is payment, how many one may buy (最多能买几袋, 能拍三台不) is a slot of its own (limit),
and where it ships from (从哪儿发出来的) is shipping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pypinyin import lazy_pinyin
from rapidfuzz import fuzz

from broadcaster.brain.figures import figures
from broadcaster.brain.intent_en import SLOT_TERMS_EN, english, evidence_en, is_question_en, slots_en
from broadcaster.brain.textnorm import normalize, question_key

# slot → (question words, evidence an answer sentence carries)
SLOTS: dict[str, tuple[str, str]] = {
    "price": (r"多少钱|多钱|价格|价钱|价位|怎么卖|咋卖|怎么买|几块|几元|什么价|啥价|贵不贵|贵吗|太贵|便宜|售价|卖多少|原价|到手价|"
              # a price said to be checked (两罐是158对吧, 是不是只要69)
              r"(?:(?:是|要|只要|才|就|卖)|[一两二三四五六七八九十\d]+[罐瓶个盒件只套袋包份箱]装?)\s*[\d一二两三四五六七八九十百千]+"
              r"(?:\.\d+)?\s*(?:(?:元|块)[\d一二三四五六七八九]?|米|r)?(?:吗|吧|对|是|不|呢|$)|"
              r"优惠|划算|折扣|打折|活动价|(?:有|搞|啥|什么)活动|活动(?:吗|没|呢)|^(?:活动|秒杀|抢购|福利|优惠券|券|折扣)$|howmuch|price|cost|"
              r"多少一[罐瓶个盒件只]|"
              # what it costs the buyer, in any verb (入手要花多少, 一共多少, 掏多少)
              r"[花付掏给](?:多少|几个?|几块)|降价|涨价|会不会便宜|"
              # a count, then how it is bought together, then 多少 (两罐一起拍多少, 三盒加起来多少, 两件的话多少)
              r"[一两二三四五六七八九十\d]+[罐瓶个盒件只套袋包份箱](?:装)?(?:一起|一块儿?|合起来|加起来|一共|总共|共|要|是|拍|买|下单|带走|的话|算)*多少(?![克度毫斤天个钱g杯次回遍泡升])|"
              r"(?:组合|套装|[两二三四五\d][罐瓶盒件只套袋包份]装)(?:价|的价|怎么卖|多少|啥价|什么价)|"
              r"要花|花费|一共(?:要)?多少|总共(?:要)?多少|合计|共计|加起来多少|多少米|几个米|怎么收费|收费多少|要多少(?![度克水毫分秒天时次杯泡])|啥价位|卖几块",
              r"\d+(?:\.\d+)?元|[一二三四五六七八九十百千]+元|块|价"),
    "postage": (r"包邮|包不包邮|运费|邮费|快递费|免邮|免运费|邮资|寄费|邮费|运费险|(?:要|得|需要|还)?加钱|补钱|freeshipping|postage|shippingfee",
                r"包邮|运费|邮费"),
    "shipping": (r"发货|出货|哪(?:儿|里)?发|从哪(?:儿|里)?(?:寄|发)|[么时候久天快]能?发(?:出来?|走)?$|(?:能|可以|会)发(?:吗|不|么|嘛|过去|到)|发不发|发吗$|几天能?到|多久能?到|多久能?收到|什么时候能?到|几时到|到货|快递|物流|寄|配送|"
                 r"几号发|多快发|(?:明天|后天|今天|哪天|几号|周末)能?(?:到|收到|送到)|"
                 # a carrier named in the question asks which one ships (可以换顺丰不, 发中通吗)
                 r"顺丰|圆通|中通|申通|韵达|极兔|邮政|ems|京东快递|京东物流|德邦|百世|ship(?!pingfee)|deliver", r"发货|快递|送达|物流"),
    "returns": (r"退|换货|售后|寄回|寄还|返厂|不满意|不喜欢|不想要|能换吗|可以换吗|换新|补发|(?:漏|裂|破|碎|坏|压坏|摔坏)了.{0,6}(?:怎么办|咋整|咋办|能换|换|管吗|退)|"
                r"return|refund", r"退|换|补发"),
    # a return for no reason (买回去不喜欢能退吗): the no-reason policy, not its exceptions (used goods, who pays postage)
    "no_reason": (r"(?:不喜欢|不想要|不合适|后悔|无理由|七天|7天)[\u4e00-\u9fff]{0,8}(?:退|换)|退[\u4e00-\u9fff]{0,6}(?:不喜欢|无理由)",
                  r"无理由"),
    # what comes with it (带刷子不, 里面给几个刷头, 送不送插头, 配菜谱吗): the box's contents
    "contents": (r"(?:里面|盒子里|盒里|包装里|箱子里)[\u4e00-\u9fff]{0,2}(?:有|带|给|送|配)|带(?!来|走|回|货|娃|孩子|宝宝|着|上|去|到|出|进|过)[\u4e00-\u9fff]{1,4}?(?:不|吗|没|嘛)(?![好行能会要是错用])|带不带|配(?:不配|了?吗|没配)|附带|送不送[\u4e00-\u9fff]{1,4}",
                 r"包装内含|内含|盒内|包装里|包含|标配|配有|附带|随机附"),
    # who it suits (敏感皮能用吗, 孕妇可以用不, 八岁能涂吗): the facts on skin types, ages and people it is not for
    "suitable": (r"适合|适用|(?:能|可以)用(?:吗|不|吧)|[干油混中敏][性皮]?皮|敏感肌?|孕妇|孕期|怀孕|哺乳|宝宝|儿童|小孩|孩子|闺女|儿子|老人|"
                 r"[一二两三四五六七八九十\d]+岁|多大(?:的|了)?(?:猫|狗|宠物|猫咪|狗狗|幼猫|小猫|奶猫|幼犬|小狗|宝宝|孩子|小孩|娃|人)|几个?月大|多大年纪|几岁", r"适合|适用|不建议|禁用|慎用|儿童|孕|敏感|人群|岁|肌|皮"),
    "howto": (r"怎么泡|泡法|冲泡|怎么喝|怎么用|用法|使用方法|怎么吃|怎么冲|水温|多少度|几度|多热|多烫|烧到|烧开|开水|水开|泡几分钟|泡多久|泡多|用多少水|多少水|放多少|几次|注意什么|"
              # how many brews, how much to put in: any verb of use with a count (一泡能续几回, 放几克茶叶, 用量)
              r"几[回遍道泡]|多少[次回遍道泡]|续(?:几|多少|水|杯|泡)|能续|[放用加投搁挤涂抹擦喷倒敷](?:几|多少)(?![久长天年月])(?:克|g|勺|片|包|粒|颗|袋)?|用量|投茶量|"
              r"怎么[涂抹擦敷挤]|[涂抹擦敷]多少|[涂抹擦敷](?:几|多)[次遍]|"
              r"茶水比|比例",
              r"泡|水温|度|毫升|克|次|用"),
    "shelf_life": (r"保质期|shelflife|expir|保质|保存期|有效期|保鲜期|赏味期|能放多久|放多久|放多长|多久过期|过期|保存多久|存多久|存放多久|"
                   r"能放多长时间|能存多长|能保存多|放久了|多久会坏|会不会坏|会坏吗|放坏|变质|开封后|"
                   # the state it must keep (放多久不坏, 多久不变味): the slot's own words, not a topic
                   r"不会?坏|坏掉|不会?变质|不会?过期|不会?变味|不会?走味|不会?发霉|"
                   # opened in any verb (打开盖子以后多久得喝完, 拆开了能放几天): 开封 with how long
                   r"(?:开盖|打开|拆开|开罐|开袋|开封|拆封)[\u4e00-\u9fff]{0,4}?(?:以后|之后|后|了)[\u4e00-\u9fff]{0,3}"
                   r"(?:多久|多长|几天|几个月|什么时候|啥时候|喝完|用完|吃完|放多)", r"保质期|个月|喝完|过期"),
    # how well it sells (卖得好不好, 买的人多吗): the KB's own words on it (回购的老客很多), never a claim of its own
    "sales": (r"卖得(?:好不好|好|怎么样|咋样|火|多|快)|好卖|销量|销售(?:量|额|情况)|买的人(?:多|少)|(?:多少|很多|好多)人买|火不火|热销|"
              r"受欢迎|人气|回购|复购|卖了多少|卖出(?:多少|去)", r"回购|复购|销量|老客|卖"),
    "storage": (r"怎么保存|怎么存|储存|存放(?!多)|^保存$|保存(?:方法|方式|条件|环境)|冷藏|冷冻|冰箱|常温|受潮|保存方法|怎么放|放哪|放在哪|怎么收藏|防潮|"
                # a place in the home it would be kept (囤货放阳台行不行, 放车里会坏吗)
                r"(?:放|搁|存|堆)(?:在)?(?:阳台|厨房|卫生间|浴室|车里|车上|后备箱|地下室|储物间|柜子里?|仓库)",
                r"密封|冷藏|冷冻|储存|存放|避光|保存|常温|阴凉|干燥"),
    "origin": (r"产地|哪里产|哪产|哪里的|哪儿的|产自|哪里生产|哪个地方|哪的|原产|出自|哪里出|哪里种|哪种的|哪个省|哪座山|"
               r"哪(?:个|座|片)?(?:山|省|市|县|国家|产区)|madein|wherefrom|origin", r"产"),
    "weight": (r"多重|重多少|有多重|(?<![放用加投搁])几克|(?<![放用加投搁])多少克|重量|重不重|沉不沉|多沉|沉吗|重吗|轻不轻|轻吗|weight|howheavy|净含量|净重|毛重|克重|多少斤|几斤|分量|多少量|多少g|几g|几两", r"克|斤|重|净含量"),
    # what it bears, apart from what it weighs (我一百八十斤能坐不, 承重多少, 会不会坐塌)
    "load": (r"承重|载重|承受|坐得住|坐坏|坐塌|压坏|压塌|胖子|[一二两三四五六七八九十百\d]+斤(?:的人)?(?:能|可以)?(?:坐|躺|站|承受)",
             r"承重|载重|承受|负重|限重"),
    # water on it (下雨天放外面没事吧, 洒了咖啡能擦掉吗): what the facts say of water
    "water": (r"防水|淋[一点些了下个]{0,2}雨|淋湿|泡水|进水|沾水|打湿|湿了|[洒泼溅][了上到]|"
              r"(?:下雨|雨天)[\u4e00-\u9fff]{0,6}(?:能|可以|行|没事|要紧|怕|会|用)", r"防水|泼水|淋雨|泡水|进水|沾水|水洗|防污"),
    # a deal for more than one (买俩有优惠没, 拍两件便宜点吗)
    "bundle": (r"(?:买|拍|来|要)(?:俩|两|二|三|几)[个件把套台支瓶盒份]?[\u4e00-\u9fff]{0,4}(?:优惠|便宜|减|折|送|划算)|多买|第二件",
               r"(?:拍|买|第)[两二三四五2-5][\u4e00-\u9fff]{0,3}(?:再|立|减|打|送|折|优惠)|满\d+减|多买|第二件|[一二三四五六七八九]五?折"),
    # taken along (徒步能装包里带走吗, 好带吗): how small it packs
    "carry": (r"(?:装|放|塞)(?:进|到|在)?(?:包|背包|书包|行李箱|后备箱)|好带|便携|方便带|带出去|带走|背着|携带",
              r"背包|收纳后|便携|折叠后|侧袋|后备箱|行李箱"),
    # putting it up and away (装起来麻烦不, 好装吗, 怎么折)
    "assembly": (r"安装|组装|装起来|拼装|难装|装好|搭起来|展开|折叠起来|怎么折", r"安装|组装|装好|展开|折叠|收纳后|套进|步骤"),
    # (多大的猫能用 asks an age, not a size)
    "capacity": (r"容量|(?<!穿)多大(?!码|年纪|岁数|了|的?(?:猫|狗|宠物|猫咪|狗狗|幼猫|小猫|奶猫|幼犬|小狗|宝宝|孩子|小孩|娃|人))|能装多少|能装几|装几|多少毫升|装多少|capacity", r"毫升|容量|升"),
    # which price: the list price is not the live-room price (原价多少 → 日常价128元)
    "list_price": (r"原价|日常价|(?:平时|平常|平日|不(?:开|做|搞|参加)?(?:直播|活动|优惠|大促))[\u4e00-\u9fff]{0,8}?(?:卖|多少钱|什么价|啥价|价格|价钱)|吊牌价|专柜价|市场价|划线价|官方价|正价",
                   r"日常价|原价|吊牌价|专柜价|市场价|划线价|官方价|正价|平时"),
    # clothes and shoes: which size for which body (一米七五穿什么码, 130斤穿多大)
    "size": (r"尺码|码数|size|几个码|什么码|多大码|几码|大码|小码|穿多大|穿什么|偏大|偏小|合身|身高|体重|尺寸|"
             r"[一二两三四五六七八九十百\d]+斤(?:的)?(?:能)?穿|一米[五六七八九][一二三四五六七八九]?|1[4-9]\d\s*(?:cm|厘米)?(?:的)?(?:能)?穿",
             r"码|尺码|身高|尺寸|\b(?:[SMLsml]|[Xx]+[Ll])\b"),
    # washing and care (怎么洗, 能机洗吗, 多少度洗), and what washing does to it (会缩水吗, 掉色吗): two questions
    "care": (r"怎么洗|洗涤|清洗|机洗|手洗|水洗|干洗|怎么清洁|能洗|洗碗机|保养|晾晒|熨烫|洗(?:吗|不|呢)?$",
             r"洗|晾|清洁|保养|熨"),
    "wear": (r"缩水|缩不缩|掉色|褪色|掉不掉色|起球|变形|掉毛|起皱", r"缩水|掉色|褪色|起球|变形|掉毛|起皱|预缩"),
    # a colour named in the question (有粉色吗, 黑的有没有) asks which colours there are
    "color": (r"颜色|colou?r|什么色|几种色|几个色|[红橙黄绿青蓝紫粉黑白灰棕金银米咖]色|[红黄绿蓝紫粉黑白灰]的(?:有|还有)|配色", r"色|[红黄绿蓝紫粉黑白灰]"),
    # how it tastes, how good it is, whether it is genuine, what it does, how to pay: a bare topic word is a question
    # too in live chat ("口感", "正品", "分期")
    "taste": (r"口味|口感|味道|好不好喝|好喝吗|好喝不|([酸甜苦辣麻咸香脆软硬浓淡涩])不\1|[酸甜苦辣麻咸脆涩]吗|什么味|啥味|好吃吗|好不好吃",
              r"口感|口味|味|香|甜|苦|涩|回甘|清爽|醇|辣|麻|咸|酸|脆|软|嫩"),
    # what is in it (配料, 有防腐剂吗, 含糖吗)
    "ingredients": (r"配料|成分|添加剂|防腐剂|含糖|含不含|有没有添加|原料|添加了?什么|糖分|有糖|含(?:盐|油|奶|麸质|酒精)",
                    r"配料|成分|添加|原料|糖|盐|防腐"),
    "quality": (r"^(?:品质|质量|做工|品牌|用料)(?:怎么样|如何|咋样|好吗|好不好)?$|质量(?:怎么样|如何|咋样|好吗|好不好)|品质(?:怎么样|如何)|"
                r"做工(?:怎么样|如何)|什么牌子|哪个牌子|品牌是",
                r"品质|质量|做工|品牌|等级|特级|材质"),
    "authentic": (r"正品|真假|是真的吗|假货|假的吗|正不正宗|正宗吗|有授权|授权店|官方授权|官方(?:店|旗舰)?吗|保真|正规|批文|备案|注册证|资质|检测报告|验真|防伪",
                  r"正品|正宗|授权|官方|保真|注册|备案|防伪|验真|证"),
    "effect": (r"功效|作用|好处|有什么用|有啥用|效果(?:怎么样|如何|好吗)?$", r"功效|作用|好处|有助|适合"),
    # how to pay, in parts (分开付, 分几次付); paying on delivery (到了再给钱, 收到货再付) is a slot of its own, answered by the
    # fact on 货到付款, not by the instalments that share 付款
    "payment": (r"分期|花呗|白条|信用卡|付款方式|怎么付|怎么付款|微信支付|支付宝|分(?:开|几次|次|批)(?:付|给钱|交)",
                r"分期|付款|花呗|支付|货到付款"),
    "cod": (r"货到付款|到付|先用后付|先喝后付|先试后买|(?:到|收到|收货|拿到|送到)[\u4e00-\u9fff]{0,3}(?:再|后|了)(?:给钱|付钱|付款|付|给)",
            r"货到付款|到付|先用后付"),
    "invoice": (r"发票|开票|专票|普票|报销|有票|票能开|电子票|invoice|receipt", r"发票"),
    # a buy-X-get-Y deal named (买一送一吗, 宣布买一罐送十罐) asks what comes with it: the KB's gift answers
    "gift": (r"赠品|送什么|送东西|送啥|送(?:的|了)(?:啥|什么)|gift|有送|附赠|赠送|送不送|礼品|小礼物|福利送|额外送|"
             r"买[一两二三四五六七八九十\d]+[罐瓶个盒件只套袋包份箱]?送[一两二三四五六七八九十\d]+",
             # (what comes in the box answers "送不送手套" too: 送 is also "comes with")
             r"赠|送|包装内含|内含|标配|附带|随机附"),
    "warranty": (r"保修|质保|坏了(?!吗)|维修|保固|warranty", r"保修|质保"),
    # how many are left (还有货吗, 剩几件, 卖完了吗): the stock the operator sets, when the show knows it
    # how many one may buy (最多能买几袋, 能拍三台不, 囤十支行不行): the facts' purchase limit
    "limit": (r"限购|最多(?:能|可以)?(?:买|拍|下单)|(?:能|可以)(?:拍|买|囤|下)[一两二三四五六七八九十几\d]+[个台件支瓶盒袋罐包套份单]|"
              r"囤[一两二三四五六七八九十几\d]+[个台件支瓶盒袋罐包套份箱]|一人(?:能|可以)?(?:买|拍)几|每人(?:能|可以)?(?:买|拍)|"
              # a quantity one means to buy, asked whether it may be (一次买十箱囤着 可以不, 拍二十个行吗)
              r"(?:买|拍|囤|下单?|来)[一两二三四五六七八九十几百\d]+[个台件支瓶盒袋罐包套份单箱把张][^，,。？?]{0,8}?(?:可以|行|能)(?:不|吗|么|嘛|不行|不可以|$)",
              r"限购|每(?:人|个账号|个ID|单)限|最多|仅限"),
    "stock": (r"库存|还有货|有货吗|有没有货|还剩|剩几|剩多少|卖完|售罄|抢完|断货|缺货|现货|还能买|还能抢", r"库存|现货|剩|售罄|卖完"),
    "keep_warm": (r"保温(?![杯壶瓶桶箱袋盒])|保冷|(?<![质确担环])保(?:几|多少|多久|多长)|(?:热|冰|凉)(?:的|水)?能(?:放|保持|维持)", r"保温|保冷|小时"),
    "grade": (r"等级|什么级|几级|品级|档次|级别", r"级"),
    # what it is made of, a material named (是纯棉的吗, 是不是不锈钢的), how thick
    "packaging": (r"包装|什么装的|罐装|袋装|盒装|瓶装", r"[罐袋盒瓶]装|包装"),
    "material": (r"材质|什么材料|什么做的|材料|什么钢|用料|面料|布料|料子|什么料|"
                 r"是[\u4e00-\u9fff]{0,3}(?:棉|麻|丝|毛|绒|涤纶|钢|铁|铝|玻璃|陶瓷|塑料|皮|木|竹)的|(?:是不是|是)?纯[\u4e00-\u9fff]{1,4}?的|厚不厚|薄不薄|透不透|厚度|多厚|厚吗|薄吗|透吗",
                 r"材质|材料|原料|成分|钢|铁|铝|玻璃|陶瓷|塑料|硅胶|竹|木|纸|棉|麻|丝|毛|绒|涤纶|尼龙|牛津布|帆布|棉布|麻布|无纺布|网布|绒布|布料|皮|面料|克重|厚|薄"),
}
_SLOT_Q = {s: re.compile(q) for s, (q, _) in SLOTS.items()}
_SLOT_EVIDENCE = {s: re.compile(e) for s, (_, e) in SLOTS.items()}
_QUESTION_WORDS = re.compile(
    # who/when fillers that are not the topic (买回去能放多久, 要不要自己付运费), before 要/不 alone
    r"买回[去来家]?|拿回去|回去|回家|收到后|"
    # which way it travels is not what it is about (寄过来要运费不, 发过去几天)
    r"过来|过去|回来|到家里?|要不要|需不需要|用不用|自己出|自己|付|掏|入手|合适|一共|总共|"
    # where the buyer is qualifies a shipping question, it is not what it is about (偏远地区要运费吗)
    # a quantity bought is a qualifier of a price question, not its topic (买两罐啥价, 拍三盒怎么算)
    r"(?:买|拍|下单|订|入|来)(?=[一二两三四五六七八九十\d几]+[罐瓶盒件只套袋包斤])|[一二两三四五六七八九十\d几]+[罐瓶盒件只套袋包斤]装?|"
    r"偏远地区|偏远|地区|新疆|西藏|内蒙古?|青海|宁夏|甘肃|海南|港澳台|香港|澳门|台湾|国外|海外|农村|乡下|山区|外地|外省|省内|省外|"
    + "|".join(q for q, _ in SLOTS.values())
    + r"|多长时间|多久|多长|时间|几天|几个|比较|好喝|好用|一点|怎样|如何|弄|办|搞|咋|啥|哪|吗|呢|呀|啊|吧|的|了|要|能|可以|"
    r"谁出|谁付|谁承担|谁来出|要钱|收费|收不收|算谁的|"
    # a closing 不/没/没有 makes a yes-no question (要运费不, 有赠品没有); buying together says how, not what (一起拍)
    r"(?:不|没|没有|么|嘛)$|一起|一块儿?|合起来|加起来|拍|下单|"
    # who pays a charge is part of asking about it (要不要出运费, 补邮费吗)
    r"[出付掏给交补](?=运费|邮费|快递费|差价)|怎么算|咋算|如何算|怎么收|"
    # a serving says how much per use, not what about (一杯放几克, 每次泡多久)
    r"[一每](?:杯|次|壶|泡|回)|"
    r"怎么|什么|多少|有|是|这|那|个|款|请问|主播|一下|[一二两三四五六七八九十\d]"
)
# Words added to a question for retrieval, so "什么时候发" finds the passage that says 发货.
SLOT_TERMS: dict[str, str] = {
    "price": "价格 价 元", "postage": "包邮 运费", "shipping": "发货 快递", "returns": "退换货 退货", "howto": "冲泡 水温 用法",
    "shelf_life": "保质期 开封", "sales": "销量 回购", "storage": "储存 密封 存放 保存 常温", "origin": "产地 产自", "weight": "净含量 重量 克", "capacity": "容量 毫升",
    "color": "颜色", "list_price": "日常价 原价", "size": "尺码 码 身高", "care": "洗涤 清洗", "wear": "缩水 掉色", "taste": "口感 味道 口味", "ingredients": "配料 成分", "quality": "品质 质量",
    "authentic": "正品 授权", "effect": "功效 作用", "payment": "付款 分期", "cod": "货到付款",
    "no_reason": "无理由", "contents": "包装内含 包含", "invoice": "发票", "gift": "赠品 附赠 赠送", "warranty": "保修", "keep_warm": "保温 小时", "grade": "等级", "stock": "库存 现货", "limit": "限购",
    "material": "材质 材料 包装 面料", "packaging": "包装", "load": "承重", "water": "防水", "carry": "收纳", "assembly": "安装", "suitable": "适合 适用 人群",  # only the words the KB uses are added (see KnowledgeBase.retrieve_sync)
}
# How close two question keys must be for an edit-tolerant match when neither has a slot.
KEY_SIMILARITY = 0.75
# Share of a question's topic characters an FAQ entry (its questions and answer) must contain.
TOPIC_COVERAGE = 0.6


def _sound(key: str) -> str:
    """A question key as it sounds (toneless pinyin), so a homophone typo keys the same."""
    return " ".join(lazy_pinyin(key))


def slots(text: str) -> set[str]:
    """The slots a question asks for (possibly several, possibly none); an English text's by the English words too
    (intent_en.py)."""
    key = question_key(text)
    found = {s for s, rx in _SLOT_Q.items() if rx.search(key)}
    if "list_price" in found:
        found.discard("price")  # which price is asked: the list price, not the live room's (平时卖多少 → 日常价)
    return found | slots_en(text) if english(text) else found


def topic(text: str) -> str:
    """What a question is about, without its question-type words and fillers ("杯盖多少钱" → "杯盖")."""
    return _QUESTION_WORDS.sub("", question_key(text))


def retrieval_query(question: str, known: Callable[[str], bool] | None = None) -> str:
    """The question with its slots' words added (what to search the passages for); with `known`, only the words the
    passages use (a word they never use would only lower every passage's match)."""
    terms = {**SLOT_TERMS, **SLOT_TERMS_EN} if english(question) else SLOT_TERMS
    words = [w for s in sorted(slots(question)) if s in terms for w in terms[s].split()]
    extra = " ".join(w for w in dict.fromkeys(words) if known is None or known(w))
    return f"{question} {extra}" if extra else question


# What the price is now (到手价, 直播间价, 活动价): a price question not asking the list price asks this one.
_LIVE_PRICE = re.compile(r"到手|直播间|活动|券后|秒杀|现价|特价|福利价|优惠价|折后|拍下|今天|现在")


def evidence(slot: str, sentence: str) -> bool:
    if slot == "price" and _SLOT_EVIDENCE["list_price"].search(sentence) and not _LIVE_PRICE.search(sentence):
        return False  # a list price alone (日常价129元) does not say what it costs now
    if slot == "weight" and _SLOT_EVIDENCE["load"].search(sentence) and not re.search(r"净重|重量|毛重|自重|净含量", sentence):
        return False  # what it bears (承重120千克) is not what it weighs
    rx = _SLOT_EVIDENCE.get(slot)
    return bool(rx is not None and rx.search(sentence)) or (english(sentence) and evidence_en(slot, sentence))


# The unit a quantity question asks in, as guard.figures names units (几克 → 克, 续几回 → a count of brews): of two
# sentences that answer the slot, the one stating a figure in that unit answers it ("放几克茶叶" → "3克茶叶…", not
# "净含量250克" unless the topic says so; "能续几回" → "续水3次").
_COUNTS = frozenset({"count:次", "count:回", "count:遍", "count:道", "count:泡"})
_ASKED_UNITS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple((re.compile(rx), frozenset(u)) for rx, u in (
    # (how heavy in any words: 怕太重, 沉不沉, 拿得动吗)
    (r"(?:几|多少)(?:克|g)|多重|重多少|多少斤|几斤|几两|净含量|重量|克重|太重|重不重|重吗|多沉|沉不沉|沉吗|太沉|轻不轻|"
     r"轻吗|分量|[拿搬举提]得动|[拿搬举提]不动", {"克"}),
    # (how much power: 几度电, 耗电多少, 电费)
    (r"(?:几|多少)度电|(?:耗|用|费)(?:电|几度|多少)|电费|费不费电|耗电", {"千瓦时"}),
    (r"(?:几|多少)度(?!电)|水温|多热|多烫", {"度"}),
    (r"(?:几|多少)[次回遍道泡]|续(?:几|多少)", _COUNTS),
    (r"(?:几|多少)个?(?:分钟|秒|小时|钟头)|泡多久|泡多长|闷多久", {"分钟", "秒"}),
    # how far: a distance (离开手机多远会断 → 10米)
    (r"多远|多长距离|距离多少|隔多远", {"毫米"}),
    # how long, said with where it must fit (多长啊 能塞行李箱不): a length, not a time
    (r"多长.{0,10}(?<!鼻)塞(?!车)|(?<!鼻)塞(?!车).{0,10}多长|多长.{0,8}(?:放得下|放进|装进)", {"毫米"}),
    # how big the thing is, in any of its dimensions (有多高, 多宽, 占地方吗, 塞得进吊柜吗) → the fact with its 厘米
    (r"多[高宽厚粗深]|[高宽厚深]度|[长宽高]多少|尺寸|长宽高|个头|占(?:不占)?地方|占地|放得下|放不下|(?<!鼻)塞(?!车)|"
     r"多大(?:个|的个)|体积", {"毫米"}),
    # how long, in any unit of time: the fact that states a duration answers it (多久发货 → 48小时内, 能听多久 → 6小时)
    (r"多久|多长时间|多长|多快|几时", {"分钟", "秒", "天", "月"}),
    (r"(?:几|多少)个?(?:天|工作日)", {"天"}),
    (r"(?:几|多少)个?月|几年|多少年", {"月"}),
    # how old (多大的猫能用, 几个月大可以用): an age, in months or years
    (r"多大(?:的|了)?(?:猫|狗|宠物|猫咪|狗狗|幼猫|小猫|奶猫|幼犬|小狗|宝宝|孩子|小孩|娃|人)|几个?月大|多大年纪|几岁|多少岁", {"月", "岁"}),
    (r"(?:几|多少)(?:毫升|ml|升)|容量|装多少", {"毫升"}),
    (r"多少钱|几块|几元|价|多少一|卖多少|[罐瓶盒件只套袋包份箱]装?[^克度杯次回遍]{0,6}多少$", {"元"}),
    (r"(?:几|多少)杯", {"count:杯"}),
))


def asked_units(text: str) -> frozenset[str]:
    """The units a quantity question asks in (empty when it asks none)."""
    key = question_key(text)
    found = [u for rx, u in _ASKED_UNITS if rx.search(key)]
    if {"毫米"} in found and "多长" in key and not re.search(r"多久|多长时间", key):
        return frozenset({"毫米"})  # 多长 with a fit or a dimension is a length
    return frozenset().union(*found)


def states_unit(units: frozenset[str], sentence: str) -> bool:
    """Whether the sentence states a figure in one of the units."""
    return bool(units) and any(f.unit in units for f in figures(sentence))


# A yes-no, wh- or either-or question by its form, however short ("一泡能续几回", "要运费不", "茶匙还有吗", "炒的还是蒸的"):
# it asks the shop something even when no slot names it, unlike a remark ("主播好美"). The director files a chat
# line as a question or a comment by it; the brain sends a weakly matched question to the model by it.
_QUESTION_FORM = re.compile(
    r"[?？]|吗|呢|么|多少|几[个天号点时度克分次回遍岁斤两年月周罐杯盒件种款袋包瓶支条片粒颗只双套箱台张份代层档级期米寸码]|怎么|怎样|如何|什么|哪|为什么|为啥|谁|能不能|"
    r"可不可以|可以吗|有没有|是不是|要不要|会不会|好不好|对不对|请问|咋|啥|多[大久重长高远宽厚]|([\u4e00-\u9fff])不\1|"
    r"还是|真的假的|几钿|好多钱|系咪|咩|"
    r"(?:嘛|不|没|没有|几|(?:对|是|好|行|可以)吧|(?:能|可以|会)[\u4e00-\u9fff]{1,3}吧)[啊呀哦呢]?[\s~～!！。.]*$|"
    # …or at the end of the asking clause, the reason after it ("线够长不 插座离衣柜有点远", "有货没，想买两个")
    r"[\u4e00-\u9fff](?<![我你他她它们也都还天])(?:不|没|没有)[啊呀哦呢]?(?=[\s，,；;]+[\u4e00-\u9fff])|"
    r"\b(?:how|what|when|where|why|which|can|does|is there)\b",
    re.IGNORECASE,
)


def is_question(text: str, *, normalized: bool = False, language: str = "zh") -> bool:
    """Whether a comment is a question by its form; `normalized`: `text` is already textnorm.normalize()d. In an English
    room (`language` en) an English comment's form is read with the English lists too (intent_en.is_question_en)."""
    if _QUESTION_FORM.search((text if normalized else normalize(text)).strip()):
        return True
    return language == "en" and english(text) and is_question_en(text)


@dataclass(frozen=True, slots=True)
class FaqMatch:
    question: str  # the FAQ question it matched
    answer: str
    passage_id: str
    score: float
    why: str  # "slot price, topic 茶 covered" | "key similarity 0.82"


class FaqMatcher:
    """Finds the FAQ entry a question means, by slot and topic, or by an edit-tolerant key."""

    def __init__(self, pairs: Sequence[tuple[str, str, str]], passages: Sequence[str] = ()) -> None:
        # How specific each character is to a few passages: a topic character most passages share
        # ("茶" in a tea shop's KB) says little about which entry is meant.
        docs = [set(p) for p in passages] or [set(a) for _, a, _ in pairs]
        n = max(1, len(docs))
        df: dict[str, int] = {}
        for d in docs:
            for c in d:
                df[c] = df.get(c, 0) + 1
        self._idf = {c: math.log(1 + n / k) for c, k in df.items()}
        self._idf_unknown = math.log(1 + n)
        self.entries: list[tuple[str, str, str, str, set[str], str]] = []
        for q, a, pid in pairs:
            self.entries.append((q, a, pid, question_key(q), slots(q), topic(q)))
        self._sounds = [_sound(e[3]) for e in self.entries]
        # Everything an entry's questions and answer say, per answer: the topic words it covers.
        self._context: dict[str, str] = {}
        for q, a, *_ in self.entries:
            self._context[a] = self._context.get(a, a) + question_key(q)

    def match(self, question: str) -> FaqMatch | None:
        key = question_key(question)
        if not key or not self.entries:
            return None
        q_slots = slots(question)
        q_topic = topic(question)
        units = asked_units(question)
        best: FaqMatch | None = None
        sound = _sound(key) if not q_slots else ""
        for (q, a, pid, fkey, f_slots, _f_topic), f_sound in zip(self.entries, self._sounds, strict=True):
            if fkey == key:
                return FaqMatch(q, a, pid, 2.0, "same question")
            if sound and sound == f_sound and len(key) >= 2:
                # the same question typed with a homophone ("包油吗" for "包邮吗"): the typo took its slot word
                best = FaqMatch(q, a, pid, 1.9, "same sound")
                continue
            score, why = 0.0, ""
            if q_slots and f_slots and q_slots & f_slots:
                context = self._context[a]
                covered = self._coverage(q_topic, context)
                if covered >= TOPIC_COVERAGE:
                    score = 1.0 + covered * 0.5 + len(q_slots & f_slots) * 0.1 - 0.01 * len(fkey)
                    why = f"slot {'/'.join(sorted(q_slots & f_slots))}, topic {q_topic or '-'} covered {covered:.0%}"
                    if states_unit(units, a):  # the entry states the figure in the unit asked ("几回" → "续水3次")
                        score += 0.2
                        why += f", states {'/'.join(sorted(units))}"
            if not score:
                sim = fuzz.ratio(key, fkey) / 100.0
                # Typos and small rewordings; a question whose slot matched but whose topic did not
                # ("杯盖多少钱" vs "杯子多少钱") is about something else.
                if sim >= KEY_SIMILARITY and (not q_slots or not f_slots):
                    score, why = sim, f"key similarity {sim:.2f}"
            if score and (best is None or score > best.score):
                best = FaqMatch(q, a, pid, score, why)
        return best

    def _coverage(self, topic_chars: str, context: str) -> float:
        """IDF-weighted share of the topic's characters the entry mentions (1.0 for an empty topic)."""
        if not topic_chars:
            return 1.0
        weights = [(c, self._idf.get(c, self._idf_unknown)) for c in dict.fromkeys(topic_chars)]
        total = sum(w for _, w in weights)
        return sum(w for c, w in weights if c in context) / total if total else 1.0


# Characters that carry the form of a question, not what it asks about (see same_content).
_FORM_CHARS = frozenset("的了吗呢吧啊呀啦哦嘛么是有能会要想还请问一下个这那不没可以怎样什多少几啥咋如何哪呐哈嗯诶哎额")


def same_content(a: str, b: str) -> bool:
    """Whether two question keys ask about the same things: the same characters once the question's form is set
    aside, but for one added on one side ("洗碗机能不能洗杯子" / "杯子能不能进洗碗机": 进). A place, a size, a colour or a
    product swapped for another ("新疆包邮吗" / "西藏包邮吗", "红色有吗" / "蓝色有吗") makes another question whatever
    an embedding says."""
    ca, cb = {c for c in a if c not in _FORM_CHARS}, {c for c in b if c not in _FORM_CHARS}
    return len(ca ^ cb) <= 1
