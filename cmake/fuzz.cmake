# GEOPIPE_FUZZ=ON (scripts/fuzz.sh, build-fuzz/): every target is compiled with coverage
# instrumentation for libFuzzer plus ASan and UBSan (any UBSan report aborts, so it is a
# finding) and libstdc++'s assertions (an out-of-range operator[] on a vector or string aborts
# even where ASan cannot see it, inside the vector's capacity); the fuzz targets of tests/fuzz
# link libFuzzer itself (-fsanitize=fuzzer).
# Needs clang (Debian: clang-14 and libclang-rt-14-dev).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "GEOPIPE_FUZZ needs clang (libFuzzer), e.g. CC=clang-14 CXX=clang++-14; "
                      "the compiler is ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS)
add_link_options(-fsanitize=address,undefined)

# toml++ is compiled in-tree in every build (geopipe_tomlplusplus, CMakeLists.txt), so here it
# gets the same instrumentation: the fuzzers see the parser's branches and its crashes.
