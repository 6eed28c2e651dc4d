# Starts a throwaway PostgreSQL server for the tests (sourced by .ci/run; a developer can source it
# too): installs Debian's `postgresql` package if no server is installed, creates a cluster in a
# temporary directory, starts it on 127.0.0.1 and a Unix socket in that directory only, and exports
# STOWAGE_TEST_POSTGRES_URL for the StowagePostgres tests (each creates and drops its own databases).
# `restart_postgres` restarts it; `stop_postgres` stops it and removes the directory; a watcher stops
# it too when the shell that sourced this file exits, so that it never outlives the run.
#
# initdb refuses to run as root: as root, the cluster belongs to the `postgres` user the package
# creates.

postgres_bin() {
    # Empty (and a success, for callers under `set -e -o pipefail`) when no server is installed.
    local found
    found=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -1) || true
    printf '%s' "$found"
}

start_postgres() {
    local bin
    bin=$(postgres_bin)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        local sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update -qq
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
        bin=$(postgres_bin)
    fi
    POSTGRES_DIR=$(mktemp -d /tmp/stowage-postgres.XXXXXX)
    chmod 0755 "$POSTGRES_DIR"
    local as=()
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$POSTGRES_DIR"
        as=(runuser -u postgres --)
    fi
    local port=${STOWAGE_POSTGRES_PORT:-54329}
    "${as[@]}" "$bin/initdb" -D "$POSTGRES_DIR/data" -A trust -U stowage --encoding=UTF8 --locale=C.UTF-8 >"$POSTGRES_DIR/initdb.log" 2>&1 \
        || { cat "$POSTGRES_DIR/initdb.log" >&2; return 1; }
    "${as[@]}" "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $POSTGRES_DIR -c fsync=on -c max_connections=200" start >/dev/null \
        || { cat "$POSTGRES_DIR/server.log" >&2; return 1; }
    POSTGRES_STOP=("${as[@]}" "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -m fast stop)
    POSTGRES_RESTART=("${as[@]}" "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -m fast -w restart)
    export STOWAGE_TEST_POSTGRES_URL="postgres://stowage@127.0.0.1:$port/postgres"
    # Stops the server once the shell that started it is gone, whatever ends it.
    local shell_pid=$$
    (
        trap '' HUP
        while kill -0 "$shell_pid" 2>/dev/null; do sleep 2; done
        "${as[@]}" "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate stop >/dev/null 2>&1
        rm -rf "$POSTGRES_DIR"
    ) </dev/null >/dev/null 2>&1 &
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $STOWAGE_TEST_POSTGRES_URL (cluster in $POSTGRES_DIR)"
}

# Restarts the server (what the failure tests do to a server of their own).
restart_postgres() {
    "${POSTGRES_RESTART[@]}" >/dev/null
}

stop_postgres() {
    if [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR" ]; then
        "${POSTGRES_STOP[@]}" >/dev/null 2>&1 || true
        rm -rf "$POSTGRES_DIR"
    fi
}
