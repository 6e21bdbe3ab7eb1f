"""Page URLs, mDNS name, QR codes as terminal text and SVG, the start-up banner."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from companion.service.addresses import interface_ipv4, lan_ipv4, mdns_name, page_urls
from companion.service.banner import qr_target, startup_banner
from companion.service.qr import qr_matrix, qr_svg, qr_text

URL = "http://192.168.1.20:8000/"


def test_mdns_name() -> None:
    assert mdns_name("Dingo") == "dingo.local"
    assert mdns_name("dingo.lan") == "dingo.local"
    with pytest.raises(ValueError, match="host name is empty"):
        mdns_name("")


def test_page_urls_wildcard_lists_name_then_addresses() -> None:
    urls = page_urls(8000, "0.0.0.0", hostname="dingo", addresses=["192.168.1.20", "10.0.0.5"])
    assert urls == ["http://dingo.local:8000/", "http://192.168.1.20:8000/", "http://10.0.0.5:8000/"]
    assert page_urls(80, "::", hostname="dingo", addresses=[]) == ["http://dingo.local/"]


def test_page_urls_specific_host_is_only_itself() -> None:
    assert page_urls(8000, "127.0.0.1") == ["http://127.0.0.1:8000/"]
    assert page_urls(8000, "fd00::2") == ["http://[fd00::2]:8000/"]
    with pytest.raises(ValueError, match="port"):
        page_urls(0)


def test_interfaces_are_read_from_the_kernel() -> None:
    found = interface_ipv4()
    assert found.get("lo") == "127.0.0.1"  # every Linux box has loopback
    assert "127.0.0.1" not in lan_ipv4()
    assert all(not a.startswith("169.254.") for a in lan_ipv4())


def test_qr_text_has_the_matrix_in_half_blocks() -> None:
    matrix = qr_matrix(URL)
    text = qr_text(URL, invert=False)
    rows = text.splitlines()
    assert len(rows) == (len(matrix) + 1) // 2 and all(len(r) == len(matrix) for r in rows)
    decoded: list[list[bool]] = []
    for row in rows:
        decoded.append([c in "\u2580\u2588" for c in row])
        decoded.append([c in "\u2584\u2588" for c in row])
    assert decoded[: len(matrix)] == matrix
    # inverted: every module flipped
    inverted = qr_text(URL).splitlines()
    assert inverted[0] == "\u2588" * len(matrix)  # the quiet zone shows as light-on-dark blocks


def test_qr_svg_draws_exactly_the_dark_modules() -> None:
    matrix = qr_matrix(URL)
    svg = qr_svg(URL, size_px=240, title='page "A" & B')
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root.get("width") == "240"
    assert root.get("aria-label") == 'page "A" & B'
    path = root.find(f"{ns}path")
    assert path is not None
    dark: set[tuple[int, int]] = set()
    for run in path.get("d", "").split("z")[:-1]:
        head, rest = run[1:].split("h", 1)
        x, y = map(int, head.split())
        width = int(rest.split("v")[0])
        dark |= {(x + i, y) for i in range(width)}
    expected = {(x, y) for y, row in enumerate(matrix) for x, cell in enumerate(row) if cell}
    assert dark == expected


def test_qr_bad_input() -> None:
    with pytest.raises(ValueError, match="empty"):
        qr_text("")
    with pytest.raises(ValueError, match="border"):
        qr_svg(URL, border=-1)


def test_banner_names_every_url_and_codes_the_numeric_one() -> None:
    text = startup_banner(8000, hostname="dingo", addresses=["192.168.1.20"])
    assert "http://dingo.local:8000/" in text and URL in text
    assert f"scan this code ({URL})" in text
    assert text.endswith(qr_text(URL))
    assert qr_target(["http://dingo.local:8000/"]) == "http://dingo.local:8000/"
    assert "scan" not in startup_banner(8000, qr=False, hostname="dingo", addresses=[])


def test_page_qr_svg_for_the_web_page() -> None:
    from companion.service.banner import page_qr_svg

    url, svg = page_qr_svg(8000, hostname="dingo", addresses=["192.168.1.20"])
    assert url == URL
    root = ET.fromstring(svg)
    assert root.get("width") == "240" and root.get("aria-label") == f"QR code: {URL}"
