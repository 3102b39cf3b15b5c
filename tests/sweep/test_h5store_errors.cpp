// Bad input and failures of the HDF5 result store: files that are not geopipe's, existing
// outputs, bad directories, a full disk; texts too long for their column.
#include <gtest/gtest.h>
#include <hdf5.h>

#include "h5store_testing.h"

using namespace geopipe;
using namespace geopipe::sweep;
using namespace geopipe::h5store_testing;
namespace fs = std::filesystem;

namespace {

// ---- bad input and failures --------------------------------------------------------------------

TEST(H5StoreErrors, NonGeopipeInputsAreInputErrors) {
  TempDir dir;
  const std::string text = dir.file("notes.txt");
  std::ofstream(text) << "this is not HDF5\n";
  try {
    ResultStore::read(text);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), text);
    EXPECT_NE(e.message().find("not a geopipe result file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_joined(text), InputError);

  // A valid HDF5 file that is not ours.
  const std::string other = dir.file("other.h5");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t f = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  H5Fclose(f);
  try {
    ResultStore::read(other);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), other);
    EXPECT_NE(e.message().find("not a geopipe result file"), std::string::npos) << e.what();
  }

  // A truncated geopipe file.
  const std::string good = dir.file("good.h5");
  create_small(good, false)->finalize();
  const std::string cut = dir.file("cut.h5");
  {
    const std::string bytes = slurp(good);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  EXPECT_THROW(ResultStore::read(cut), InputError);

  try {
    ResultStore::read(dir.file("missing.h5"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir.file("missing.h5"));
  }
}

TEST(H5StoreErrors, CreateRefusesExistingOutputAndBadDirectory) {
  TempDir dir;
  const std::string path = dir.file("exists.h5");
  std::ofstream(path) << "precious";
  EXPECT_THROW(create_small(path, false), InputError);
  EXPECT_EQ(slurp(path), "precious");

  const std::string bad = dir.file("no/such/dir/out.h5");
  try {
    create_small(bad, false);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), bad);
    EXPECT_NE(e.message().find("No such file or directory"), std::string::npos) << e.what();
  }
}

TEST(H5StoreErrors, FullDiskGivesAClearMessage) {
  TempDir dir;
  const std::string path = dir.file("full.h5");
  Child c;
  spawn(c, {GEOPIPE_H5_CRASH_WRITER, "fsize", path, "1000000"});
  std::string line, all;
  while (c.line(line, 120000)) all += line + "\n";
  const int st = c.wait();
  ASSERT_TRUE(WIFEXITED(st)) << "writer crashed: " << all;
  EXPECT_EQ(WEXITSTATUS(st), 3) << all;
  EXPECT_NE(all.find("ERR " + path), std::string::npos) << all;
  EXPECT_NE(all.find("File too large"), std::string::npos) << all;
  std::cout << "[ full     ] " << all;
}

}  // namespace

// A text longer than its column keeps its start and end around a visible marker (never a
// silent cut), on a UTF-8 boundary; a text that fits is stored as is.
TEST(H5Table, TooLongTextIsShortenedVisibly) {
  namespace h5 = geopipe::sweep::h5;
  h5::Layout l;
  l.add("message", h5::Kind::Str, h5::kErrorWidth);
  std::vector<unsigned char> row(l.size);
  std::string longer = "start ";
  for (int i = 0; i < 1000; ++i) longer += "\u00e9t\u00e9 ";
  longer += " the end";
  h5::put_str(row.data(), l.fields[0], longer);
  const std::string got = h5::get_str(row.data(), l.fields[0]);
  EXPECT_LE(got.size(), h5::kErrorWidth);
  EXPECT_EQ(got.rfind("start ", 0), 0u) << got;
  EXPECT_NE(got.find("bytes omitted"), std::string::npos) << got;
  EXPECT_EQ(got.substr(got.size() - 8), " the end") << got;
  const std::string fits = "a short message";
  h5::put_str(row.data(), l.fields[0], fits);
  EXPECT_EQ(h5::get_str(row.data(), l.fields[0]), fits);
}
