#!/usr/bin/env bash
# Exported symbols: every name a ctensor shared library defines in its dynamic
# symbol table starts with ct_, and the Python module exports PyInit_ctensor alone.
#   check_exports.sh LIB.so... [--python MODULE.so]
# No allowance is needed: with hidden visibility by default and CT_API on the public
# functions, GCC/ld put no _init, _fini, _edata, _end or __bss_start among the defined
# dynamic symbols of these libraries (checked with binutils 2.40 / GCC 12); should a
# toolchain add such a name one day, this test says which, and the allowance goes here.
set -euo pipefail

command -v nm >/dev/null || { echo "check_exports: nm (binutils) not found" >&2; exit 1; }

# The defined dynamic names of $1, without symbol versions (name@@VER).
exports() {
    nm -D --defined-only "$1" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }'
}

# Names on stdin that `$1` (an extended regex) does not match.
offenders() { grep -Ev "$1" || true; }

# The filter must catch an offender, or the whole test proves nothing.
self_test() {
    local got
    got=$(printf 'ct_ok\nct_tensor_add\nfoo\n_init\nctx_leak\n' | offenders '^ct_')
    [ "$got" = $'foo\n_init\nctx_leak' ] || { echo "check_exports: self-test failed: $got" >&2; exit 1; }
}
self_test

status=0
check() { # file, allowed-name regex, description
    local file=$1 allow=$2 what=$3 names bad
    [ -f "$file" ] || { echo "FAIL $file: missing" >&2; status=1; return; }
    names=$(exports "$file")
    if [ -z "$names" ]; then
        echo "FAIL $file: no exported names at all (not a shared object?)" >&2
        status=1
        return
    fi
    bad=$(printf '%s\n' "$names" | offenders "$allow")
    if [ -n "$bad" ]; then
        echo "FAIL $file exports names that are not $what:" >&2
        printf '  %s\n' $bad >&2
        status=1
    else
        echo "ok   $file: $(printf '%s\n' "$names" | wc -l) names, all $what"
    fi
}

while [ $# -gt 0 ]; do
    case "$1" in
    --python)
        check "$2" '^PyInit_ctensor$' "PyInit_ctensor"
        shift 2
        ;;
    *)
        check "$1" '^ct_' "ct_*"
        shift
        ;;
    esac
done
exit $status
