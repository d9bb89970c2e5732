#!/usr/bin/env bash
# consumer-test.sh BUILD_DIR CONSUMER_SOURCE WORK_DIR CMAKE CXX VERSION PYTHON(ON|OFF)
# (registered by CMakeLists.txt beside it)
set -euo pipefail
build="$1" consumer="$2" work="$3" cmake="$4" cxx="$5" version="$6" python="$7"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"

echo "-- cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
test -f "$prefix/include/edgemt/status.h"
pc="$(find "$prefix" -name edgemt.pc)"
config="$(find "$prefix" -name EdgeMTConfig.cmake)"
test -n "$pc" && test -n "$config"
find "$prefix" -type f -o -type l | sed "s|^$prefix/|   |" | sort

echo "-- find_package(EdgeMT)"
"$cmake" -S "$consumer" -B "$work/cmake-consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DEDGEMT_EXPECTED_VERSION="$version" \
  >"$work/cmake-consumer.log" 2>&1 || { cat "$work/cmake-consumer.log"; exit 1; }
"$cmake" --build "$work/cmake-consumer" >"$work/cmake-consumer-build.log" 2>&1 ||
  { cat "$work/cmake-consumer-build.log"; exit 1; }
"$work/cmake-consumer/edgemt_consumer"

echo "-- pkg-config edgemt"
export PKG_CONFIG_PATH="$(dirname "$pc")"
test "$(pkg-config --modversion edgemt)" = "$version"
flags="$(pkg-config --cflags --libs edgemt)"
echo "   $flags"
# shellcheck disable=SC2086 # the flags are words
"$cxx" -std=c++17 -o "$work/pkgconfig-consumer" "$consumer/main.cc" $flags
"$work/pkgconfig-consumer"
echo "-- pkg-config edgemt-c: examples/translate.c against libedgemt.so"
test "$(pkg-config --modversion edgemt-c)" = "$version"
cflags="$(pkg-config --cflags --libs edgemt-c)"
echo "   $cflags"
# shellcheck disable=SC2086 # the flags are words
cc -std=c99 -Wall -Werror -o "$work/translate-c" "$consumer/../../../examples/translate.c" $cflags
# Every symbol resolved at load time; without a model it prints its usage and exits 2.
set +e
LD_BIND_NOW=1 LD_LIBRARY_PATH="$(pkg-config --variable=libdir edgemt-c)" "$work/translate-c" 2>"$work/usage.txt"
code=$?
set -e
test "$code" -eq 2 && grep -q "usage:" "$work/usage.txt"
# The Python package: importable from the prefix alone. A build without it
# (-DEDGEMT_PYTHON=OFF) reports this test skipped (77), not passed.
site="$prefix/lib/python3/dist-packages"
if [ "$python" = ON ]; then
  test -d "$site/edgemt" || { echo "the build has the Python module, but $site/edgemt was not installed"; exit 1; }
  echo "-- python: import edgemt from $site"
  PYTHONPATH="$site" /usr/bin/python3 -c "import edgemt, sys; assert edgemt.__file__.startswith(sys.argv[1]); assert edgemt.__version__ == sys.argv[2]; print('   edgemt', edgemt.__version__)" "$site" "$version"
else
  echo "install_consumer: skipped: the Python package was not checked (this build has -DEDGEMT_PYTHON=OFF)"
  exit 77
fi
echo "install_consumer: ok"
