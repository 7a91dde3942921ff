#include "core/comm/channels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace meshscope {
namespace {

struct PairRoute {
  Route route;
  std::vector<size_t> slots;  // link directions the route crosses, in order
  bool usable = false;
};

constexpr double kTolerance = 1e-9;

class Search {
 public:
  Search(std::vector<PairRoute> routes, size_t n, std::vector<double> capacity)
      : routes_(std::move(routes)), n_(n), capacity_(std::move(capacity)) {}

  // The rings at one speed, greedily (NCCL search.cc: ncclTopoSearchRec adds channels at
  // graph->bwIntra until none fits, then the next speed of the speed array is tried).
  std::vector<std::vector<size_t>> rings_at(double speed, int max_channels) {
    residual_ = capacity_;
    std::vector<std::vector<size_t>> rings;
    while (static_cast<int>(rings.size()) < max_channels) {
      std::vector<size_t> order{0};
      std::vector<char> visited(n_, 0);
      visited[0] = 1;
      budget_ = 4000;
      if (!extend(order, visited, speed)) break;
      rings.push_back(order);
    }
    return rings;
  }

  [[nodiscard]] double route_capacity(size_t from, size_t to, const std::vector<double>& residual) const {
    const PairRoute& r = routes_[from * n_ + to];
    if (!r.usable) return 0;
    double c = std::numeric_limits<double>::infinity();
    for (const size_t slot : r.slots) c = std::min(c, residual[slot]);
    return c;
  }
  [[nodiscard]] const std::vector<double>& residual() const { return residual_; }

 private:
  void take(size_t from, size_t to, double amount) {
    for (const size_t slot : routes_[from * n_ + to].slots) residual_[slot] -= amount;
  }
  bool fits(size_t from, size_t to, double speed) const {
    return route_capacity(from, to, residual_) >= speed * (1 - kTolerance);
  }

  // Depth-first over the GPUs not yet in the ring, the hop with the most bandwidth left first
  // (ties: the next GPU in rank order), taking the speed from every link as it goes so that two
  // hops of one ring over the same link are both accounted.
  bool extend(std::vector<size_t>& order, std::vector<char>& visited, double speed) {
    if (--budget_ < 0) return false;
    const size_t at = order.back();
    if (order.size() == n_) {
      if (!fits(at, order.front(), speed)) return false;
      take(at, order.front(), speed);
      return true;
    }
    std::vector<std::pair<double, size_t>> next;
    for (size_t step = 1; step < n_; ++step) {
      const size_t j = (at + step) % n_;
      if (visited[j] || !fits(at, j, speed)) continue;
      next.emplace_back(-route_capacity(at, j, residual_), step);
    }
    std::stable_sort(next.begin(), next.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first - std::abs(b.first) * 1e-9; });
    for (const auto& [negative_capacity, step] : next) {
      const size_t j = (at + step) % n_;
      take(at, j, speed);
      visited[j] = 1;
      order.push_back(j);
      if (extend(order, visited, speed)) return true;
      order.pop_back();
      visited[j] = 0;
      take(at, j, -speed);
      if (budget_ < 0) return false;
    }
    return false;
  }

  std::vector<PairRoute> routes_;
  size_t n_;
  std::vector<double> capacity_;
  std::vector<double> residual_;
  int budget_ = 0;
};

bool is_gpu_link(const Cluster& c, const Link& link) {
  return (link.kind == LinkKind::nvlink || link.kind == LinkKind::xgmi) && c.device(link.a).kind == DeviceKind::gpu &&
         c.device(link.b).kind == DeviceKind::gpu;
}

}  // namespace

bool has_direct_mesh(const Cluster& c, const std::vector<DeviceId>& gpus) {
  if (gpus.size() < 3) return false;
  for (const DeviceId g : gpus) {
    bool direct = false;
    c.for_each_link(g, [&](LinkId l) {
      const Link& link = c.link(l);
      if (!is_gpu_link(c, link)) return;
      const DeviceId other = c.other_end(l, g);
      if (std::find(gpus.begin(), gpus.end(), other) != gpus.end()) direct = true;
    });
    if (direct) return true;
  }
  return false;
}

ChannelPlan search_channels(const Router& router, const std::vector<DeviceId>& gpus, const LinkCapacity& capacity,
                            int max_channels) {
  const Cluster& c = router.cluster();
  ChannelPlan plan;
  const size_t n = gpus.size();
  if (n < 2) return plan;
  // Capacity of every link direction the group's routes cross, by slot 2 · link + direction.
  std::vector<double> cap(2 * c.links.size(), 0.0);
  std::vector<PairRoute> routes(n * n);
  std::vector<double> pair_capacities;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      PairRoute& r = routes[i * n + j];
      r.route = router.route(gpus[i], gpus[j]);
      r.usable = r.route.reachable && !r.route.links.empty();
      DeviceId at = gpus[i];
      double narrowest = std::numeric_limits<double>::infinity();
      for (const LinkId l : r.route.links) {
        const int direction = c.link(l).a == at ? 0 : 1;
        const size_t slot = 2 * l.index() + static_cast<size_t>(direction);
        cap[slot] = capacity(l, direction);
        narrowest = std::min(narrowest, cap[slot]);
        r.slots.push_back(slot);
        at = c.other_end(l, at);
      }
      if (r.usable && narrowest > 0)
        pair_capacities.push_back(narrowest);
      else
        r.usable = false;
    }
  // The max-flow bound: every ring leaves and enters every GPU once, so the rings' total is at
  // most what the links out of (and into) any one GPU carry.
  plan.bound = std::numeric_limits<double>::infinity();
  for (const DeviceId g : gpus) {
    double out = 0, in = 0;
    c.for_each_link(g, [&](LinkId l) {
      const int direction = c.link(l).a == g ? 0 : 1;
      out += capacity(l, direction);
      in += capacity(l, 1 - direction);
    });
    plan.bound = std::min({plan.bound, out, in});
  }
  if (pair_capacities.empty()) return plan;
  // Speeds tried, highest first: every route's capacity divided among 1..max_channels rings
  // (NCCL tries a fixed speed array, src/graph/search.cc speedArrayIntra; dividing the drawn
  // links' own capacities finds the same optima on any link speeds).
  std::vector<double> speeds;
  std::sort(pair_capacities.begin(), pair_capacities.end());
  pair_capacities.erase(std::unique(pair_capacities.begin(), pair_capacities.end(),
                                    [](double a, double b) { return std::abs(a - b) <= kTolerance * b; }),
                        pair_capacities.end());
  for (const double p : pair_capacities)
    for (int k = 1; k <= max_channels; ++k) speeds.push_back(p / k);
  std::sort(speeds.begin(), speeds.end(), std::greater<>());
  speeds.erase(
      std::unique(speeds.begin(), speeds.end(), [](double a, double b) { return std::abs(a - b) <= kTolerance * a; }),
      speeds.end());

  Search search(std::move(routes), n, cap);
  double best_total = 0, best_speed = 0;
  std::vector<std::vector<size_t>> best;
  std::vector<double> best_residual;
  for (const double speed : speeds) {
    if (speed * max_channels <= best_total * (1 + 1e-6)) break;  // cannot beat the best any more
    auto rings = search.rings_at(speed, max_channels);
    const double total = speed * static_cast<double>(rings.size());
    if (total > best_total * (1 + 1e-6)) {
      best_total = total;
      best_speed = speed;
      best = std::move(rings);
      best_residual = search.residual();
    }
    if (best_total >= plan.bound * (1 - 1e-6)) break;  // the max-flow bound is reached
  }
  if (best.empty()) return plan;
  plan.bandwidth = best_total;
  for (const auto& ring : best) {
    ChannelRing out;
    out.bandwidth = best_speed;
    for (size_t i = 0; i < ring.size(); ++i) {
      out.order.push_back(gpus[ring[i]]);
      out.routes.push_back(router.route(gpus[ring[i]], gpus[ring[(i + 1) % ring.size()]]));
    }
    plan.rings.push_back(std::move(out));
  }
  // The bottleneck: the link direction of the first ring with the least capacity left, relative
  // to its capacity (a saturated one when the rings fill the links).
  double least = std::numeric_limits<double>::infinity();
  const ChannelRing& first = plan.rings.front();
  for (size_t i = 0; i < first.routes.size(); ++i) {
    DeviceId at = first.order[i];
    for (const LinkId l : first.routes[i].links) {
      const int direction = c.link(l).a == at ? 0 : 1;
      const size_t slot = 2 * l.index() + static_cast<size_t>(direction);
      const double left = cap[slot] > 0 ? best_residual[slot] / cap[slot] : 0;
      if (left < least) {
        least = left;
        plan.bottleneck = l;
      }
      at = c.other_end(l, at);
    }
  }
  return plan;
}

}  // namespace meshscope
