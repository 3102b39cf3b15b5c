// The bottom layer: FNV-1a known answers, hex form, exit-code mapping, path checks.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "model/rng.h"
#include "util/csv.h"
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
