#!/usr/bin/env bash
# Remove the Dingo Companion service.
#
#   sudo systemd/uninstall.sh [--purge]
#
# Stops and removes the service (and the venue hub's, if installed), their units, the udev rule,
# the avahi announcement and /opt/dingo-companion.
# Keeps the session data (/var/lib/dingo-companion), the configuration (/etc/dingo-companion) and
# the user `dingo` unless --purge is given. Safe to run twice.
#
# Environment: DRY_RUN=1 prints every step instead of doing it; DINGO_ROOT=DIR works below DIR (tests).
set -euo pipefail

ROOT=${DINGO_ROOT:-}
DRY_RUN=${DRY_RUN:-0}
APP=/opt/dingo-companion
ETC=/etc/dingo-companion
STATE=/var/lib/dingo-companion
UNIT=/etc/systemd/system/dingo-companion.service
HUB_UNIT=/etc/systemd/system/dingo-hub.service
UDEV=/etc/udev/rules.d/60-dingo-bridge.rules
AVAHI=/etc/avahi/services/dingo-companion.service
LINK=/usr/local/bin/dingo-companion
USER_NAME=dingo

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
run() { if [ "$DRY_RUN" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi; }

purge=0
while [ $# -gt 0 ]; do
    case "$1" in
        --purge) purge=1; shift ;;
        -h|--help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
if [ "$DRY_RUN" != 1 ] && [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo $0 $*"
fi

say "stopping and disabling dingo-companion"
run systemctl disable --now dingo-companion.service 2>/dev/null || true
if [ -e "$ROOT$HUB_UNIT" ]; then
    say "stopping and disabling dingo-hub"
    run systemctl disable --now dingo-hub.service 2>/dev/null || true
fi
say "removing the units, the udev rule, the avahi service and $APP"
run rm -f "$ROOT$UNIT" "$ROOT$HUB_UNIT" "$ROOT$UDEV" "$ROOT$AVAHI" "$ROOT$LINK"
run rm -rf "$ROOT$APP"
run systemctl daemon-reload || true
run systemctl reset-failed dingo-companion.service dingo-hub.service 2>/dev/null || true
run udevadm control --reload-rules || true

if [ "$purge" = 1 ]; then
    say "purging the session data $STATE, the configuration $ETC and the user $USER_NAME"
    run rm -rf "$ROOT$STATE" "$ROOT$ETC"
    if id -u "$USER_NAME" >/dev/null 2>&1; then
        run userdel "$USER_NAME"
    fi
else
    say "kept the session data in $STATE and the configuration in $ETC (--purge removes them)"
fi
say "done"
