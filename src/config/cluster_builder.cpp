// The cluster and network sections of a scenario (config/scenario_builder.h): regions with their
// prices, carbon, failures and spot capacity (series included), and the links with their
// capacity series.
#include "config/scenario_builder.h"

namespace geopipe::config::builder_detail {

void Builder::build_cluster(Scenario& sc) {
  const toml::table& ct = *table(root_, "cluster");
  read(ct, "capacity_scale", sc.capacity_scale);
  const std::vector<std::string> gpu_names = util::names_of(sc.topology.gpu_types);

  std::map<std::string, const toml::node*> seen;
  // faults.gpu_mtbf_h: the MTBF of every region without its own (build_faults reads the rest).
  const toml::table* ft = table(root_, "faults");
  const toml::node* default_mtbf = ft ? get(*ft, "gpu_mtbf_h") : nullptr;
  const auto list = entries(&ct, "region");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const toml::table& t = *list[i];
    const std::string p = "cluster.region[" + std::to_string(i) + "]";
    require_nonempty(t, "name", p + ".name");
    Region r;
    read(t, "name", r.name);
    const toml::node& nn = *get(t, "name");
    if (auto it = seen.find(r.name); it != seen.end())
      fail(nn, p + ".name: duplicate region '" + r.name + "' (first defined" + line_note(*it->second) + ")");
    seen[r.name] = &nn;

    const std::string gname = required<std::string>(t, "gpu");
    const auto git = std::find(gpu_names.begin(), gpu_names.end(), gname);
    if (git == gpu_names.end()) {
      fail(*get(t, "gpu"), p + ".gpu: unknown GPU type '" + gname + "'" + util::suggestion_suffix(gname, gpu_names) +
                               " (expected one of " + util::quoted_list(gpu_names) + ", or a [[gpu]] defined in the file)");
    }
    r.gpu_type = static_cast<int>(git - gpu_names.begin());

    const auto gpus = required<std::int64_t>(t, "gpus");
    const double scaled = std::max(0.0, std::round(static_cast<double>(gpus) * sc.capacity_scale));
    if (scaled > kMaxGpusPerRegion) {
      const toml::node* at = get(ct, "capacity_scale");
      fail(at ? *at : *get(t, "gpus"), "cluster.capacity_scale = " + util::format_number(sc.capacity_scale) +
                                           " gives region '" + r.name + "' " + util::format_number(scaled) +
                                           " GPUs (expected at most " + std::to_string(kMaxGpusPerRegion) +
                                           " per region)");
    }
    r.gpu_count = static_cast<int>(std::max<long long>(0, std::llround(static_cast<double>(gpus) * sc.capacity_scale)));

    // Spot capacity: its preemptions (at a rate, or where a measured availability series falls)
    // and its discount on the price (docs/model.md, "Failures and checkpoints").
    double price_factor = 1;
    if (const toml::node* m = get(t, "spot_mtbp_h")) r.spot_mtbp_s = number_of(*m) * units::kSecondsPerHour;
    if (const toml::node* gs = get(t, "gpus_series")) {
      SeriesColumn col;
      col.names = {"gpus"};
      col.max_value = static_cast<double>(gpus);  // a region has at most its gpus
      col.whole_numbers = true;
      col.constant_key = "gpus";
      auto& cached = region_series_[std::string("gpus") + '\0' + resolved_path(*gs) + '\0' + std::to_string(gpus) + '\0' +
                                    std::to_string(std::bit_cast<std::uint64_t>(sc.capacity_scale))];
      if (!cached) {
        SeriesTable st = read_series_file(*gs, p + ".gpus_series", {col});
        // cluster.capacity_scale as for gpus: max(0, round(v × scale)), halves away from zero
        for (double& v : st.values[0]) v = std::max(0.0, std::round(v * sc.capacity_scale));
        auto series = std::make_shared<const StepSeries>(std::move(st.times_s), std::move(st.values[0]), series_end_,
                                                         /*merge_equal_steps=*/true, StepSeries::Integral::kNone);
        if (series->max_value() <= 0)
          fail(*gs, p + ".gpus_series: the region has no GPU at any time of the series (leave the region out)");
        cached = std::move(series);
      }
      r.gpus_series = cached;
    }
    if (const toml::node* f = get(t, "spot_price_factor")) {
      if (!r.spot())
        fail(*f, p + ".spot_price_factor is given without spot_mtbp_h or gpus_series (the spot capacity's preemptions)");
      price_factor = number_of(*f);
    }
    const toml::node* flat = get(t, "price_usd_per_kwh");
    const toml::node* prof = get(t, "price_profile_usd_per_kwh");
    const toml::node* pser = get(t, "price_series");
    read(t, "utc_offset_h", r.utc_offset_h);
    {
      std::vector<const toml::node*> given;
      for (const toml::node* x : {flat, prof, pser})
        if (x) given.push_back(x);
      if (given.size() > 1) {
        const toml::node* later = *std::max_element(given.begin(), given.end(), [&](const toml::node* a, const toml::node* b) {
          return location_of(a->source(), file_).line < location_of(b->source(), file_).line;
        });
        fail(*later, p + ": give exactly one of price_usd_per_kwh, price_profile_usd_per_kwh and price_series, not " +
                         (given.size() == 2 ? "two" : "three"));
      }
    }
    for (const char* k : {"price_series_column", "price_series_scale"})
      if (const toml::node* x = get(t, k); x && !pser) fail(*x, p + "." + k + " is given without price_series");
    if (!flat && !prof && !pser)
      fail(t, p + " ('" + r.name + "') has no electricity price (expected price_usd_per_kwh = <USD/kWh>, "
                  "price_profile_usd_per_kwh = [24 hourly values] or price_series = \"prices.csv\")");
    if (pser) {
      SeriesColumn col;
      col.names = {"usd_per_kwh"};
      read(t, "price_series_column", col.names[0]);
      read(t, "price_series_scale", col.scale);
      col.scale *= price_factor;
      col.max_value = kMaxPrice / col.scale;  // price_usd_per_kwh's bounds, in the file's unit
      col.zero_allowed = false;
      col.constant_key = "price_usd_per_kwh";
      auto& cached = region_series_[std::string("price") + '\0' + resolved_path(*pser) + '\0' + col.names[0] + '\0' +
                                    std::to_string(std::bit_cast<std::uint64_t>(col.scale))];
      if (!cached) {
        SeriesTable st = read_series_file(*pser, p + ".price_series", {col});
        cached = std::make_shared<const StepSeries>(std::move(st.times_s), std::move(st.values[0]), series_end_);
      }
      r.price = PriceProfile::series(cached);
    } else if (flat) {
      r.price = PriceProfile::flat(number_of(*flat) * price_factor);
    } else {
      std::array<double, 24> hourly{};
      const toml::array& a = *prof->as_array();
      for (std::size_t h = 0; h < 24; ++h) hourly[h] = number_of(*a.get(h)) * price_factor;
      r.price = PriceProfile::hourly(hourly, r.utc_offset_h);
    }
    read(t, "pue", r.pue);
    read(t, "carbon_g_per_kwh", r.carbon_g_per_kwh);
    if (const toml::node* cser = get(t, "carbon_series")) {
      if (const toml::node* c = get(t, "carbon_g_per_kwh"))
        fail(location_of(c->source(), file_).line > location_of(cser->source(), file_).line ? *c : *cser,
             p + ": give one of carbon_g_per_kwh and carbon_series, not both");
      SeriesColumn col;
      col.names = {"carbon_g_per_kwh", "carbon_intensity_avg"};
      if (const toml::node* c = get(t, "carbon_series_column")) col.names = {c->as_string()->get()};
      col.max_value = 1e6;  // carbon_g_per_kwh's bounds
      col.constant_key = "carbon_g_per_kwh";
      std::string key = std::string("carbon") + '\0' + resolved_path(*cser);
      for (const std::string& name : col.names) key += '\0' + name;
      auto& cached = region_series_[key];
      if (!cached) {
        SeriesTable st = read_series_file(*cser, p + ".carbon_series", {col});
        cached = std::make_shared<const StepSeries>(std::move(st.times_s), std::move(st.values[0]), series_end_);
      }
      r.carbon_series = cached;
    } else if (const toml::node* c = get(t, "carbon_series_column")) {
      fail(*c, p + ".carbon_series_column is given without carbon_series");
    }
    if (const toml::node* m = get(t, "gpu_mtbf_h")) r.gpu_mtbf_s = number_of(*m) * units::kSecondsPerHour;
    else if (default_mtbf) r.gpu_mtbf_s = number_of(*default_mtbf) * units::kSecondsPerHour;
    if (const toml::node* b = get(t, "checkpoint_gbps")) r.checkpoint_bytes_per_s = units::gbps_to_bytes_per_s(number_of(*b));
    sc.topology.regions.push_back(std::move(r));
  }
  if (sc.topology.total_gpus() <= 0) {
    const toml::node* at = get(ct, "capacity_scale");
    fail(at ? *at : static_cast<const toml::node&>(ct),
         "cluster.capacity_scale = " + util::format_number(sc.capacity_scale) +
             " leaves 0 GPUs in the cluster (expected at least 1 GPU after rounding each region's gpus)");
  }
  sc.topology.reset_links();
}

void Builder::build_network(Scenario& sc) {
  Topology& topo = sc.topology;
  const toml::table* nt = table(root_, "network");
  const toml::table empty;
  const toml::table& t = nt ? *nt : empty;
  read(t, "bandwidth_scale", sc.bandwidth_scale);
  read(t, "link_efficiency", sc.link_efficiency);
  if (const toml::node* n = get(t, "intra_bandwidth_gbps"))
    topo.intra_bandwidth_bytes_per_s = units::gbps_to_bytes_per_s(number_of(*n));
  if (const toml::node* n = get(t, "intra_latency_ms")) topo.intra_latency_s = units::ms_to_s(number_of(*n));
  if (!std::isfinite(topo.intra_bandwidth_bytes_per_s))
    fail(*get(t, "intra_bandwidth_gbps"), "network.intra_bandwidth_gbps is too large (expected a finite bandwidth)");

  const std::vector<std::string> region_names = util::names_of(topo.regions);
  std::map<std::pair<int, int>, std::size_t> seen;
  const auto list = entries(nt, "link");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const toml::table& lt = *list[i];
    const std::string p = "network.link[" + std::to_string(i) + "]";
    const toml::node& rn = *get(lt, "regions");
    const toml::array& ra = *rn.as_array();
    int idx[2];
    for (std::size_t k = 0; k < 2; ++k) {
      const std::string name = ra.get(k)->as_string()->get();
      idx[k] = topo.find_region(name);
      if (idx[k] < 0)
        fail(*ra.get(k), p + ".regions[" + std::to_string(k) + "]: unknown region '" + name + "'" +
                             util::suggestion_suffix(name, region_names) + " (expected one of " +
                             util::quoted_list(region_names) + ")");
    }
    if (idx[0] == idx[1])
      fail(rn, p + ".regions: a link needs two different regions (got '" + topo.regions[static_cast<std::size_t>(idx[0])].name +
                   "' twice)");
    const std::pair<int, int> key = std::minmax(idx[0], idx[1]);
    if (auto it = seen.find(key); it != seen.end())
      fail(rn, p + ": duplicate link between '" + topo.regions[static_cast<std::size_t>(idx[0])].name + "' and '" +
                   topo.regions[static_cast<std::size_t>(idx[1])].name + "' (already given by network.link[" +
                   std::to_string(it->second) + "]" + line_note(*list[it->second]) + ")");
    seen[key] = i;

    const double lat = units::ms_to_s(required<double>(lt, "latency_ms"));
    Link& ab = topo.link(idx[0], idx[1]);
    Link& ba = topo.link(idx[1], idx[0]);
    if (const toml::node* tr = get(lt, "bandwidth_trace")) {
      for (const char* k : {"bandwidth_gbps", "reverse_bandwidth_gbps"})
        if (const toml::node* x = get(lt, k))
          fail(*x, p + "." + k + ": the link's capacity comes from bandwidth_trace (give one of them, not both)");
      SeriesColumn fc, rc;
      fc.names = {"bandwidth_gbps"};
      rc.names = {"reverse_bandwidth_gbps"};
      rc.required = false;
      for (SeriesColumn* c : {&fc, &rc}) {  // bandwidth_gbps's bounds, and 0 for an outage
        c->min_value = kMinGbps;
        c->max_value = kMaxGbps;
        c->zero_means = "an outage";
        c->constant_key = c->names[0];
      }
      // The table's vectors become the series' (moved, converted in place; no integral: a
      // capacity is never integrated), a file without a reverse column gives both directions
      // one series, and a file named by several links is read once: 16 bytes per step of each
      // file (docs/limits.md, "Input files").
      auto& cached = link_series_[tr->is_string() && !tr->as_string()->get().empty() ? resolved_path(*tr) : std::string()];
      if (!cached.first) {
        SeriesTable st = read_series_file(*tr, p + ".bandwidth_trace", {fc, rc});
        auto make = [&](std::vector<double> times, std::vector<double> v, const char* col) {
          for (double& x : v) x = units::gbps_to_bytes_per_s(x) * sc.bandwidth_scale * sc.link_efficiency;  // as a constant capacity is
          auto series = std::make_shared<const StepSeries>(std::move(times), std::move(v), series_end_,
                                                           /*merge_equal_steps=*/true, StepSeries::Integral::kNone);
          if (series->max_value() <= 0)
            fail(*tr, p + ".bandwidth_trace: column " + col + " is 0 in every row (a link that is never up: leave the link out)");
          if (series->values().back() <= 0 && series_end_ == SeriesEnd::kHold)
            fail(*tr, p + ".bandwidth_trace: column " + col + " ends in an outage and sim.series_end = \"hold\" keeps it "
                      "down for ever (jobs placed over it would never finish; end the series with the link up, or wrap it)");
          return series;
        };
        std::shared_ptr<const StepSeries> fwd, rev;
        if (!st.values[1].empty()) {
          fwd = make(st.times_s, std::move(st.values[0]), "bandwidth_gbps");
          rev = make(std::move(st.times_s), std::move(st.values[1]), "reverse_bandwidth_gbps");
        } else {
          fwd = make(std::move(st.times_s), std::move(st.values[0]), "bandwidth_gbps");
          rev = fwd;
        }
        cached = {std::move(fwd), std::move(rev)};
      }
      ab.capacity_bytes_per_s = cached.first->max_value();
      ab.capacity_series = cached.first;
      ba.capacity_bytes_per_s = cached.second->max_value();
      ba.capacity_series = cached.second;
    } else {
      const toml::node* fn = get(lt, "bandwidth_gbps");
      if (!fn)
        fail(lt, p + " is missing required key 'bandwidth_gbps' (expected a number in Gbit/s, or bandwidth_trace = "
                     "\"capacity.csv\")");
      const double fwd = number_of(*fn);
      double rev = fwd;  // reverse_bandwidth_gbps defaults to bandwidth_gbps
      read(lt, "reverse_bandwidth_gbps", rev);
      ab.capacity_bytes_per_s = units::gbps_to_bytes_per_s(fwd) * sc.bandwidth_scale * sc.link_efficiency;
      ba.capacity_bytes_per_s = units::gbps_to_bytes_per_s(rev) * sc.bandwidth_scale * sc.link_efficiency;
    }
    ab.latency_s = ba.latency_s = lat;
    double egress = 0;  // reverse_egress_usd_per_gb defaults to egress_usd_per_gb
    read(lt, "egress_usd_per_gb", egress);
    double rev_egress = egress;
    read(lt, "reverse_egress_usd_per_gb", rev_egress);
    ab.egress_usd_per_byte = units::usd_per_gb_to_usd_per_byte(egress);
    ba.egress_usd_per_byte = units::usd_per_gb_to_usd_per_byte(rev_egress);
    if (!std::isfinite(ab.capacity_bytes_per_s) || !std::isfinite(ba.capacity_bytes_per_s) ||
        !(ab.capacity_bytes_per_s > 0) || !(ba.capacity_bytes_per_s > 0))
      fail(lt, p + ": bandwidth x network.bandwidth_scale x network.link_efficiency is out of range (expected a finite capacity > 0)");
  }
  build_mesh(t, sc, seen);
  read_choice<bool>(t, "ideal", "network.ideal", "network idealisation", {{"none", false}, {"lan", true}}, sc.ideal_lan);
  if (sc.ideal_lan) {
    const int R = topo.num_regions();
    for (int a = 0; a < R; ++a)
      for (int b = 0; b < R; ++b)
        if (a != b) topo.link(a, b) = Link{topo.intra_bandwidth_bytes_per_s, topo.intra_latency_s, 0.0, nullptr};
  }
}

void Builder::build_mesh(const toml::table& t, Scenario& sc, const std::map<std::pair<int, int>, std::size_t>& linked) {
  double gbps = 0, latency_ms = 0, egress = 0;
  read(t, "mesh_bandwidth_gbps", gbps);
  read(t, "mesh_latency_ms", latency_ms);
  read(t, "mesh_egress_usd_per_gb", egress);
  if (!(gbps > 0)) {
    for (const char* k : {"mesh_latency_ms", "mesh_egress_usd_per_gb"})
      if (const toml::node* n = get(t, k))
        fail(*n, std::string("network.") + k + " has no mesh to apply to (expected network.mesh_bandwidth_gbps > 0 beside it)");
    return;
  }
  const double cap = units::gbps_to_bytes_per_s(gbps) * sc.bandwidth_scale * sc.link_efficiency;
  if (!std::isfinite(cap) || !(cap > 0))
    fail(*get(t, "mesh_bandwidth_gbps"),
         "network.mesh_bandwidth_gbps x network.bandwidth_scale x network.link_efficiency is out of range (expected a finite capacity > 0)");
  Topology& topo = sc.topology;
  const int R = topo.num_regions();
  for (int a = 0; a < R; ++a)
    for (int b = 0; b < R; ++b)
      if (a != b && !linked.contains(std::minmax(a, b)))
        topo.link(a, b) = Link{cap, units::ms_to_s(latency_ms), units::usd_per_gb_to_usd_per_byte(egress), nullptr};
}

}  // namespace geopipe::config::builder_detail
