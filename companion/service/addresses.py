"""The addresses a tablet can open: ``http://<hostname>.local:8000/`` and one per IPv4 address.

Interface addresses come from the kernel (``SIOCGIFADDR`` on each interface, Linux), so no
packet is sent and no dependency is needed; elsewhere only the mDNS name and, if it resolves,
the host name's address are listed.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct

SIOCGIFADDR = 0x8915  # linux/sockios.h
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")


def mdns_name(hostname: str | None = None) -> str:
    """The ``.local`` name avahi announces for this machine (``dingo`` -> ``dingo.local``)."""
    name = (hostname if hostname is not None else socket.gethostname()).split(".")[0].strip()
    if not name:
        raise ValueError("the host name is empty; set one with: sudo hostnamectl hostname dingo")
    return f"{name.lower()}.local"


def interface_ipv4() -> dict[str, str]:
    """``{interface: IPv4 address}`` for every interface that has one (loopback included)."""
    found: dict[str, str] = {}
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return found
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for name in names:
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, request)
            except OSError:
                continue  # no IPv4 address on this interface
            found[name] = socket.inet_ntoa(reply[20:24])
    return found


def lan_ipv4() -> list[str]:
    """IPv4 addresses a tablet on the local network may reach (no loopback, no link-local), sorted."""
    addresses = set(interface_ipv4().values())
    if not addresses:
        with contextlib.suppress(OSError):
            addresses.add(socket.gethostbyname(socket.gethostname()))
    usable = [a for a in addresses
              if not ipaddress.IPv4Address(a).is_loopback and not ipaddress.IPv4Address(a).is_link_local]
    return sorted(usable, key=lambda a: ipaddress.IPv4Address(a))


def _url(host: str, port: int) -> str:
    """``http://host:port/`` (the port left out when it is 80)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def page_urls(port: int, listen_host: str = "0.0.0.0", *, hostname: str | None = None,
              addresses: list[str] | None = None) -> list[str]:
    """The URLs to open the page at, best first: the mDNS name, then each LAN address.

    ``listen_host`` is ``[web] host``: a wildcard lists every address, a specific address only
    itself (``127.0.0.1`` means this machine only). ``addresses`` overrides interface discovery.
    """
    if not 0 < port <= 65535:
        raise ValueError(f"port must be 1..65535, got {port}")
    if listen_host not in WILDCARD_HOSTS:
        return [_url(listen_host, port)]
    urls = [_url(mdns_name(hostname), port)]
    urls += [_url(a, port) for a in (lan_ipv4() if addresses is None else addresses)]
    return urls
