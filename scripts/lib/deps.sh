# Shared by scripts/run and scripts/test: installs what a fresh Debian machine lacks.
# Sourced, not executed. Uses sudo when not root; installs only what is missing.

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Debian packages: libsystemd (the journal and sd_notify, linked by the CSystemd module), pkg-config
# (finds it), SQLite (GRDB), and for the tests systemd itself and iproute2 (the systemd sandbox).
ensure_debian_packages() {
    local wanted=("$@") missing=() package
    for package in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]} == 0)) && return 0
    echo "deps: installing ${missing[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Python packages for test helpers, each an implementation independent of ours: the JSON-Schema check of
# alert events (jsonschema) and the Prometheus text-format parser that reads /metrics (prometheus-client).
ensure_python_packages() {
    command -v python3 >/dev/null || ensure_debian_packages python3
    python3 -c 'import jsonschema, rfc3339_validator, prometheus_client' 2>/dev/null && return 0
    python3 -m pip --version >/dev/null 2>&1 || ensure_debian_packages python3-pip
    echo "deps: installing jsonschema rfc3339-validator prometheus-client (pip)" >&2
    local pip=(python3 -m pip install --quiet --disable-pip-version-check jsonschema rfc3339-validator prometheus-client)
    # Debian's own python3 is "externally managed" (PEP 668): these small pure-Python test helpers
    # then go in with --break-system-packages, which touches no Debian-packaged module.
    "${pip[@]}" 2>/dev/null || as_root "${pip[@]}" 2>/dev/null || as_root "${pip[@]}" --break-system-packages
}

# aiosmtpd: the real SMTP server the email tests start on 127.0.0.1 (scripts/lib/smtp-test-server.py).
# Installed once; without a network the run goes on and those tests fail, naming the missing module.
ensure_smtp_test_server() {
    python3 -c 'import aiosmtpd' 2>/dev/null && return 0
    echo "deps: installing aiosmtpd (pip)" >&2
    local pip=(python3 -m pip install --quiet --disable-pip-version-check aiosmtpd)
    "${pip[@]}" 2>/dev/null || as_root "${pip[@]}" 2>/dev/null || as_root "${pip[@]}" --break-system-packages 2>/dev/null \
        || echo "deps: aiosmtpd could not be installed (offline?); the email tests will fail" >&2
}

# A real browser for the status page tests (headless Chromium renders it; CJK fonts for TWSE names).
ensure_test_browser() {
    ensure_debian_packages chromium fonts-noto-cjk
}

ensure_swift() {
    command -v swift >/dev/null && return 0
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [[ -x $candidate/swift ]]; then export PATH="$candidate:$PATH"; return 0; fi
    done
    echo "deps: swift (6.1 or newer) is not installed; see https://www.swift.org/install/linux/" >&2
    return 1
}

# PostgreSQL for the HA tests: Debian's server binaries only. The tests make their own private clusters
# (initdb in /tmp/marketalertd-pg-*, loopback, a free port); the package's default cluster is stopped so
# nothing else listens, and `sweep_test_postgres` stops any private cluster a killed test left running.
ensure_test_postgres() {
    ensure_debian_packages postgresql
    if command -v pg_lsclusters >/dev/null; then
        pg_lsclusters --no-header 2>/dev/null | while read -r version cluster _ status _; do
            [[ $status == online ]] && as_root pg_ctlcluster "$version" "$cluster" stop || true
        done
    fi
}

# Daemons the integration tests started and a killed test run left behind (their configurations live in the
# tests' own temporary directories, /tmp/marketalertd-it-*): stopped, so nothing the tests started outlives them.
sweep_test_daemons() {
    local pids
    pids=$(pgrep -f -- ' run --config /tmp/marketalertd-it-' 2>/dev/null || true)
    [[ -n $pids ]] || return 0
    echo "test: stopping leftover test daemons: $(echo $pids)" >&2
    kill -TERM $pids 2>/dev/null || true
    sleep 2
    pids=$(pgrep -f -- ' run --config /tmp/marketalertd-it-' 2>/dev/null || true)
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
}

sweep_test_postgres() {
    local pidfile data
    for pidfile in /tmp/marketalertd-pg-*/data/postmaster.pid; do
        [[ -f $pidfile ]] || continue
        data=$(dirname "$pidfile")
        echo "test: stopping a leftover PostgreSQL test cluster in $data" >&2
        local ctl
        ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -1)
        if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        else "$ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    done
    rm -rf /tmp/marketalertd-pg-* 2>/dev/null || true
}
