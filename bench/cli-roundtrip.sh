#!/usr/bin/env bash
# The command line reads back every file it writes, at any size: simulate → import → export →
# import → export through the CLI, for a .json and a .ndjson snapshot, and the two exports of each
# must be identical. Prints each step's time and peak memory (GNU time), and the file sizes.
#
#   bash bench/cli-roundtrip.sh [preset] [dir]      # preset: small | medium | large (default large)
#
# The large preset (10,000 users, 1,000,000 messages) needs ~10 GB of free memory and tens of
# minutes on a busy 2-core machine; test/cli/roundtrip.test.ts runs the same steps on a small realm.
set -euo pipefail
preset=${1:-large}
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"
cli=(node --max-old-space-size=12000 --import tsx "$(dirname "$0")/../src/cli/main.ts")
step() {
  local name=$1
  shift
  local t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$dir/.mem" "$@" > "$dir/.out" 2> "$dir/.err" || { cat "$dir/.err"; exit 1; }
  local t1=$(date +%s.%N)
  printf '%-34s %7.1f s  %6d MB peak\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(( $(cat "$dir/.mem") / 1024 ))"
}
echo "preset $preset in $dir (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for ext in ndjson json; do
  step "simulate --out a.$ext" "${cli[@]}" simulate --preset "$preset" --out "$dir/a.$ext"
  step "import a.$ext" "${cli[@]}" import --snapshot "$dir/a.$ext" --db "$dir/a-$ext.db"
  step "export b.$ext" "${cli[@]}" export --db "$dir/a-$ext.db" --out "$dir/b.$ext"
  step "import b.$ext" "${cli[@]}" import --snapshot "$dir/b.$ext" --db "$dir/b-$ext.db"
  step "export c.$ext" "${cli[@]}" export --db "$dir/b-$ext.db" --out "$dir/c.$ext"
  cmp "$dir/b.$ext" "$dir/c.$ext"
  echo "  a.$ext $(stat -c %s "$dir/a.$ext") bytes; b.$ext = c.$ext ($(stat -c %s "$dir/c.$ext") bytes)"
  rm -f "$dir"/a.$ext "$dir"/b.$ext "$dir"/*-$ext.db*
done
echo "identical exports for both formats (load: $(cut -d' ' -f1-3 /proc/loadavg))"
