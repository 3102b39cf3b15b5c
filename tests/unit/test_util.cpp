// The bottom layer: FNV-1a known answers, hex form, exit-code mapping, path checks, the helpers
// input errors are written with.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "model/rng.h"
#include "util/csv.h"
#include "util/csv_read.h"
#include "util/input_error.h"
#include "util/exit_codes.h"
#include "util/hash.h"
#include "util/system.h"

using namespace geopipe;

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
TEST(Csv, FieldsAreQuotedOnlyWhenNeeded) {
  EXPECT_EQ(util::csv_field("us-east"), "us-east");
  EXPECT_EQ(util::csv_field("us,east"), "\"us,east\"");
  EXPECT_EQ(util::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(util::csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(util::csv_field(""), "");
  EXPECT_EQ(util::csv_number(0.1), "0.1");
  EXPECT_EQ(util::csv_number(1e300), "1e+300");
  EXPECT_EQ(util::csv_number(std::nan("")), "");
}

// The one CSV syntax of the readers (util/csv_read.h): what it accepts, cell by cell.
TEST(CsvRead, Rfc4180WithBomCommentsAndBothLineEnds) {
  const std::string text =
      "\xEF\xBB\xBF" "a, b ,c\r\n"  // a BOM, spaces trimmed, CRLF
      "# a comment line\n"
      "   \n"                          // a blank line
      "1,\"x, \"\"y\"\"\" , \n"   // a quoted cell with a comma and quotes; an empty last cell
      "\"two\r\nlines\",\u00e9t\u00e9,3";  // a quoted CRLF; UTF-8 counted as characters
  const auto recs = util::read_csv(text, "t.csv");
  ASSERT_EQ(recs.size(), 3u);
  ASSERT_EQ(recs[0].cells.size(), 3u);
  EXPECT_EQ(recs[0].cells[0].text, "a");
  EXPECT_EQ(recs[0].cells[0].column, 1);  // after the BOM
  EXPECT_EQ(recs[0].cells[1].text, "b");
  EXPECT_EQ(recs[0].cells[1].column, 4);
  EXPECT_EQ(recs[1].line, 4);
  ASSERT_EQ(recs[1].cells.size(), 3u);
  EXPECT_EQ(recs[1].cells[1].text, "x, \"y\"");
  EXPECT_TRUE(recs[1].cells[1].quoted);
  EXPECT_EQ(recs[1].cells[2].text, "");
  EXPECT_EQ(recs[2].cells[0].text, "two\nlines");
  EXPECT_EQ(recs[2].cells[1].text, "\u00e9t\u00e9");
  EXPECT_EQ(recs[2].cells[2].column, 12);  // "two / lines", then 'été,' : characters, not bytes
  EXPECT_EQ(recs[2].line, 5);
}

// for_each_csv_record reuses one record: a long record, then shorter and quoted ones, must come
// out exactly as read_csv gives them.
TEST(CsvRead, RecordByRecordIsReadCsv) {
  const std::string text = "a,b,c,d,e\n\"q\"\"1\",x\n# c\n\n,,,\n\"long cell, with a comma\",2\r\nlast";
  const auto all = util::read_csv(text, "t.csv");
  std::vector<util::CsvRecord> one_by_one;
  util::for_each_csv_record(text, "t.csv", [&](const util::CsvRecord& r) { one_by_one.push_back(r); });
  ASSERT_EQ(one_by_one.size(), all.size());
  ASSERT_EQ(all.size(), 5u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(one_by_one[i].line, all[i].line);
    ASSERT_EQ(one_by_one[i].cells.size(), all[i].cells.size()) << i;
    for (std::size_t c = 0; c < all[i].cells.size(); ++c) {
      const util::CsvCell &x = one_by_one[i].cells[c], &y = all[i].cells[c];
      EXPECT_EQ(x.text, y.text);
      EXPECT_EQ(x.quoted, y.quoted);
      EXPECT_EQ(x.line, y.line);
      EXPECT_EQ(x.column, y.column);
    }
  }
  EXPECT_EQ(all[1].cells.size(), 2u);
  EXPECT_EQ(all[1].cells[0].text, "q\"1");
  EXPECT_TRUE(all[1].cells[0].quoted);
  EXPECT_FALSE(all[2].cells[0].quoted);  // the reused cell forgets it was quoted
  EXPECT_EQ(all[2].cells.size(), 4u);
  EXPECT_EQ(all[4].cells[0].text, "last");
}

TEST(CsvRead, WhatIsNotTextIsAnErrorAtItsPosition) {
  auto error_of = [](const std::string& text) {
    try {
      (void)util::read_csv(text, "t.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(std::string("a,b\n1,x\0y\n", 11)),
            "t.csv:2:4: a control character (byte 0x00) (expected text: a CSV file holds no NUL or other control characters but tab)");
  EXPECT_EQ(error_of("a\n\xff\n"), "t.csv:2:1: byte 0xff is not UTF-8 (expected a UTF-8 text file: save it as \"CSV UTF-8\")");
  EXPECT_EQ(error_of("a\rb\n"), "t.csv:1:2: a carriage return without a line feed (expected LF or CRLF line ends)");
  EXPECT_EQ(error_of("a,\"b\n"), "t.csv:1:3: unclosed quote (expected a closing \")");
  EXPECT_EQ(error_of("a,\"b\"c\n"), "t.csv:1:6: text after a closing quote (expected , or the end of the line)");
  EXPECT_EQ(error_of("a, \"b\"\n"), "t.csv:1:4: a quote after spaces at the start of a cell (expected the quote as its first character)");
  EXPECT_EQ(error_of("a\tb\n"), "accepted");  // tab is text
}

TEST(CsvRead, OneNumberSyntax) {
  for (const char* ok : {"12", "-0.5", "+1e3", ".5", "5.", "1E-3", "0"}) EXPECT_TRUE(util::parse_decimal(ok).has_value()) << ok;
  EXPECT_EQ(*util::parse_decimal("+1e3"), 1000.0);
  EXPECT_EQ(*util::parse_decimal("-0.5"), -0.5);
  for (const char* bad : {"", "+", "-", ".", "e3", "1e", "1e+", "0x10", "0x1p3", "inf", "-inf", "nan", "1_000", "1,5",
                          " 1", "1 ", "1.2.3", "--1", "1e999", "\u0661"})
    EXPECT_FALSE(util::parse_decimal(bad).has_value()) << bad;
}

TEST(Hash, Fnv1a64KnownAnswersAndChaining) {
  // Reference values of FNV-1a 64 (Fowler/Noll/Vo test vectors).
  EXPECT_EQ(util::fnv1a64(""), 0xCBF29CE484222325ULL);
  EXPECT_EQ(util::fnv1a64("a"), 0xAF63DC4C8601EC8CULL);
  EXPECT_EQ(util::fnv1a64("foobar"), 0x85944171F73967E8ULL);
  EXPECT_EQ(util::fnv1a64("bar", util::fnv1a64("foo")), util::fnv1a64("foobar"));
  static_assert(util::fnv1a64("a") == 0xAF63DC4C8601EC8CULL, "usable at compile time");
  // Named random streams are FNV-1a of their label.
  EXPECT_EQ(hash_label("workload"), util::fnv1a64("workload"));
}

TEST(Hash, Hex16IsSixteenLowercaseDigits) {
  EXPECT_EQ(util::hex16(0), "0000000000000000");
  EXPECT_EQ(util::hex16(0xABCULL), "0000000000000abc");
  EXPECT_EQ(util::hex16(0xAF63DC4C8601EC8CULL), "af63dc4c8601ec8c");
  EXPECT_EQ(util::hex16(~0ULL), "ffffffffffffffff");
}

TEST(ExitCodes, GuardedMapsExceptionsToCodes) {
  EXPECT_EQ(util::guarded([] { return 7; }), 7);
  EXPECT_EQ(util::guarded([]() -> int { throw InputError("f.toml", 3, 4, "bad"); }), util::kExitInput);
  EXPECT_EQ(util::guarded([]() -> int { throw std::logic_error("bug"); }), util::kExitInternal);
}

TEST(DidYouMean, Levenshtein) {
  EXPECT_EQ(util::edit_distance("", ""), 0u);
  EXPECT_EQ(util::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(util::edit_distance("abc", "ABC"), 0u);
  const std::vector<std::string> keys = {"bandwidth_scale", "intra_bandwidth_gbps", "intra_latency_ms", "link"};
  EXPECT_EQ(util::did_you_mean("bandwith_scale", keys), "bandwidth_scale");
  EXPECT_EQ(util::did_you_mean("lnk", keys), "link");        // len 3 -> max distance 1
  EXPECT_EQ(util::did_you_mean("lk", keys), std::nullopt);   // distance 2 > max(1, 0)
  EXPECT_EQ(util::did_you_mean("zzzzzzzzzz", keys), std::nullopt);
  EXPECT_EQ(util::suggestion_suffix("bace_pipe", {"bace-pipe", "cost-first"}), " (did you mean 'bace-pipe'?)");
  EXPECT_EQ(util::suggestion_suffix("qqq", {"bace-pipe"}), "");
}

// The list and number forms of messages ("expected one of 'a', 'b'", "got 0.1").
TEST(MessageText, QuotedListsAndShortestNumbers) {
  EXPECT_EQ(util::quoted_list({}), "");
  EXPECT_EQ(util::quoted_list({"a"}), "'a'");
  EXPECT_EQ(util::quoted_list({"a", "b", "c"}), "'a', 'b', 'c'");
  EXPECT_EQ(util::quoted_list({"a", "b", "c"}, 2), "'a', 'b', ...");
  EXPECT_EQ(util::format_number(0.1), "0.1");
  EXPECT_EQ(util::format_number(-1), "-1");
  EXPECT_EQ(util::format_number(200), "200");
  EXPECT_EQ(util::format_number(1e20), "1e+20");
  EXPECT_EQ(util::format_number(std::nan("")), "nan");
  EXPECT_EQ(util::format_number(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(System, TimestampShapeAndPathExistsSeesDanglingLinks) {
  const std::string t = util::utc_now_iso8601();
  ASSERT_EQ(t.size(), 20u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
  char dir[] = "/tmp/geopipe-util-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string link = std::string(dir) + "/dangling";
  EXPECT_FALSE(util::path_exists(link));
  ASSERT_EQ(symlink("/nonexistent/target", link.c_str()), 0);
  EXPECT_TRUE(util::path_exists(link));  // a link to nothing still occupies the name
  unlink(link.c_str());
  rmdir(dir);
}
