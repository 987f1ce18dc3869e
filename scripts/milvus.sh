#!/usr/bin/env bash
# A local Milvus server for the Milvus backend (milvus-lite, from PyPI):
#   scripts/milvus.sh install        venv in $HOME_DIR/venv with scripts/milvus-requirements.txt
#   scripts/milvus.sh start [PORT]   serve a fresh $HOME_DIR/data on 127.0.0.1:PORT (default:
#                                    a free port); waits until it accepts connections and
#                                    prints its URL (http://127.0.0.1:PORT)
#   scripts/milvus.sh stop           stop the server `start` started
# HOME_DIR is $ATTEST_MILVUS_HOME, else target/milvus. A real Milvus (standalone or a
# cluster) speaks the same protocol: point `milvus_url` at it instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

home="${ATTEST_MILVUS_HOME:-$PWD/target/milvus}"
venv="$home/venv"
req="$PWD/scripts/milvus-requirements.txt"

install() {
    if [ -x "$venv/bin/milvus-lite" ] && cmp -s "$req" "$venv/requirements.txt"; then
        return 0
    fi
    mkdir -p "$home"
    rm -rf "$venv"
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian ships venv apart from Python.
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
    cp "$req" "$venv/requirements.txt"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    install
    local port="${1:-$(free_port)}"
    stop
    rm -rf "$home/data"
    mkdir -p "$home/data"
    nohup "$venv/bin/milvus-lite" server --data-dir "$home/data" --host 127.0.0.1 \
        --port "$port" >"$home/server.log" 2>&1 &
    echo $! >"$home/server.pid"
    for _ in $(seq 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "http://127.0.0.1:$port"
            return 0
        fi
        if ! kill -0 "$(cat "$home/server.pid")" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    echo "milvus.sh: the server did not start; its log:" >&2
    cat "$home/server.log" >&2
    return 1
}

stop() {
    if [ -f "$home/server.pid" ]; then
        kill "$(cat "$home/server.pid")" 2>/dev/null || true
        rm -f "$home/server.pid"
    fi
}

case "${1:-}" in
    install) install ;;
    start) start "${2:-}" ;;
    stop) stop ;;
    *) echo "usage: scripts/milvus.sh install|start [PORT]|stop" >&2; exit 2 ;;
esac
