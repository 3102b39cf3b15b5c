// FNV-1a 64-bit hashing and its 16-hex-digit text form: the one definition used for sweep
// hashes, named random streams (model/rng.h) and anything else that needs a stable,
// platform-independent 64-bit digest of bytes. Not cryptographic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace geopipe::util {

inline constexpr std::uint64_t kFnv1a64Basis = 0xCBF29CE484222325ULL;
inline constexpr std::uint64_t kFnv1a64Prime = 0x100000001B3ULL;

/// FNV-1a over the bytes of `data`, continuing from `h` (the basis for a fresh hash), so a
/// digest of several pieces is fnv1a64(b, fnv1a64(a)).
constexpr std::uint64_t fnv1a64(std::string_view data, std::uint64_t h = kFnv1a64Basis) {
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= kFnv1a64Prime;
  }
  return h;
}

/// Exactly 16 lowercase hex digits, most significant first ("00000000000000ff").
inline std::string hex16(std::uint64_t h) {
  constexpr const char* kDigits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = kDigits[h & 15];
    h >>= 4;
  }
  return s;
}

}  // namespace geopipe::util
