// All that toml++ makes of a text, as one string (tests/fuzz/fuzz_toml_comments.cpp and
// tests/config/test_hostile_input.cpp, "TomlComments"): two texts with equal images are the
// same to every reader of toml++'s result, geopipe's loaders included.
#pragma once

#include <toml++/toml.h>

#include <bit>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace geopipe::fuzz {

namespace detail {

inline void image_of(const toml::node& n, std::ostringstream& os) {
  os << '@' << n.source().begin << ".." << n.source().end << ' ';
  if (const toml::table* t = n.as_table()) {
    os << (t->is_inline() ? "inline-table{" : "table{");
    for (const auto& [key, value] : *t) {
      os << '"' << key.str() << "\"@" << key.source().begin << '=';
      image_of(value, os);
      os << ';';
    }
    os << '}';
  } else if (const toml::array* a = n.as_array()) {
    os << "array[";
    for (const toml::node& e : *a) {
      image_of(e, os);
      os << ',';
    }
    os << ']';
  } else if (const auto* i = n.as_integer()) {
    os << "int " << i->get() << " flags " << static_cast<int>(i->flags());
  } else if (const auto* f = n.as_floating_point()) {
    os << "float " << std::bit_cast<std::uint64_t>(f->get());  // every bit, NaN payloads and -0 too
  } else if (const auto* s = n.as_string()) {
    os << "string " << s->get().size() << ':' << s->get();
  } else if (const auto* b = n.as_boolean()) {
    os << "bool " << b->get();
  } else if (const auto* d = n.as_date()) {
    os << "date " << d->get();
  } else if (const auto* tm = n.as_time()) {
    os << "time " << tm->get();
  } else if (const auto* dt = n.as_date_time()) {
    os << "date-time " << dt->get();
  }
}

}  // namespace detail

/// toml++'s verdict on `text` (named "f.toml"): its error (description and place), or every
/// node and key of the document in order, each with its place, kind and exact value.
inline std::string toml_image(std::string_view text) {
  std::ostringstream os;
  try {
    const toml::table doc = toml::parse(text, std::string_view("f.toml"));
    detail::image_of(doc, os);
  } catch (const toml::parse_error& e) {
    os << "error @" << e.source().begin << ".." << e.source().end << ": " << e.description();
  }
  return os.str();
}

}  // namespace geopipe::fuzz
