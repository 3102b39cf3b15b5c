// What several of test_core's files share. test_core is compiled as one translation unit (a
// unity build, GEOPIPE_UNITY_BUILD): a name defined in two files' anonymous namespaces would
// be defined twice, so a helper two files need lives here, once.
#pragma once

#include <limits>

namespace geopipe::testutil {

/// +infinity: no link, no cap, an unbounded bandwidth.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace geopipe::testutil
