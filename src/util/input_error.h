// The one exception type for bad input (scenario files, traces, --set overrides, sweep files).
// Its message is always "file:line:col: what is wrong (expected ...)"; the CLI maps it to
// exit code 2. Line/column are 1-based; 0 means "unknown" and is omitted from the message.
#pragma once

#include <stdexcept>
#include <string>

namespace geopipe {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, int column, const std::string& message)
      : std::runtime_error(format(file, line, column, message)),
        file_(std::move(file)), line_(line), column_(column), message_(message) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  /// The message without the location prefix.
  const std::string& message() const { return message_; }

  static std::string format(const std::string& file, int line, int column, const std::string& msg) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (line > 0) {
      s += ":" + std::to_string(line);
      if (column > 0) s += ":" + std::to_string(column);
    }
    return s + ": " + msg;
  }

 private:
  std::string file_;
  int line_, column_;
  std::string message_;
};

}  // namespace geopipe
