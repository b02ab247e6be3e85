#!/usr/bin/env bash
# Lower layers never include higher ones (DESIGN.md). Fails listing every upward include.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
layers=(base dtype device tensor iter kernels ops sparse dist)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
for dir in "$root"/src/*/; do
    layer="$(basename "$dir")"; r="$(rank "$layer")"
    [ "$r" -ge 0 ] || { echo "unknown layer folder src/$layer (add it to tests/check_layers.sh)"; bad=1; continue; }
    while IFS= read -r line; do
        file="${line%%:*}"; inc="$(sed -E 's/.*#include "([^"/]+)\/.*/\1/' <<<"$line")"
        ir="$(rank "$inc")"
        if [ "$ir" -gt "$r" ]; then echo "upward include: ${file#$root/} includes $inc/"; bad=1; fi
    done < <(grep -rHE '^#include "[a-z]+/' "$dir" --include='*.c' --include='*.h' || true)
done
[ "$bad" -eq 0 ] && echo "layering ok"
exit "$bad"
