// TOML text of string values, both ways: quoting a string as a TOML basic string and turning
// the text of a TOML string value back into the string. Plain C++ (no toml++), so that any
// layer can use it (the sweep runner stores swept text values without their quotes).
#pragma once

#include <string>

namespace geopipe::config {

/// `s` as a TOML basic string literal: in double quotes, with '"' and '\' escaped and control
/// characters (< 0x20, 0x7f) written as \u00XX. toml_unquote(toml_quote(s)) == s.
std::string toml_quote(const std::string& s);

/// The string a TOML string value's text stands for:
///  * 'literal' (single quotes): the text between the quotes, as is;
///  * "basic" (double quotes): the TOML escapes \b \t \n \f \r \" \\ resolved, \uXXXX and
///    \UXXXXXXXX written as UTF-8; an unknown escape (\x, ...), a \u or \U with too few hex
///    digits or above U+10FFFF, and a backslash right before the closing quote are kept verbatim;
///  * anything else (numbers, booleans, arrays, unquoted text): returned unchanged.
std::string toml_unquote(const std::string& text);

}  // namespace geopipe::config
