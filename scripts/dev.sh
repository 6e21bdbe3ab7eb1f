#!/usr/bin/env bash
# Set up a virtual environment and run the companion or the tests.
#   scripts/dev.sh run  [args...]   -> the companion on the simulated table (tablet page on :8000)
#   scripts/dev.sh test [pytest args...] -> lint + every test (installs Chromium for browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-}"; shift || true
[ "${1:-}" = "--" ] && shift  # "dev.sh run -- --port 8080" and "dev.sh run --port 8080" both work
VENV="${DINGO_VENV:-.venv}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=""
apt_install() {
    [ $# -gt 0 ] || return 0
    command -v apt-get >/dev/null || { echo "error: please install: $*" >&2; exit 1; }
    if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "error: Python 3.11 or newer is needed (found $(python3 --version))" >&2; exit 1; }
python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv python3-pip

setup_venv() {
    local extra="$1" stamp="$VENV/.installed$1"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        "$VENV/bin/python" -m pip install -q --upgrade pip
        "$VENV/bin/python" -m pip install -q -e ".$extra"
        touch "$stamp"
    fi
}

case "$what" in
    run)
        setup_venv ""
        exec "$VENV/bin/dingo-companion" run "$@"
        ;;
    test)
        need=()
        command -v chromium >/dev/null || need+=(chromium)
        command -v systemd-analyze >/dev/null || need+=(systemd)
        command -v sqlite3 >/dev/null || need+=(sqlite3)
        # the venue tests start a private broker (companion/venue/broker.py); it lives in /usr/sbin
        command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
        command -v openssl >/dev/null || need+=(openssl)  # the venue TLS test makes its certificates
        apt_install "${need[@]}"
        setup_venv "[dev]"
        echo "== ruff"
        "$VENV/bin/ruff" check .
        echo "== pytest"
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    *)
        echo "usage: scripts/dev.sh run|test [args...]" >&2
        exit 2
        ;;
esac
