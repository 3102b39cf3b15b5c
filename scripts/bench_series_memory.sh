#!/usr/bin/env bash
# Memory of time series at the input limit (docs/limits.md, "Input files"): writes series files
# of just under 256 MiB (the largest accepted) into a temp dir and prints the wall time and
# peak RSS (`/usr/bin/time`) of `geopipe validate` and `geopipe run` on
#   one   - one link whose file has no reverse column (25.4 M steps: both directions one series),
#   rev   - one link whose file has a reverse column (21.5 M steps: two series),
#   five  - five files at the limit: three links (one with a reverse column), a price series
#           and a carbon series (validate only, also under `ulimit -v 4000000`).
# Values alternate, so that no step merges away. Needs ~1.4 GB of disk and ~3 GB of memory.
#   scripts/bench_series_memory.sh [GEOPIPE]   (default build/src/geopipe)
set -euo pipefail
cd "$(dirname "$0")/.."
G=$(readlink -f "${1:-build/src/geopipe}")
[ -x "$G" ] || { echo "build first: cmake --build build" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
lim = 256 * 1024 * 1024
def write(name, header, row):
    with open(f"{tmp}/{name}", "w") as f:
        f.write(header)
        size, i = len(header), 0
        while True:
            for k in range(i, i + 100_000):
                r = row(k)
                if size + len(r) > lim:
                    return
                f.write(r)
                size += len(r)
            i += 100_000
write("bw.csv", "time_s,bandwidth_gbps\n", lambda i: f"{i},{1 + (i & 1)}\n")
write("bw_rev.csv", "time_s,bandwidth_gbps,reverse_bandwidth_gbps\n", lambda i: f"{i},{1 + (i & 1)},{2 - (i & 1)}\n")
write("price.csv", "time_s,usd_per_kwh\n", lambda i: f"{i},0.{1 + (i & 1)}\n")
write("carbon.csv", "time_s,carbon_g_per_kwh\n", lambda i: f"{i},{100 + (i & 1)}\n")
def scenario(name, links, region_a="price_usd_per_kwh = 0.1", region_b="price_usd_per_kwh = 0.1"):
    text = f'[scenario]\nname = "{name}"\n[sim]\nseries_end = "wrap"\n'
    for (a, b), f in links:
        text += f'[[network.link]]\nregions = ["{a}", "{b}"]\nbandwidth_trace = "{f}"\nlatency_ms = 10\n'
    for r, extra in (("a", region_a), ("b", region_b), ("c", "price_usd_per_kwh = 0.1")):
        text += f'[[cluster.region]]\nname = "{r}"\ngpu = "A100-80GB"\ngpus = 8\n{extra}\n'
    text += '[workload]\nnum_jobs = 10\n[[workload.mix]]\nmodel = "gpt3-1.3b"\nmicro_batches = 4\n'
    open(f"{tmp}/{name}.toml", "w").write(text)
scenario("one", [(("a", "b"), "bw.csv")])
scenario("rev", [(("a", "b"), "bw_rev.csv")])
import shutil
shutil.copyfile(f"{tmp}/bw.csv", f"{tmp}/bw_copy.csv")  # a third distinct link file
scenario("five", [(("a", "b"), "bw.csv"), (("a", "c"), "bw_rev.csv"), (("b", "c"), "bw_copy.csv")],
         'price_series = "price.csv"', 'price_usd_per_kwh = 0.1\ncarbon_series = "carbon.csv"')
PY
echo "| scenario | command | wall s | max RSS MB | exit |"
echo "|---|---|---|---|---|"
measure() {  # scenario command [ulimit -v KB]
  local lim=${3:-unlimited}
  ( ulimit -v "$lim"; /usr/bin/time -f "%e %M %x" -o "$tmp/t" "$G" "$2" "$tmp/$1.toml" >/dev/null 2>"$tmp/err" ) || true
  read -r wall rss rc < <(tail -1 "$tmp/t") || true
  echo "| $1 | $2$([ "$lim" = unlimited ] || echo " (ulimit -v $lim)") | $wall | $((rss / 1024)) | $rc |"
}
for s in one rev; do measure "$s" validate; measure "$s" run; done
measure five validate
measure five validate 4000000
