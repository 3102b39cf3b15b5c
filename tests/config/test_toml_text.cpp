// Tests of config/toml_text.h: toml_quote() and toml_unquote() (the text of a TOML string value
// back to the string, as the sweep store writes swept text values).
#include <gtest/gtest.h>

#include <string>

#include "config/toml_text.h"

using geopipe::config::toml_quote;
using geopipe::config::toml_unquote;

TEST(TomlText, QuoteEscapes) {
  EXPECT_EQ(toml_quote(""), "\"\"");
  EXPECT_EQ(toml_quote("cost-first"), "\"cost-first\"");
  EXPECT_EQ(toml_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(toml_quote(std::string("t\tn\n\x01\x7f", 6)), "\"t\\u0009n\\u000a\\u0001\\u007f\"");
}

TEST(TomlText, UnquoteBasicEscapes) {
  EXPECT_EQ(toml_unquote("\"\""), "");
  EXPECT_EQ(toml_unquote("\"bace-pipe\""), "bace-pipe");
  EXPECT_EQ(toml_unquote(R"("a\"b")"), "a\"b");
  EXPECT_EQ(toml_unquote(R"("back\\slash")"), "back\\slash");
  EXPECT_EQ(toml_unquote(R"("n\nt\tr\r")"), "n\nt\tr\r");
}

TEST(TomlText, UnquoteUnicodeEscapesToUtf8) {
  EXPECT_EQ(toml_unquote(R"("\u0041")"), "A");
  EXPECT_EQ(toml_unquote(R"("\u00e9")"), "\xc3\xa9");                // U+00E9, 2 bytes
  EXPECT_EQ(toml_unquote(R"("\u20AC")"), "\xe2\x82\xac");            // U+20AC, 3 bytes (hex case-insensitive)
  EXPECT_EQ(toml_unquote(R"("\U0001F600")"), "\xf0\x9f\x98\x80");    // U+1F600, 4 bytes
  EXPECT_EQ(toml_unquote(R"("\U00000041x")"), "Ax");
  EXPECT_EQ(toml_unquote(R"("x\u0000y")"), std::string("x\0y", 3));
}

TEST(TomlText, UnquoteKeepsInvalidOrShortEscapesVerbatim) {
  EXPECT_EQ(toml_unquote(R"("\b\f\x")"), "\b\f\\x");            // TOML's \b \f; \x is no escape
  EXPECT_EQ(toml_unquote(R"("\u12")"), R"(\u12)");                // too few digits before the quote
  EXPECT_EQ(toml_unquote(R"("\u12g4")"), R"(\u12g4)");            // not a hex digit
  EXPECT_EQ(toml_unquote(R"("\U00110000")"), R"(\U00110000)");    // above U+10FFFF
  EXPECT_EQ(toml_unquote(R"("\U0041")"), R"(\U0041)");            // \U needs 8 digits
  EXPECT_EQ(toml_unquote(R"("end\")"), R"(end\)");                // backslash before the closing quote
  EXPECT_EQ(toml_unquote(R"("\")"), R"(\)");
}

TEST(TomlText, UnquoteLiteralStrings) {
  EXPECT_EQ(toml_unquote("'C:\\path\\n'"), "C:\\path\\n");  // no escapes in literal strings
  EXPECT_EQ(toml_unquote("''"), "");
  EXPECT_EQ(toml_unquote("'say \"hi\"'"), "say \"hi\"");
}

TEST(TomlText, UnquoteLeavesOtherTextUnchanged) {
  for (const char* t : {"", "1.5", "-3", "true", "[1, 2]", "{ a = 1 }", "bare", "\"", "'", "\"open", "'open",
                        "close\"", "'mixed\"", "\"mixed'"})
    EXPECT_EQ(toml_unquote(t), t) << t;
}

TEST(TomlText, UnquoteUndoesQuote) {
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte += static_cast<char>(c);
  for (const std::string& s :
       {std::string(), std::string("plain"), std::string("\"quoted\""), std::string("'single'"),
        std::string("back\\slash\\"), std::string("\\u0041 stays text"), std::string("tab\tnewline\ncr\r"),
        std::string("nul\0inside", 10), std::string("del\x7f"), std::string("utf-8 \xc3\xa9\xe2\x82\xac"),
        std::string("\\"), std::string("\"\\\""), every_byte})
    EXPECT_EQ(toml_unquote(toml_quote(s)), s) << toml_quote(s);
}
