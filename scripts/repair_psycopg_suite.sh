#!/bin/bash
# psycopg's own test suite against a real PostgreSQL server, on psycopg-binary as PyPI ships it and
# as `shimgen repair` left it (prefix mode: the grafted libpq's API, and --family openssl), each with
# and without Debian's libpq 15 preloaded. Too slow for the test suite (4,800 tests, ~3 min a run);
# the result is recorded in docs/repair.md.
#
#   scripts/repair_psycopg_suite.sh PSYCOPG_SOURCE_TREE [WORK_DIR]
#
# PSYCOPG_SOURCE_TREE: a checkout of github.com/psycopg/psycopg (its tests/ is used). Needs, as root
# on Debian: postgresql (initdb, pg_ctl; run as the postgres user), libpq5, network to PyPI.
# Prints, per run, pytest's summary line; a segfault shows as "rc=139".
set -euo pipefail
src=$(realpath "${1:?usage: $0 PSYCOPG_SOURCE_TREE [WORK_DIR]}")
work=$(realpath -m "${2:-/tmp/shimgen-psycopg-suite}")
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python}  # one with shimgen's dependencies (LIEF): the venv shimgen is developed in
version=3.3.9
system=/usr/lib/x86_64-linux-gnu/libpq.so.5
port=54329

mkdir -p "$work/dl" "$work/out"
"$python" -m pip download -q --no-deps --only-binary :all: -d "$work/dl" "psycopg-binary==$version"
wheel=$(ls "$work"/dl/psycopg_binary-"$version"-cp*-manylinux*x86_64*.whl)
rm -rf "$work/out"/*
PYTHONPATH="$root" "$python" -m shimgen repair -q "$wheel" -o "$work/out" --prefix pgsg_ \
    --pattern 'PQ*' --pattern 'lo_*' --pattern 'pg_*' --pattern 'pgres*' --pattern '*PQExpBuffer*' \
    --pattern pqsignal --family openssl >"$work/repair-plan.txt"

for name in original repaired; do
    [ "$name" = original ] && w=$wheel || w=$work/out/$(basename "$wheel")
    rm -rf "$work/venv-$name"
    "$python" -m venv "$work/venv-$name"
    "$work/venv-$name/bin/pip" install -q --disable-pip-version-check "$w" "psycopg==$version" pytest anyio pproxy
done

data=$work/pgdata
sock=$work/sock
if [ ! -f "$data/PG_VERSION" ]; then
    rm -rf "$data" "$sock"; mkdir -p "$data" "$sock"; chown postgres "$data" "$sock"
    su postgres -s /bin/bash -c "initdb -D '$data' -A trust -U postgres >'$sock/init.log' 2>&1"
fi
su postgres -s /bin/bash -c "pg_ctl -D '$data' -l '$sock/log' -w \
    -o \"-k $sock -p $port -c listen_addresses='' -c max_prepared_transactions=10\" start" >/dev/null
trap 'su postgres -s /bin/bash -c "pg_ctl -D \"$data\" -m fast stop" >/dev/null' EXIT

cd "$src"
for name in original repaired; do
    for preload in "" "$system"; do
        set +e
        LD_PRELOAD="$preload" PSYCOPG_IMPL=binary "$work/venv-$name/bin/python" -m pytest -q -p no:randomly \
            -o cache_dir="$work/cache-$name" --test-dsn "host=$sock port=$port user=postgres dbname=postgres" \
            tests --ignore=tests/pool --ignore=tests/crdb -m "not slow and not timing and not flakey and not mypy" \
            >"$work/$name${preload:+-preload}.log" 2>&1
        rc=$?
        set -e
        echo "$name, preload ${preload:-none}: rc=$rc $(grep -E '(passed|failed)' "$work/$name${preload:+-preload}.log" | tail -1)"
    done
done
