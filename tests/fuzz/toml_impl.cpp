// The toml++ implementation, compiled once with the fuzz build's instrumentation
// (cmake/fuzz.cmake); every other file includes toml++ with TOML_HEADER_ONLY=0.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
