"""Places a shop ships to apart: the regions facts charge extra or do not serve, and the mainland's other places.

A shop's facts name the regions they treat apart (新疆、西藏 加收运费, 港澳台及海外暂不发货); a viewer names a city or a
province ("乌鲁木齐包邮不", "江浙沪免运费吗"). `regions_in` reads the special regions by any of their names;
`names_mainland` says a text names some other mainland place, for which the general rule (全国包邮) holds.
"""

from __future__ import annotations

import re

_REGIONS = {
    "新疆": ("新疆", "乌鲁木齐", "喀什", "伊犁", "克拉玛依", "吐鲁番"),
    "西藏": ("西藏", "拉萨", "日喀则", "林芝", "阿里"),
    "青海": ("青海", "西宁", "格尔木"),
    "内蒙古": ("内蒙古", "内蒙", "呼和浩特", "包头", "鄂尔多斯", "赤峰"),
    "宁夏": ("宁夏", "银川"),
    "甘肃": ("甘肃", "兰州", "敦煌"),
    "海南": ("海南", "海口", "三亚"),
    "香港": ("香港", "港"),
    "澳门": ("澳门", "澳"),
    "台湾": ("台湾", "台北", "高雄", "台"),
    "海外": ("海外", "国外", "境外", "外国", "美国", "日本", "韩国", "新加坡", "马来西亚", "澳洲", "加拿大", "英国",
             "澳大利亚", "新西兰", "泰国", "越南", "菲律宾", "印尼", "印度尼西亚", "柬埔寨", "缅甸", "老挝", "印度", "迪拜",
             "阿联酋", "沙特", "德国", "法国", "意大利", "西班牙", "荷兰", "瑞士", "瑞典", "俄罗斯", "巴西", "墨西哥", "阿根廷",
             "纽约", "洛杉矶", "旧金山", "多伦多", "温哥华", "伦敦", "巴黎", "东京", "大阪", "首尔", "悉尼", "墨尔本", "曼谷"),
}
_REGION_GROUPS = {"港澳台": ("香港", "澳门", "台湾"), "偏远地区": ("新疆", "西藏", "青海", "内蒙古"), "港澳": ("香港", "澳门")}
# Words that charge a region extra or do not serve it (the facts' exceptions to their general rule).
LIMITING = re.compile(r"加收|另收|需加|要加|补运费|不包邮|暂不发|不发货|不配送|不送|除外|不支持|暂不支持|无法")
# The mainland's provinces, their short names in shipping talk and the groups shops use (江浙沪, 珠三角): a viewer naming
# one asks about the general rule, not about the regions the facts except.
_MAINLAND = re.compile(
    r"北京|天津|上海|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|广西|四川|贵州|云南|陕西|"
    r"江浙沪|江浙|珠三角|长三角|京津冀|东北|华北|华东|华南|华中|西南|两广|川渝|"
    r"广州|深圳|杭州|南京|苏州|武汉|成都|西安|长沙|郑州|济南|青岛|沈阳|大连|哈尔滨|长春|石家庄|太原|合肥|福州|厦门|南昌|"
    r"南宁|贵阳|昆明|宁波|无锡|温州|东莞|佛山")
# Any place by a name of two characters or more: the mainland's and the special regions', longest first.
_NAMED = re.compile(_MAINLAND.pattern + "|" + "|".join(sorted({n for ns in _REGIONS.values() for n in ns if len(n) >= 2}, key=len, reverse=True)))


def regions_in(text: str) -> tuple[str, ...]:
    """The regions a text names, by region, city or group (港澳台 → 香港, 澳门, 台湾)."""
    found: list[str] = []
    for group, members in _REGION_GROUPS.items():
        if group in text:
            found.extend(members)
    for region, names in _REGIONS.items():
        if any(len(n) >= 2 and n in text for n in names):
            found.append(region)
    # one-character stand-ins only inside a group word (港澳台及海外): "台" alone is a stage or a counter
    return tuple(dict.fromkeys(found))


def spoken_regions(text: str) -> tuple[str, ...]:
    """regions_in, and a one-character stand-in said as a place (台湾 as 台北, 澳 in 港澳地区)."""
    found = list(regions_in(text))
    for region, names in _REGIONS.items():
        if region not in found and any(len(n) == 1 and re.search(rf"{n}(?:湾|澳|港|北|地区)", text) for n in names):
            found.append(region)
    return tuple(found)


def names_mainland(text: str) -> bool:
    """Whether a text names a mainland place other than the regions shops treat apart."""
    return _MAINLAND.search(text) is not None



def places_named(text: str) -> list[str]:
    """Every place a text names by a name of two characters or more (省, 城市, 国家), in order."""
    return _NAMED.findall(text)
