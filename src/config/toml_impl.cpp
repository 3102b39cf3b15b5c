// The toml++ implementation, compiled once into the static library geopipe_tomlplusplus
// (CMakeLists.txt): every other file includes toml++ with TOML_HEADER_ONLY=0. Debian's shared
// libtomlplusplus is not linked, so the front end `geopipe` has no toml++ (or libstdc++)
// relocations to resolve at start, and the fuzz build (cmake/fuzz.cmake) instruments the
// parser with everything else.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
