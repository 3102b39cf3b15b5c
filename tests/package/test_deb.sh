#!/usr/bin/env bash
# The Debian package (packaging/cpack.cmake): `cpack -G DEB` in a copy of the build's install
# rules, its control fields (name, version, the dependencies dpkg-shlibdeps found: Open MPI,
# oneTBB, libstdc++; the Python modules), its files, and the extracted tree working: geopipe
# --version, the shipped quick sweep, under mpirun -np 2, import geopipe. Where the test may
# change the machine (root, and GEOPIPE_TEST_DEB_INSTALL=1, as .ci/run sets it on its throwaway
# machine), the package is installed with `apt-get install ./geopipe_*.deb`, checked from /usr,
# and removed.
#   test_deb.sh BUILD_DIR VERSION
set -euo pipefail
build=$1 version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) || fail "cpack -G DEB: $(tail -5 "$tmp/cpack.log")"
deb=$(ls "$tmp"/out/geopipe_"$version"_*.deb 2>/dev/null | head -1 || true)
[ -n "$deb" ] || fail "no geopipe_${version}_*.deb in $(ls "$tmp/out")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = geopipe ] && [ "$(field Version)" = "$version" ] || fail "Package/Version: $(field Package) $(field Version)"
deps=$(field Depends)
for d in libopenmpi3 libtbb12 'libstdc++6' python3-numpy python3-pandas python3-h5py; do
  grep -q "$d" <<<"$deps" || fail "Depends lacks $d: $deps"
done
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/files"
for f in ./usr/bin/geopipe ./usr/bin/geopipe-full ./usr/lib/geopipe/geopipe-mpi.so ./usr/share/geopipe/sweeps/quick.toml \
         ./usr/share/doc/geopipe/README.md ./usr/share/geopipe/slurm/sweep.sbatch \
         "./usr/share/lmod/modulefiles/geopipe/$version.lua"; do
  grep -qx -- "$f" "$tmp/files" || fail "the package lacks $f"
done
grep -q '^\./usr/lib/python3[.0-9]*/dist-packages/geopipe/__init__\.py$' "$tmp/files" || fail "the package lacks the Python package"
# the extracted tree works where it lies (the install is relocatable)
dpkg-deb -x "$deb" "$tmp/root"
r=$tmp/root/usr
"$r/bin/geopipe" --version | grep -q '^geopipe ' || fail "the packaged geopipe does not run"
"$r/bin/geopipe" sweep "$r/share/geopipe/sweeps/quick.toml" -o "$tmp/q.h5" -q -t 2 --no-mpi || fail "the packaged quick sweep"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe \
  "$r/bin/geopipe" sweep "$r/share/geopipe/sweeps/quick.toml" -o "$tmp/m.h5" -q -t 1 || fail "the packaged sweep under mpirun -np 2"
pydir=$(dirname "$(dirname "$(find "$r/lib" -path '*/dist-packages/geopipe/__init__.py')")")
(cd "$tmp" && PYTHONPATH="$pydir" /usr/bin/python3 -c 'import geopipe, sys; assert len(geopipe.load(sys.argv[1])) == 480' "$tmp/q.h5") \
  || fail "the packaged Python package does not read the sweep"
if [ "$(id -u)" -eq 0 ] && [ "${GEOPIPE_TEST_DEB_INSTALL:-0}" = 1 ]; then
  if dpkg-query -W -f='${Status}' geopipe 2>/dev/null | grep -q "install ok installed"; then
    fail "a geopipe package is installed already: not replacing it"
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$tmp/apt.log" 2>&1 || fail "apt-get install: $(tail -5 "$tmp/apt.log")"
  ok=1
  [ "$(command -v geopipe)" = /usr/bin/geopipe ] && /usr/bin/geopipe --version | grep -q '^geopipe ' || ok=0
  (cd "$tmp" && /usr/bin/python3 -c 'import geopipe, sys; assert geopipe.__file__.startswith("/usr/lib/"); assert geopipe.__version__ == sys.argv[1]' "$version") || ok=0
  /usr/bin/geopipe sweep /usr/share/geopipe/sweeps/quick.toml -o "$tmp/i.h5" -q -t 2 --no-mpi || ok=0
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq geopipe >>"$tmp/apt.log" 2>&1 || fail "apt-get remove geopipe"
  [ "$ok" = 1 ] || fail "the installed package does not work from /usr"
  echo "deb: installed with apt-get, checked from /usr, removed"
fi
echo "deb: ok ($(basename "$deb"), $(wc -l <"$tmp/files") entries)"
