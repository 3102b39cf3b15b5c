// Fuzz target: parse_toml hands toml++ the text without the comments scan_toml_limits lists
// (config/toml_limits.h, docs/design.md "Config"); that must change nothing toml++ makes of any
// text. Input: a TOML text. Both texts go to toml++; their images (toml_image.h: the error and
// its place, or every node with its place and exact value) must be equal, else it is a finding
// (std::logic_error). Texts the pre-scan refuses, or without a listed comment, are skipped.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config/toml_limits.h"
#include "fuzz_target.h"
#include "toml_image.h"

const char* const kFuzzTargetName = "toml_comments";

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<geopipe::config::TomlCommentSpan> comments;
  if (geopipe::config::scan_toml_limits(text, comments) || comments.empty()) return 0;
  const std::string kept = geopipe::fuzz::toml_image(text);
  const std::string spared = geopipe::fuzz::toml_image(geopipe::config::without_comments(text, comments));
  if (kept != spared)
    throw std::logic_error("removing the listed comments changed what toml++ makes of the text:\n  with them:    " +
                           kept.substr(0, 2000) + "\n  without them: " + spared.substr(0, 2000));
  return 0;
}
