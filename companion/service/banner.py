"""The start-up text: where to open the page, with a QR code to scan."""

from __future__ import annotations

from companion.service.addresses import page_urls
from companion.service.qr import qr_text


def qr_target(urls: list[str]) -> str:
    """The URL the QR code should hold: the first numeric address if any, else the first URL.

    A numeric address works on every tablet; ``.local`` names need mDNS support in the tablet
    (iPadOS yes, older Android no), so the name is printed but not put in the code.
    """
    if not urls:
        raise ValueError("no URL to show")
    numeric = [u for u in urls if u.split("//", 1)[1][:1].isdigit()]
    return (numeric or urls)[0]


def startup_banner(port: int, listen_host: str = "0.0.0.0", *, qr: bool = True,
                   hostname: str | None = None, addresses: list[str] | None = None) -> str:
    """Lines naming every URL of the page, then (``qr=True``) a terminal QR code of the best one."""
    urls = page_urls(port, listen_host, hostname=hostname, addresses=addresses)
    lines = ["Open the Dingo Companion page on the tablet:"]
    lines += [f"  {url}" for url in urls]
    text = "\n".join(lines) + "\n"
    if qr:
        target = qr_target(urls)
        text += f"or scan this code ({target}):\n" + qr_text(target)
    return text


def page_qr_svg(port: int, listen_host: str = "0.0.0.0", *, hostname: str | None = None,
                addresses: list[str] | None = None, size_px: int | None = 240) -> tuple[str, str]:
    """``(url, svg)``: the best URL of the page and its QR code as SVG, for the page to show."""
    from companion.service.qr import qr_svg

    url = qr_target(page_urls(port, listen_host, hostname=hostname, addresses=addresses))
    return url, qr_svg(url, size_px=size_px, title=f"QR code: {url}")
