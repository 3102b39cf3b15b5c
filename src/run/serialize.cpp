#include "run/serialize.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace geopipe::sweep {
namespace {

// Bumped whenever the encoding changes (2: metrics and job rows by their field lists).
constexpr std::uint8_t kVersion = 2;

class Writer {
 public:
  explicit Writer(std::vector<char>& out) : out_(out) { out_.clear(); }
  template <class T>
  void pod(const T& v) {
    const auto n = out_.size();
    out_.resize(n + sizeof(T));
    std::memcpy(out_.data() + n, &v, sizeof(T));
  }
  void str(const std::string& s) {
    pod(static_cast<std::uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  /// One field of a row: strings with their length, numbers as their bytes.
  template <class T>
  void field(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) str(v);
    else pod(v);
  }

 private:
  std::vector<char>& out_;
};

class Reader {
 public:
  Reader(const char* d, std::size_t n) : d_(d), n_(n) {}
  template <class T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, d_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string str() {
    const auto len = pod<std::uint32_t>();
    need(len);
    std::string s(d_ + pos_, len);
    pos_ += len;
    return s;
  }
  template <class T>
  void field(T& v) {
    if constexpr (std::is_same_v<T, std::string>) v = str();
    else v = pod<T>();
  }
  bool done() const { return pos_ == n_; }

 private:
  void need(std::size_t k) const {
    if (pos_ + k > n_) throw std::runtime_error("truncated MPI message");
  }
  const char* d_;
  std::size_t n_, pos_ = 0;
};

}  // namespace

void encode_results(const std::vector<ScenarioResult>& results, std::vector<char>& out) {
  Writer w(out);
  w.pod(kVersion);
  w.pod(static_cast<std::uint32_t>(results.size()));
  for (const ScenarioResult& r : results) {
    w.pod(r.id);
    w.pod(static_cast<std::uint8_t>(r.ok));
    if (r.ok) {
      for_each_metric(r.metrics, [&](const MetricDef&, const auto& v) { w.pod(v); });
    } else {
      w.str(r.error);
    }
    w.pod(static_cast<std::uint32_t>(r.jobs.size()));
    for (const JobRow& j : r.jobs) for_each_job_column(j, [&](const char*, const auto& v) { w.field(v); });
  }
}

void decode_results(const char* data, std::size_t size, std::vector<ScenarioResult>& out) {
  Reader r(data, size);
  if (r.pod<std::uint8_t>() != kVersion) throw std::runtime_error("MPI message from a different geopipe build");
  const auto n = r.pod<std::uint32_t>();
  out.clear();
  out.reserve(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    ScenarioResult s;
    s.id = r.pod<std::int64_t>();
    s.ok = r.pod<std::uint8_t>() != 0;
    if (s.ok)
      for_each_metric(s.metrics, [&](const MetricDef&, auto& v) { r.field(v); });
    else
      s.error = r.str();
    const auto nj = r.pod<std::uint32_t>();
    s.jobs.resize(nj);
    for (JobRow& j : s.jobs) for_each_job_column(j, [&](const char*, auto& v) { r.field(v); });
    out.push_back(std::move(s));
  }
  if (!r.done()) throw std::runtime_error("trailing bytes in MPI message");
}

void encode_ranges(const std::vector<IdRange>& ranges, std::vector<char>& out) {
  Writer w(out);
  w.pod(kVersion);
  w.pod(static_cast<std::uint32_t>(ranges.size()));
  for (const IdRange& x : ranges) {
    w.pod(x.first);
    w.pod(x.last);
  }
}

void decode_ranges(const char* data, std::size_t size, std::vector<IdRange>& out) {
  Reader r(data, size);
  if (r.pod<std::uint8_t>() != kVersion) throw std::runtime_error("MPI message from a different geopipe build");
  const auto n = r.pod<std::uint32_t>();
  out.resize(n);
  for (IdRange& x : out) {
    x.first = r.pod<std::int64_t>();
    x.last = r.pod<std::int64_t>();
  }
  if (!r.done()) throw std::runtime_error("trailing bytes in MPI message");
}

}  // namespace geopipe::sweep
