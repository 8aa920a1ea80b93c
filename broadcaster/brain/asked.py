"""What a question asks beyond its slot, for choosing the fact that answers it: whether it names a return policy's
exceptions, and the package a quantity is asked per."""

from __future__ import annotations

import re

# A return policy's exceptions (used goods, who pays the postage) answer a return question only when it names them: "不喜欢
# 能退吗", "退货有啥要求" ask the policy (支持七天无理由退换，需…), not 已使用过的不支持无理由退货 or 无理由退货运费由买家承担.
_EXCEPTION = re.compile(r"不支持[\u4e00-\u9fff\d]{0,4}无理由|不享受[\u4e00-\u9fff\d]{0,4}无理由|无理由[\u4e00-\u9fff]{0,4}(?:运费|邮费)|(?:运费|邮费)由")
_POLICY = re.compile(r"(?<!不)支持[\u4e00-\u9fff]{0,4}无理由|无理由[\u4e00-\u9fff]{0,4}(?:仅限|需)")  # (…with its exceptions)
_EXCEPTION_ASKED = re.compile(r"[用拆开穿洗煮吃喝试泡炒练铺戴坐](?:了|过)|已经|运费|邮费|谁出|谁付|谁承担|质量问题|坏")


def exception_only(wanted: set[str], fact: str, question: str) -> bool:
    """Whether a fact states only a return policy's exception the question does not name."""
    return bool(wanted & {"returns", "no_reason"}) and _EXCEPTION.search(fact) is not None \
        and _POLICY.search(fact) is None and _EXCEPTION_ASKED.search(question) is None


_PER = re.compile(r"([一每单])([箱盒袋包瓶罐支颗粒片])(?![\u4e00-\u9fff]{0,2}(?:元|块|价))")
_SAME_PACK = {"包": "包袋", "袋": "袋包", "盒": "盒罐", "罐": "罐盒", "颗": "颗粒", "粒": "粒颗"}


def per_package(text: str, by: str) -> set[str]:
    """The packages a text counts or weighs per (每箱, 一包, 单支: `by` the words that say per; a fact's 一箱 is a price's
    more often than a measure's), a package and its like (包 is 袋)."""
    return {c for m in _PER.finditer(text) if m.group(1) in by for c in _SAME_PACK.get(m.group(2), m.group(2))}
