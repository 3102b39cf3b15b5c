// Unit conversions. Inside geopipe every quantity is SI: seconds, bytes, bytes/s, FLOP,
// FLOP/s, watts, joules, USD. Configs may use Gbit/s, ms, kWh, $/kWh and hours; they are
// converted exactly once, when the scenario is loaded, with these helpers.
#pragma once

namespace geopipe::units {

inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;
inline constexpr double kJoulesPerKwh = 3.6e6;

constexpr double gbps_to_bytes_per_s(double gbit_per_s) { return gbit_per_s * 1e9 / 8.0; }
constexpr double bytes_per_s_to_gbps(double bytes_per_s) { return bytes_per_s * 8.0 / 1e9; }
constexpr double ms_to_s(double ms) { return ms * 1e-3; }
constexpr double hours_to_s(double h) { return h * kSecondsPerHour; }
constexpr double gb_to_bytes(double gb) { return gb * 1e9; }
/// A traffic price per GB (10^9 bytes, as clouds bill) in USD per byte.
constexpr double usd_per_gb_to_usd_per_byte(double usd_per_gb) { return usd_per_gb / 1e9; }
constexpr double tflops_to_flops(double tflops) { return tflops * 1e12; }
constexpr double joules_to_kwh(double j) { return j / kJoulesPerKwh; }

}  // namespace geopipe::units
