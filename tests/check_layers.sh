#!/usr/bin/env bash
# Lower layers never include higher ones, so each layer builds and tests without those above
# it (README "Layout"). Checks src/<layer>/ includes of other layers' internal headers, and
# includes of the public headers include/ctensor/*.h (from src/ and between the headers
# themselves) against the layer each public header belongs to. Fails listing every upward
# include.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Layers, lowest first; src/<layer>/ folders use the same names.
layers=(base dtype device tensor iter kernels ops sparse io cuda dist)
# The layer of every public header. ctensor.h is the umbrella of the core library, so it sits
# with its highest part (sparse), below dist.
declare -A header_layer=(
    [export.h]=base [status.h]=base [version.h]=base [alloc.h]=base [compat.h]=base
    [cpu.h]=base [parallel.h]=base [warning.h]=base
    [dtype.h]=dtype [dtypes.def]=dtype [convert.h]=dtype [scalar.h]=dtype
    [device.h]=device [backend.h]=device
    [tensor.h]=tensor [layout.h]=tensor [memformat.h]=tensor [random.h]=tensor
    [print.h]=tensor [dlpack.h]=tensor
    [join.h]=tensor [range.h]=tensor [index.h]=tensor
    [ops.h]=ops [ops.def]=kernels [unary.h]=ops [unary.def]=kernels [reduce.h]=ops
    [ternary.h]=ops [ternary.def]=kernels [linalg.h]=ops
    [sort.h]=ops [reorder.h]=tensor [triangle.h]=ops [linalg_add.h]=ops
    [scatter.h]=ops [search.h]=ops [unique.h]=ops
    [sparse.h]=sparse [ctensor.h]=sparse
    [safetensors.h]=io
    [cuda.h]=cuda
    [placement.h]=dist [sbp.h]=dist [global.h]=dist [dist.h]=dist
)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
# The table must name every public header, and only those.
for h in "$root"/include/ctensor/*.h "$root"/include/ctensor/*.def; do
    name="$(basename "$h")"
    [ -n "${header_layer[$name]:-}" ] || { echo "public header $name has no layer (add it to tests/check_layers.sh)"; bad=1; }
done
for name in "${!header_layer[@]}"; do
    [ -e "$root/include/ctensor/$name" ] || { echo "tests/check_layers.sh names a missing header $name"; bad=1; }
done
# check FILE RANK: every include of another layer's internal header or of a public header in
# FILE must be of a layer at or below RANK.
check() {
    local file="$1" r="$2" inc ir
    while IFS= read -r inc; do
        case "$inc" in
        ctensor/*) inc="${inc#ctensor/}"; ir="$(rank "${header_layer[$inc]:-}")"
                   [ "$ir" -le "$r" ] || { echo "upward include: ${file#$root/} includes <ctensor/$inc> (${header_layer[$inc]:-no layer})"; bad=1; } ;;
        */*)       ir="$(rank "${inc%%/*}")"
                   [ "$ir" -le "$r" ] || { echo "upward include: ${file#$root/} includes ${inc%%/*}/"; bad=1; } ;;
        esac
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([a-z_]+\/[^">]+)[">].*/\1/p' "$file")
}
for dir in "$root"/src/*/; do
    layer="$(basename "$dir")"; r="$(rank "$layer")"
    [ "$r" -ge 0 ] || { echo "unknown layer folder src/$layer (add it to tests/check_layers.sh)"; bad=1; continue; }
    while IFS= read -r file; do check "$file" "$r"; done < <(find "$dir" -name '*.c' -o -name '*.h' | sort)
done
for h in "$root"/include/ctensor/*.h; do
    name="$(basename "$h")"; [ -n "${header_layer[$name]:-}" ] && check "$h" "$(rank "${header_layer[$name]}")"
done
[ "$bad" -eq 0 ] && echo "layering ok"
exit "$bad"
