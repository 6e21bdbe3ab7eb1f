"""Running as an appliance: systemd notify/watchdog, configuration-error hold, page addresses, QR codes.

``notify``: ``Notifier`` (``ready``, ``status``, ``watchdog``, ``stopping``), ``Watchdog`` (``kick``),
module-level ``ready()``/``status()``/``watchdog()``/``stopping()``. ``configwait``:
``load_or_wait``, ``wait_for_config``. ``addresses``: ``page_urls``, ``mdns_name``, ``lan_ipv4``.
``qr``: ``qr_text``, ``qr_svg``, ``qr_matrix``. ``banner``: ``startup_banner``, ``page_qr_svg``.
"""
