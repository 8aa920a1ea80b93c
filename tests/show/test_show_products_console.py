"""The operator's product controls on a daemon whose room runs in its own worker process: the admin API (token
required), `virtual-anchor present ROOM PRODUCT`, and the console in headless Chromium (the product on screen, its
offer's countdown, the switcher, start an offer, set stock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from broadcaster.admin import PRODUCT_ROUTES
from tests.ops.ops_support import ADMIN_TOKEN, DaemonThread, request, small_room, wait_for, write_config
from tests.support.console import playwright, signed_in

ROOT = Path(__file__).resolve().parents[2]
FACTS = {"cup": "- 直播间到手价：169元\n- 限时秒杀价：149元\n- 容量：500毫升\n",
         "kettle": "- 直播间到手价：129元\n- 容量：1.7升\n",
         "towel": "- 直播间到手价：59元\n"}
NAMES = {"cup": "暖暖保温杯", "kettle": "轻语电热水壶", "towel": "云朵浴巾"}


def _products(tmp: Path) -> dict:
    items = []
    for pid, facts in FACTS.items():
        (tmp / f"{pid}.md").write_text(facts, encoding="utf-8")
        (tmp / f"{pid}.yaml").write_text(yaml.safe_dump({"segments": [{"name": "pitch", "lines": [
            "{product}，{price_label}{price}。", "{product}欢迎下单。"]}]}, allow_unicode=True), encoding="utf-8")
        items.append({"id": pid, "name": NAMES[pid], "facts": str(tmp / f"{pid}.md"), "price_key": "直播间到手价",
                      "talk": str(tmp / f"{pid}.yaml")})
    items[0]["offers"] = [{"id": "flash", "text": "限时秒杀", "minutes": 5, "price_key": "限时秒杀价"}]
    return {"items": items, "order": "manual"}


@pytest.fixture
def shop(tmp_path: Path):
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("shop", [], director={
        "products": _products(tmp_path)})], workers="process")
    d = DaemonThread(cfg).start()
    try:
        yield d
    finally:
        d.stop()


def _api(d: DaemonThread, method: str, path: str, body: dict | None = None, token: str | None = ADMIN_TOKEN):
    status, _, raw = request(method, d.url + path, token=token,
                             body=json.dumps(body).encode() if body is not None else None,
                             headers={"Content-Type": "application/json"} if body is not None else None)
    return status, json.loads(raw or b"null")


def _on_screen(d: DaemonThread) -> str | None:
    return (d.room("shop").status().get("products") or {}).get("on_screen")  # the worker's last heartbeat


def test_product_controls_through_the_worker_the_cli_and_the_console(shop: DaemonThread, sync_playwright) -> None:
    d = shop
    assert d.room("shop").worker_info()["mode"] == "process"
    assert wait_for(lambda: _on_screen(d) == "cup", 30)
    for i, (method, template) in enumerate(PRODUCT_ROUTES):  # (under the 10 failed tokens that lock an address out)
        path = template.format(room="shop", product="cup", offer="flash")
        token = None if i % 2 else "wrong"
        assert _api(d, method, path, {} if method == "POST" else None, token=token)[0] == 401, path
    status, view = _api(d, "GET", "/api/rooms/shop/products")
    assert status == 200 and [p["id"] for p in view["products"]["products"]] == ["cup", "kettle", "towel"]
    assert _api(d, "POST", "/api/rooms/shop/products/present", {"product": "mug"})[0] == 409
    assert _api(d, "POST", "/api/rooms/shop/products/present", {})[0] == 400
    assert _api(d, "POST", "/api/rooms/shop/products/cup/stock", {"stock": -2})[0] == 400
    assert _api(d, "POST", "/api/rooms/shop/products/cup/offers/none/start")[0] == 409

    # The command line: present a product, at the next line boundary.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "broadcaster.cli", "present", "shop", "towel", "--admin-url", d.url,
                           "--token", ADMIN_TOKEN], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "towel (云朵浴巾) comes on screen at the next line boundary" in done.stdout
    assert wait_for(lambda: _on_screen(d) == "towel", 30)
    refused = subprocess.run([sys.executable, "-m", "broadcaster.cli", "present", "shop", "mug", "--admin-url", d.url,
                              "--token", ADMIN_TOKEN], capture_output=True, text=True, env=env, timeout=60,
                             check=False)
    assert refused.returncode == 1 and "no product 'mug'" in refused.stderr

    # The console.
    with signed_in(sync_playwright, d.url, ADMIN_TOKEN) as page:
        page.wait_for_selector("#products-panel:not([hidden])", timeout=15000)
        page.wait_for_function("() => document.querySelectorAll('#products li').length === 3", timeout=10000)
        page.wait_for_function("() => document.getElementById('on-screen').textContent.includes('云朵浴巾')",
                               timeout=10000)
        cup = page.locator("#products li").nth(0)
        assert "暖暖保温杯" in cup.inner_text() and "169元" in cup.inner_text()
        cup.get_by_role("button", name="Start offer").click()
        page.wait_for_function(
            "() => /0[45]:[0-5][0-9]/.test(document.querySelector('#products li').textContent)", timeout=10000)
        assert "149元" in page.locator("#products li").nth(0).inner_text()  # the offer's price while it runs
        page.locator("#products li").nth(1).get_by_role("button", name="Present").click()
        page.wait_for_function("() => document.getElementById('on-screen').textContent.includes('On screen: 轻语电热水壶')",
                               timeout=30000)
        kettle = page.locator("#products li").nth(1)
        kettle.locator("input").fill("0")
        kettle.get_by_role("button", name="Set stock").click()
        page.wait_for_function("() => document.querySelectorAll('#products li')[1].textContent.includes('sold out')",
                               timeout=10000)
        cup.get_by_role("button", name="Stop offer").click()
        page.wait_for_function("() => document.querySelector('#products li').textContent.includes('ended')",
                               timeout=10000)
        page.click("#next-product")
        page.wait_for_function("() => document.getElementById('on-screen').textContent.includes('next: 云朵浴巾') || "
                               "document.getElementById('on-screen').textContent.includes('On screen: 云朵浴巾')",
                               timeout=10000)  # the kettle is sold out: the next in stock is the towel
    status, view = _api(d, "GET", "/api/rooms/shop/products")
    kettle_view = view["products"]["products"][1]
    assert kettle_view["stock"] == 0 and view["products"]["products"][0]["offers"][0]["state"] == "ended"


@pytest.fixture
def sync_playwright():
    with playwright() as pw:
        yield pw
