#!/usr/bin/env bash
# Install or update Dingo Companion as a service on Raspberry Pi OS Bookworm (64-bit).
#
#   sudo systemd/install.sh [--hostname NAME] [--no-start] [--hub | --hub-only]
#
# Creates the service user `dingo`, a virtual environment in /opt/dingo-companion with the Pi
# extras, /etc/dingo-companion/config.toml (only if absent), the systemd unit, the udev rule and
# the avahi announcement, then enables and (re)starts the service. Safe to run again: that is how
# you update (git pull, then run it again); the configuration and the session data are kept.
# --hub also installs the venue hub (dingo-hub.service and /etc/dingo-companion/hub.env, only if
# absent: edit it, then start the hub); --hub-only installs the hub on a machine that is no table.
#
# Environment: DRY_RUN=1 prints every step instead of doing it. DINGO_EXTRA=pi|pi5 forces the
# Python extras (default: pi5 on a Raspberry Pi 5, else pi). DINGO_ROOT=DIR installs below DIR
# and DINGO_PYTHON=PATH picks the interpreter (both for tests).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${DINGO_ROOT:-}
PYTHON=${DINGO_PYTHON:-python3}
DRY_RUN=${DRY_RUN:-0}
APP=/opt/dingo-companion
VENV=$APP/venv
ETC=/etc/dingo-companion
CONFIG=$ETC/config.toml
UNIT=/etc/systemd/system/dingo-companion.service
HUB_UNIT=/etc/systemd/system/dingo-hub.service
HUB_ENV=$ETC/hub.env
UDEV=/etc/udev/rules.d/60-dingo-bridge.rules
AVAHI=/etc/avahi/services/dingo-companion.service
LINK=/usr/local/bin/dingo-companion
USER_NAME=dingo
APT_PACKAGES=(python3 python3-venv python3-pip avahi-daemon libnss-mdns)

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
say() { printf '==> %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
run() { if [ "$DRY_RUN" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi; }

new_hostname=""
start=1
hub=0
table=1
while [ $# -gt 0 ]; do
    case "$1" in
        --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; new_hostname=$2; shift 2 ;;
        --hostname=*) new_hostname=${1#*=}; shift ;;
        --no-start) start=0; shift ;;
        --hub) hub=1; shift ;;
        --hub-only) hub=1; table=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
if [ -n "$new_hostname" ] && ! [[ $new_hostname =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
    die "--hostname '$new_hostname' is not a valid host name (lower-case letters, digits, '-')"
fi
if [ "$table" = 0 ] && [ -n "$new_hostname" ]; then
    die "--hostname names a table's page; the hub keeps the machine's name (drop --hub-only or --hostname)"
fi
if [ "$DRY_RUN" != 1 ] && [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo $0 $*"
fi
[ -f "$SRC/pyproject.toml" ] && [ -f "$SRC/systemd/dingo-companion.service" ] \
    || die "run this script from a checkout of dingo-companion (no pyproject.toml in $SRC)"

# --- the platform -------------------------------------------------------------------------------
codename=$(. "$ROOT/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-unknown}") || codename=unknown
[ "$codename" = bookworm ] || warn "made for Raspberry Pi OS Bookworm; this is '$codename', continuing"
[ "$(uname -m)" = aarch64 ] || warn "made for 64-bit Raspberry Pi OS; this machine is $(uname -m), continuing"
model=""
[ -r "$ROOT/proc/device-tree/model" ] && model=$(tr -d '\0' < "$ROOT/proc/device-tree/model")
extra=${DINGO_EXTRA:-}
if [ -z "$extra" ]; then
    case "$model" in *"Raspberry Pi 5"*) extra=pi5 ;; *) extra=pi ;; esac
fi
case "$extra" in pi|pi5) ;; *) die "DINGO_EXTRA must be pi or pi5, got '$extra'" ;; esac
say "installing Dingo Companion from $SRC (${model:-not a Raspberry Pi}, extras [$extra])"

# --- system packages ----------------------------------------------------------------------------
say "system packages: ${APT_PACKAGES[*]}"
run apt-get update -qq
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}"

# --- the service user ---------------------------------------------------------------------------
for group in dialout gpio; do
    if ! getent group "$group" >/dev/null; then
        say "creating group $group"
        run groupadd --system "$group"
    fi
done
if id -u "$USER_NAME" >/dev/null 2>&1; then
    say "user $USER_NAME exists"
else
    say "creating system user $USER_NAME"
    run useradd --system --user-group --home-dir /var/lib/dingo-companion --no-create-home \
        --shell /usr/sbin/nologin --comment "Dingo Companion" "$USER_NAME"
fi
run usermod --append --groups dialout,gpio "$USER_NAME"

# --- the program --------------------------------------------------------------------------------
if [ -x "$ROOT$VENV/bin/python" ]; then
    say "virtual environment $VENV exists: updating it"
else
    say "creating virtual environment $VENV"
    run install -d -m 0755 "$ROOT$APP"
    run "$PYTHON" -m venv "$ROOT$VENV"
fi
run "$ROOT$VENV/bin/pip" install --quiet --upgrade pip
run "$ROOT$VENV/bin/pip" install --quiet --upgrade "$SRC[$extra]"
run ln -sfn "$VENV/bin/dingo-companion" "$ROOT$LINK"

# --- configuration ------------------------------------------------------------------------------
# The service may rewrite its configuration (calibration from the tablet page, saved atomically:
# a temporary file in this folder, then a rename), so the folder is group-writable by its user.
run install -d -m 2770 "$ROOT$ETC"
run chgrp "$USER_NAME" "$ROOT$ETC"
if [ -e "$ROOT$CONFIG" ]; then
    say "keeping the existing $CONFIG"
else
    say "writing $CONFIG from systemd/config.example.toml"
    run install -m 0640 "$SRC/systemd/config.example.toml" "$ROOT$CONFIG"
fi
run chgrp "$USER_NAME" "$ROOT$CONFIG"
run chmod 0660 "$ROOT$CONFIG"
if [ "$DRY_RUN" != 1 ]; then
    "$ROOT$VENV/bin/dingo-companion" config --config "$ROOT$CONFIG" check \
        || warn "fix $CONFIG (the service waits for a valid file and says why in its journal)"
fi
port=8000
if [ "$DRY_RUN" != 1 ]; then
    port=$("$ROOT$VENV/bin/python" -c 'import sys; from companion.config import load_config
print(load_config(sys.argv[1]).web.port)' "$ROOT$CONFIG" 2>/dev/null) || port=8000
fi

# --- systemd unit, udev rule, mDNS announcement -------------------------------------------------
if [ "$table" = 1 ]; then
    say "installing the unit, the udev rule and the avahi service (port $port)"
    run install -D -m 0644 "$SRC/systemd/dingo-companion.service" "$ROOT$UNIT"
    run install -D -m 0644 "$SRC/systemd/60-dingo-bridge.rules" "$ROOT$UDEV"
    if [ "$DRY_RUN" = 1 ]; then
        printf '+ install %s -> %s (port %s)\n' "$SRC/systemd/dingo-companion.avahi.service" "$ROOT$AVAHI" "$port"
    else
        install -d -m 0755 "$(dirname "$ROOT$AVAHI")"
        sed "s#<port>8000</port>#<port>$port</port>#" "$SRC/systemd/dingo-companion.avahi.service" \
            > "$ROOT$AVAHI.tmp"
        chmod 0644 "$ROOT$AVAHI.tmp"
        mv -f "$ROOT$AVAHI.tmp" "$ROOT$AVAHI"
    fi
    run udevadm control --reload-rules
    run udevadm trigger --action=add --subsystem-match=tty
    if [ -n "$new_hostname" ]; then
        say "host name: $new_hostname (the page becomes http://$new_hostname.local:$port/)"
        run hostnamectl hostname "$new_hostname"
        run sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$new_hostname/" "$ROOT/etc/hosts"
        run systemctl restart avahi-daemon.service   # announce the new name now
    fi
fi

# --- the venue hub (--hub, --hub-only) -----------------------------------------------------------
hub_env_new=0
if [ "$hub" = 1 ]; then
    say "installing the venue hub's unit"
    run install -D -m 0644 "$SRC/systemd/dingo-hub.service" "$ROOT$HUB_UNIT"
    if [ -e "$ROOT$HUB_ENV" ]; then
        say "keeping the existing $HUB_ENV"
    else
        say "writing $HUB_ENV from systemd/hub.env.example"
        run install -m 0640 "$SRC/systemd/hub.env.example" "$ROOT$HUB_ENV"
        hub_env_new=1
    fi
    run chgrp "$USER_NAME" "$ROOT$HUB_ENV"
    run chmod 0640 "$ROOT$HUB_ENV"
fi

# --- start --------------------------------------------------------------------------------------
run systemctl daemon-reload
if [ "$hub" = 1 ]; then
    run systemctl enable dingo-hub.service
    if [ "$hub_env_new" = 1 ]; then
        say "the hub starts once you have set its broker: edit $HUB_ENV, then: systemctl restart dingo-hub"
    elif [ "$start" = 1 ]; then
        say "(re)starting dingo-hub"
        run systemctl restart dingo-hub.service
    fi
fi
if [ "$table" = 0 ]; then
    say "done (the hub only). Journal: journalctl -u dingo-hub -f    Settings: $HUB_ENV"
    exit 0
fi
run systemctl enable avahi-daemon.service dingo-companion.service
if [ "$start" = 1 ]; then
    say "(re)starting dingo-companion"
    run systemctl restart dingo-companion.service
    if [ "$DRY_RUN" != 1 ] && [ -z "$ROOT" ]; then
        for _ in $(seq 60); do
            systemctl is-active --quiet dingo-companion.service && break
            sleep 1
        done
        systemctl --no-pager --lines=5 status dingo-companion.service || true
    fi
fi
say "done. Journal: journalctl -u dingo-companion -f    Configuration: $CONFIG"
if [ "$DRY_RUN" != 1 ]; then
    "$ROOT$VENV/bin/python" -c 'import sys; from companion.service.banner import startup_banner
print(startup_banner(int(sys.argv[1])), end="")' "$port" 2>/dev/null || true
fi
