// What a Kineto trace says about a training step: Holistic Trace Analysis's temporal breakdown and
// communication/computation overlap, the same quantities per ProfilerStep, the collectives with their bandwidth, and
// the spread of step times across ranks. Definitions and sources: docs/import.md.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "core/base/text.hpp"
#include "core/importers/kineto.hpp"

namespace meshscope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// HTA works in whole microseconds: its JSON loader rounds fractional timestamps (the ns-resolution traces of
// PyTorch >= 2.3) by moving the start up and the end down, ts = ceil(ts), end = floor(ts + dur)
// (hta/common/trace_parser.py, _parse_trace_dataframe_json, after pytorch/pytorch#122425). An event shorter than
// the rounding can end up with end < start; HTA keeps it, and so do we, to give the same numbers.
int64_t hta_start_us(double ts_us) {
  return static_cast<int64_t>(std::ceil(ts_us));
}
int64_t hta_end_us(double ts_us, double dur_us) {
  return static_cast<int64_t>(std::floor(ts_us + dur_us));
}

struct Interval {
  int64_t start = 0;
  int64_t end = 0;
};

// hta/utils/utils.py merge_kernel_intervals: sorted by start, an interval opens a new group when it starts after the
// latest end seen so far ("ts > end.shift().cummax()"), otherwise it joins the group, whose end is the max end.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return std::tie(a.start, a.end) < std::tie(b.start, b.end); });
  std::vector<Interval> merged;
  int64_t latest_end = std::numeric_limits<int64_t>::min();
  for (const Interval& iv : intervals) {
    if (merged.empty() || iv.start > latest_end) {
      merged.push_back(iv);
    } else {
      merged.back().end = std::max(merged.back().end, iv.end);
    }
    latest_end = std::max(latest_end, iv.end);
  }
  return merged;
}

// Σ (end - start) of merged groups, as HTA's "merged.end.sum() - merged.ts.sum()".
int64_t total_length(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& iv : merged) total += iv.end - iv.start;
  return total;
}

// a ∩ b of two merged lists; its total_length is the time HTA's status sweep spends in state 3
// (hta/analyzers/communication_analysis.py, get_comm_comp_overlap).
std::vector<Interval> intersection_of(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t start = std::max(a[i].start, b[j].start);
    const int64_t end = std::min(a[i].end, b[j].end);
    if (end > start) out.push_back({start, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

struct ClassifiedEvents {
  std::vector<KernelClassification> by_name;  // per KinetoTrace::names entry
  [[nodiscard]] KernelClassification of(const KinetoDeviceEvent& e) const {
    if (e.activity == KinetoActivity::memcpy) return KernelClassification{KernelClass::memcpy, std::nullopt, -1};
    if (e.activity == KinetoActivity::memset) return KernelClassification{KernelClass::memset, std::nullopt, -1};
    return by_name[e.name];
  }
};

ClassifiedEvents classify_names(const KinetoTrace& trace, KernelClassifier& classifier) {
  ClassifiedEvents out;
  out.by_name.reserve(trace.names.size());
  for (const std::string& name : trace.names) out.by_name.push_back(classifier.classify(name));
  return out;
}

const KinetoLaunch* find_launch(const KinetoTrace& trace, int64_t correlation) {
  if (correlation < 0) return nullptr;
  const auto it = std::lower_bound(trace.launches.begin(), trace.launches.end(), correlation,
                                   [](const KinetoLaunch& l, int64_t c) { return l.correlation < c; });
  return (it != trace.launches.end() && it->correlation == correlation) ? &*it : nullptr;
}

// GPU activity HTA keeps for its breakdowns (hta/common/trace.py, _filter_irrelevant_gpu_kernels): with two or more
// distinct ProfilerStep names, only the work launched by CPU events that start before the last ProfilerStep starts
// (or, including the last step, before it ends). With fewer, everything.
std::vector<bool> hta_selection(const KinetoTrace& trace, bool include_last_step,
                                std::vector<KinetoWarning>& warnings) {
  std::vector<bool> keep(trace.device_events.size(), true);
  std::set<std::string> step_names;
  int64_t last_start = std::numeric_limits<int64_t>::min();
  int64_t last_end = std::numeric_limits<int64_t>::min();
  for (const KinetoStepSpan& s : trace.steps) {
    step_names.insert(s.name);
    last_start = std::max(last_start, hta_start_us(s.ts_us));
    last_end = std::max(last_end, hta_end_us(s.ts_us, s.dur_us));
  }
  if (step_names.size() < 2) {
    if (!trace.device_events.empty())
      warnings.push_back({step_names.empty() ? "no ProfilerStep in the trace: the breakdown covers all GPU activity"
                                             : "a single ProfilerStep: the breakdown covers all GPU activity",
                          -1});
    return keep;
  }
  for (size_t i = 0; i < trace.device_events.size(); ++i) {
    const KinetoDeviceEvent& e = trace.device_events[i];
    if (e.correlation < 0) continue;  // HTA matches it with any CPU event lacking a correlation: kept
    const KinetoLaunch* launch = find_launch(trace, e.correlation);
    if (launch == nullptr) {
      keep[i] = false;
      continue;
    }
    const int64_t launched = hta_start_us(launch->ts_us);
    keep[i] = include_last_step ? launched <= last_end : launched < last_start;
  }
  return keep;
}

struct IntervalSets {
  std::vector<Interval> all;
  std::vector<Interval> compute;
  std::vector<Interval> communication;
  void add(const KinetoDeviceEvent& e, KernelClass cls) {
    const Interval iv{hta_start_us(e.ts_us), hta_end_us(e.ts_us, e.dur_us)};
    all.push_back(iv);
    if (is_compute_kernel(cls)) compute.push_back(iv);
    if (cls == KernelClass::communication) communication.push_back(iv);
  }
};

struct MergedSets {
  std::vector<Interval> all;
  std::vector<Interval> compute;
  std::vector<Interval> communication;
  explicit MergedSets(IntervalSets sets)
      : all(merge_intervals(std::move(sets.all))),
        compute(merge_intervals(std::move(sets.compute))),
        communication(merge_intervals(std::move(sets.communication))) {}
  [[nodiscard]] int64_t kernel_time() const { return all.empty() ? 0 : all.back().end - all.front().start; }
};

KinetoTemporalBreakdown temporal_breakdown(const MergedSets& m) {
  // hta/analyzers/breakdown_analysis.py get_temporal_breakdown / _get_idle_time_for_kernels.
  KinetoTemporalBreakdown t;
  const int64_t kernel_time = m.kernel_time();
  const int64_t idle = kernel_time - total_length(m.all);
  const int64_t compute = total_length(m.compute);
  t.kernel_time_us = static_cast<double>(kernel_time);
  t.idle_us = static_cast<double>(idle);
  t.compute_us = static_cast<double>(compute);
  t.non_compute_us = static_cast<double>(kernel_time - compute - idle);
  return t;
}

// ---- Steps ----------------------------------------------------------------------------------------------------------

// Whole nanoseconds: µs with three decimals (PyTorch's ns resolution) convert exactly, and unions, clips and sums of
// integers keep every step figure within the step's duration without rounding slack. The parser refuses times
// beyond ±kKinetoMaxTimeUs; a hand-made trace with such times is clamped here.
int64_t time_ns(double us) {
  constexpr double kLimitNs = 9.0e18;
  const double ns = us * 1000.0;
  if (!(ns > -kLimitNs)) return static_cast<int64_t>(-kLimitNs);  // NaN too
  if (!(ns < kLimitNs)) return static_cast<int64_t>(kLimitNs);
  return static_cast<int64_t>(std::llround(ns));
}

double us_of_ns(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

// |union ∩ [w0, w1]|, and the first start / last end inside the window.
struct Clipped {
  int64_t length = 0;
  int64_t first = 0;
  int64_t last = 0;
  bool any = false;
};
Clipped clip(const std::vector<Interval>& merged, int64_t w0, int64_t w1) {
  Clipped c;
  auto it =
      std::lower_bound(merged.begin(), merged.end(), w0, [](const Interval& iv, int64_t t) { return iv.end <= t; });
  for (; it != merged.end() && it->start < w1; ++it) {
    const int64_t start = std::max(it->start, w0);
    const int64_t end = std::min(it->end, w1);
    if (end <= start) continue;
    if (!c.any) c.first = start;
    c.any = true;
    c.last = end;
    c.length += end - start;
  }
  return c;
}

// One device's GPU activity over the whole trace, as unions in nanoseconds.
struct DeviceTimeline {
  int64_t device = -1;
  std::vector<Interval> all, compute, communication, overlap;  // overlap: communication ∩ compute
  std::vector<int64_t> starts, ends;                           // of every event, sorted
};

std::vector<DeviceTimeline> device_timelines(const KinetoTrace& trace, const ClassifiedEvents& classes) {
  std::map<int64_t, std::array<std::vector<Interval>, 3>> raw;  // all, compute, communication
  std::map<int64_t, DeviceTimeline> timelines;
  for (const KinetoDeviceEvent& e : trace.device_events) {
    const int64_t start = time_ns(e.ts_us);
    const Interval iv{start, std::max(start, start + time_ns(e.dur_us))};
    auto& sets = raw[e.device];
    sets[0].push_back(iv);
    const KernelClass cls = classes.of(e).cls;
    if (is_compute_kernel(cls)) sets[1].push_back(iv);
    if (cls == KernelClass::communication) sets[2].push_back(iv);
    DeviceTimeline& t = timelines[e.device];
    t.starts.push_back(iv.start);
    t.ends.push_back(iv.end);
  }
  std::vector<DeviceTimeline> out;
  for (auto& [device, sets] : raw) {
    DeviceTimeline& t = timelines[device];
    t.device = device;
    t.all = merge_intervals(std::move(sets[0]));
    t.compute = merge_intervals(std::move(sets[1]));
    t.communication = merge_intervals(std::move(sets[2]));
    t.overlap = intersection_of(t.communication, t.compute);
    std::sort(t.starts.begin(), t.starts.end());
    std::sort(t.ends.begin(), t.ends.end());
    out.push_back(std::move(t));
  }
  return out;
}

KinetoStepDeviceTimes window_times(const DeviceTimeline& t, int64_t w0, int64_t w1) {
  KinetoStepDeviceTimes d;
  d.device = t.device;
  const Clipped all = clip(t.all, w0, w1);
  const int64_t compute = clip(t.compute, w0, w1).length;
  const int64_t communication = clip(t.communication, w0, w1).length;
  const int64_t overlap = clip(t.overlap, w0, w1).length;
  d.busy_us = us_of_ns(all.length);
  d.kernel_time_us = all.any ? us_of_ns(all.last - all.first) : 0.0;
  d.compute_us = us_of_ns(compute);
  d.communication_us = us_of_ns(communication);
  d.exposed_communication_us = us_of_ns(communication - overlap);
  d.idle_us = us_of_ns((w1 - w0) - all.length);
  // Events overlapping [w0, w1): start < w1 and end > w0 (an event ending by w0 also starts by then).
  const auto started = std::lower_bound(t.starts.begin(), t.starts.end(), w1) - t.starts.begin();
  const auto ended = std::upper_bound(t.ends.begin(), t.ends.end(), w0) - t.ends.begin();
  d.gpu_events = std::max<int64_t>(0, started - ended);
  return d;
}

std::vector<KinetoStepBreakdown> step_breakdowns(const KinetoTrace& trace, const ClassifiedEvents& classes) {
  std::vector<const KinetoStepSpan*> spans;
  for (const KinetoStepSpan& s : trace.steps)
    if (!s.on_gpu) spans.push_back(&s);
  std::stable_sort(spans.begin(), spans.end(),
                   [](const KinetoStepSpan* a, const KinetoStepSpan* b) { return a->ts_us < b->ts_us; });

  // HTA's attribution: GPU work belongs to the step whose CPU span contains its launch.
  std::vector<IntervalSets> sets(spans.size());
  std::vector<int64_t> counts(spans.size(), 0);
  // The latest-starting step whose span contains t (HTA add_iteration: step.ts <= t < step.ts + step.dur).
  const auto step_at = [&](double t) -> int64_t {
    auto it =
        std::upper_bound(spans.begin(), spans.end(), t, [](double x, const KinetoStepSpan* s) { return x < s->ts_us; });
    while (it != spans.begin()) {
      --it;
      if (t < (*it)->ts_us + (*it)->dur_us) return it - spans.begin();
    }
    return -1;
  };
  for (const KinetoDeviceEvent& e : trace.device_events) {
    // Without a launch event, the step it starts in.
    const KinetoLaunch* launch = find_launch(trace, e.correlation);
    const int64_t step = step_at(launch ? launch->ts_us : e.ts_us);
    if (step < 0) continue;
    sets[static_cast<size_t>(step)].add(e, classes.of(e).cls);
    ++counts[static_cast<size_t>(step)];
  }

  const std::vector<DeviceTimeline> timelines = device_timelines(trace, classes);
  std::vector<KinetoStepBreakdown> out;
  for (size_t i = 0; i < spans.size(); ++i) {
    KinetoStepBreakdown b;
    b.name = spans[i]->name;
    b.number = spans[i]->number;
    const int64_t w0 = time_ns(spans[i]->ts_us);
    const int64_t w1 = w0 + std::max<int64_t>(0, time_ns(spans[i]->dur_us));
    b.start_us = spans[i]->ts_us;
    b.duration_us = us_of_ns(w1 - w0);
    // The step's figures are those of its busiest device (the lowest id among equals).
    const KinetoStepDeviceTimes* busiest = nullptr;
    for (const DeviceTimeline& t : timelines) {
      b.devices.push_back(window_times(t, w0, w1));
    }
    for (const KinetoStepDeviceTimes& d : b.devices)
      if (busiest == nullptr || d.busy_us > busiest->busy_us) busiest = &d;
    if (busiest != nullptr) {
      b.device = busiest->device;
      b.busy_us = busiest->busy_us;
      b.kernel_time_us = busiest->kernel_time_us;
      b.compute_us = busiest->compute_us;
      b.communication_us = busiest->communication_us;
      b.exposed_communication_us = busiest->exposed_communication_us;
      b.compute_or_communication_us =
          us_of_ns(time_ns(busiest->compute_us) + time_ns(busiest->exposed_communication_us));
      b.idle_us = busiest->idle_us;
      b.gpu_events = busiest->gpu_events;
    }

    KinetoStepLaunched& l = b.launched;
    l.gpu_events = counts[i];
    const MergedSets m(std::move(sets[i]));
    const int64_t kernel_time = m.kernel_time();
    const int64_t communication = total_length(m.communication);
    l.kernel_time_us = static_cast<double>(kernel_time);
    l.idle_us = static_cast<double>(kernel_time - total_length(m.all));
    l.compute_us = static_cast<double>(total_length(m.compute));
    l.communication_us = static_cast<double>(communication);
    l.exposed_communication_us =
        static_cast<double>(communication - total_length(intersection_of(m.communication, m.compute)));
    out.push_back(std::move(b));
  }
  return out;
}

// ---- Collectives ---------------------------------------------------------------------------------------------------

int64_t count_ranks_in_list(std::string_view text) {  // "[0, 1, 2]" → 3
  int64_t count = 0;
  bool in_number = false;
  for (const char c : text) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !in_number) ++count;
    in_number = digit;
  }
  return count;
}

// The CPU collective spans (record_param_comms, c10d::*, nccl:*) around a launch on its thread, innermost first.
class CommSpanIndex {
 public:
  explicit CommSpanIndex(const KinetoTrace& trace) {
    for (const KinetoCpuCommSpan& s : trace.cpu_comm_spans) {
      spans_.push_back(&s);
      longest_us_[s.thread] = std::max(longest_us_[s.thread], s.dur_us);
    }
    std::sort(spans_.begin(), spans_.end(), [](const KinetoCpuCommSpan* a, const KinetoCpuCommSpan* b) {
      return std::tie(a->thread, a->ts_us) < std::tie(b->thread, b->ts_us);
    });
  }
  [[nodiscard]] std::vector<const KinetoCpuCommSpan*> around(const KinetoLaunch& launch) const {
    std::vector<const KinetoCpuCommSpan*> out;
    if (spans_.empty()) return out;
    // Spans of this thread that start at or before the launch, walked back as far as the longest span reaches.
    auto it = std::upper_bound(spans_.begin(), spans_.end(), std::pair{launch.thread, launch.ts_us},
                               [](const std::pair<uint32_t, double>& key, const KinetoCpuCommSpan* s) {
                                 return std::tie(key.first, key.second) < std::tie(s->thread, s->ts_us);
                               });
    const auto longest = longest_us_.find(launch.thread);
    while (it != spans_.begin()) {
      --it;
      const KinetoCpuCommSpan* s = *it;
      if (s->thread != launch.thread || longest == longest_us_.end() || s->ts_us < launch.ts_us - longest->second)
        break;
      if (launch.ts_us <= s->ts_us + s->dur_us) out.push_back(s);
    }
    std::sort(out.begin(), out.end(),
              [](const KinetoCpuCommSpan* a, const KinetoCpuCommSpan* b) { return a->dur_us < b->dur_us; });
    return out;
  }

 private:
  std::vector<const KinetoCpuCommSpan*> spans_;
  std::map<uint32_t, double> longest_us_;
};

struct CollectiveKey {
  int op = -1;  // CollectiveOp as int, -1 unknown
  std::string process_group;
  int64_t group_size = 0;
  bool assumed = false;
  bool on_cpu = false;
  friend bool operator<(const CollectiveKey& a, const CollectiveKey& b) {
    return std::tie(a.on_cpu, a.op, a.process_group, a.group_size, a.assumed) <
           std::tie(b.on_cpu, b.op, b.process_group, b.group_size, b.assumed);
  }
};

struct CollectiveAccumulator {
  int64_t count = 0;
  int64_t count_with_bytes = 0;
  double bytes = 0;
  double time_us = 0;
  double time_with_bytes_us = 0;
};

void resolve_group(const KinetoTrace& trace, const KinetoCollectiveArgs& args, CollectiveKey& key) {
  key.process_group = args.process_group_name;
  if (args.group_size > 0) {
    key.group_size = args.group_size;
    return;
  }
  if (!args.process_group_ranks.empty()) {
    if (const int64_t n = count_ranks_in_list(args.process_group_ranks); n > 0) {
      key.group_size = n;
      return;
    }
  }
  for (const KinetoProcessGroup& g : trace.distributed.process_groups) {
    if (!args.process_group_name.empty() && g.name == args.process_group_name && g.size > 0) {
      key.group_size = g.size;
      return;
    }
  }
  if (trace.distributed.world_size && *trace.distributed.world_size > 0) {
    key.group_size = *trace.distributed.world_size;
    key.assumed = true;
  }
}

std::vector<KinetoCollectiveSummary> summarize(const std::map<CollectiveKey, CollectiveAccumulator>& groups) {
  std::vector<KinetoCollectiveSummary> out;
  for (const auto& [key, acc] : groups) {
    KinetoCollectiveSummary s;
    if (key.op >= 0) s.op = static_cast<CollectiveOp>(key.op);
    s.process_group = key.process_group;
    s.group_size = key.group_size;
    s.group_size_assumed = key.assumed;
    s.on_cpu = key.on_cpu;
    s.count = acc.count;
    s.count_with_bytes = acc.count_with_bytes;
    s.bytes = acc.bytes;
    s.time_us = acc.time_us;
    s.algbw_bytes_per_s =
        acc.count_with_bytes > 0 && acc.time_with_bytes_us > 0 ? acc.bytes / (acc.time_with_bytes_us * 1e-6) : kNaN;
    s.busbw_bytes_per_s =
        s.op && key.group_size > 0 ? s.algbw_bytes_per_s * bus_bandwidth_factor(*s.op, key.group_size) : kNaN;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<KinetoCollectiveSummary> collective_summaries(const KinetoTrace& trace, const ClassifiedEvents& classes) {
  std::map<CollectiveKey, CollectiveAccumulator> groups;
  const CommSpanIndex spans(trace);
  for (const KinetoDeviceEvent& e : trace.device_events) {
    const KernelClassification cls = classes.of(e);
    if (cls.cls != KernelClass::communication) continue;
    // Parameters: the kernel's own args (PyTorch >= 2.1 puts them there), else the CPU collective around its launch.
    KinetoCollectiveArgs args =
        e.collective >= 0 ? trace.collective_args[static_cast<size_t>(e.collective)] : KinetoCollectiveArgs{};
    std::optional<CollectiveOp> op = collective_op_from_pytorch_name(args.collective_name);
    if (const KinetoLaunch* launch = find_launch(trace, e.correlation)) {
      for (const KinetoCpuCommSpan* span : spans.around(*launch)) {
        if (args.empty()) args = span->args;
        if (!op) op = collective_op_from_pytorch_name(span->args.collective_name);
        if (!op) op = collective_op_from_pytorch_name(span->name);
      }
    }
    if (!op) op = cls.op;  // from the kernel name (rule table)
    CollectiveKey key;
    key.op = op ? static_cast<int>(*op) : -1;
    resolve_group(trace, args, key);
    CollectiveAccumulator& acc = groups[key];
    ++acc.count;
    acc.time_us += e.dur_us;
    const auto element_bytes = pytorch_dtype_bytes(args.dtype);
    const int64_t nelems = std::max(args.in_nelems, args.out_nelems);
    if (element_bytes && nelems >= 0) {
      ++acc.count_with_bytes;
      acc.bytes += static_cast<double>(nelems) * *element_bytes;
      acc.time_with_bytes_us += e.dur_us;
    }
  }
  if (trace.device_events.empty()) {
    // A CPU-only trace (gloo): the collectives are the gloo:* / nccl:* annotations of the CPU.
    for (const KinetoCpuCommSpan& s : trace.cpu_comm_spans) {
      if (!s.name.starts_with("gloo:") && !s.name.starts_with("nccl:")) continue;
      const auto op = collective_op_from_pytorch_name(s.name);
      CollectiveKey key;
      key.op = op ? static_cast<int>(*op) : -1;
      key.on_cpu = true;
      resolve_group(trace, s.args, key);
      CollectiveAccumulator& acc = groups[key];
      ++acc.count;
      acc.time_us += s.dur_us;
    }
  }
  return summarize(groups);
}

std::string device_name(const KinetoTrace& trace) {
  std::map<int64_t, int64_t> uses;
  for (const KinetoDeviceEvent& e : trace.device_events) ++uses[e.device];
  if (uses.empty()) return trace.devices.empty() ? "cpu" : trace.devices.front().name;
  const auto busiest =
      std::max_element(uses.begin(), uses.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const KinetoDevice& d : trace.devices)
    if (d.id == busiest->first) return d.name;
  return trace.devices.empty() ? "gpu " + std::to_string(busiest->first) : trace.devices.front().name;
}

std::optional<int64_t> rank_from_file_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  static const std::regex kRank(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(name, m, kRank)) return std::stoll(m[1].str());
  return std::nullopt;
}

using text::lowercase_alnum;

}  // namespace

std::optional<CollectiveOp> collective_op_from_pytorch_name(std::string_view name) {
  for (const std::string_view prefix : {"c10d::", "nccl:", "gloo:", "mpi:", "ucc:"})
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  const std::string key = lowercase_alnum(name);
  if (key.empty()) return std::nullopt;
  if (key.find("reducescatter") != std::string::npos) return CollectiveOp::reduce_scatter;
  if (key.find("allreduce") != std::string::npos) return CollectiveOp::all_reduce;
  if (key.find("allgather") != std::string::npos) return CollectiveOp::all_gather;
  if (key.find("alltoall") != std::string::npos) return CollectiveOp::all_to_all;
  if (key.find("broadcast") != std::string::npos) return CollectiveOp::broadcast;
  if (key.starts_with("send") || key.starts_with("recv")) return CollectiveOp::send_recv;
  if (key.starts_with("reduce")) return CollectiveOp::reduce;
  return std::nullopt;
}

std::optional<double> pytorch_dtype_bytes(std::string_view name) {
  static const std::map<std::string, double> kBytes = {
      {"byte", 1},       {"char", 1},           {"bool", 1},           {"qint8", 1},          {"quint8", 1},
      {"short", 2},      {"half", 2},           {"bfloat16", 2},       {"uint16", 2},         {"int", 4},
      {"float", 4},      {"qint32", 4},         {"uint32", 4},         {"complexhalf", 4},    {"long", 8},
      {"double", 8},     {"uint64", 8},         {"complexfloat", 8},   {"complexdouble", 16}, {"float8e4m3fn", 1},
      {"float8e5m2", 1}, {"float8e4m3fnuz", 1}, {"float8e5m2fnuz", 1}, {"float8e8m0fnu", 1},  {"float32", 4},
      {"float16", 2},    {"float64", 8},        {"int8", 1},           {"uint8", 1},          {"int16", 2},
      {"int32", 4},      {"int64", 8}};
  const auto it = kBytes.find(lowercase_alnum(name));
  return it == kBytes.end() ? std::nullopt : std::optional<double>(it->second);
}

std::string_view process_group_shape_name(ProcessGroupShape shape) {
  return enum_name(shape);
}

std::vector<ProcessGroupAxis> classify_process_groups(const KinetoDistributedInfo& info) {
  std::vector<ProcessGroupAxis> out;
  for (const KinetoProcessGroup& g : info.process_groups) {
    ProcessGroupAxis axis;
    axis.name = g.name;
    axis.description = g.description;
    axis.size = g.size > 0 ? g.size : static_cast<int64_t>(g.ranks.size());
    const auto& r = g.ranks;
    bool constant_stride = r.size() >= 2;
    for (size_t i = 2; i < r.size() && constant_stride; ++i) constant_stride = r[i] - r[i - 1] == r[1] - r[0];
    const bool is_world = info.world_size && static_cast<int64_t>(r.size()) == *info.world_size && constant_stride &&
                          r.front() == 0 && r[1] - r[0] == 1;
    if (is_world) {
      axis.shape = ProcessGroupShape::world;
      axis.stride = 1;
      axis.axis_hint = "world";
    } else if (r.size() == 1) {
      axis.shape = ProcessGroupShape::single;
      axis.axis_hint = "self";
    } else if (constant_stride && r[1] - r[0] == 1) {
      axis.shape = ProcessGroupShape::contiguous;
      axis.stride = 1;
      axis.axis_hint = "tp-like";
    } else if (constant_stride && r[1] - r[0] > 1) {
      axis.shape = ProcessGroupShape::strided;
      axis.stride = r[1] - r[0];
      axis.axis_hint = "dp-like";
    } else {
      axis.shape = ProcessGroupShape::irregular;
      axis.axis_hint = "irregular";
    }
    out.push_back(std::move(axis));
  }
  return out;
}

namespace {

// HTA's temporal breakdown and overlap of the GPU activity in its window, with the given classification.
void hta_breakdown(const KinetoTrace& trace, const ClassifiedEvents& classes, const std::vector<bool>& keep,
                   std::optional<KinetoTemporalBreakdown>& temporal, std::optional<double>& overlap_pct) {
  IntervalSets sets;
  for (size_t i = 0; i < trace.device_events.size(); ++i)
    if (keep[i]) sets.add(trace.device_events[i], classes.of(trace.device_events[i]).cls);
  if (sets.all.empty()) return;
  const MergedSets merged(std::move(sets));
  temporal = temporal_breakdown(merged);
  const int64_t communication = total_length(merged.communication);
  if (!merged.communication.empty() && communication > 0)
    overlap_pct = 100.0 * static_cast<double>(total_length(intersection_of(merged.communication, merged.compute))) /
                  static_cast<double>(communication);
}

std::vector<KinetoKernelFamily> kernel_families(const KinetoTrace& trace, const ClassifiedEvents& classes,
                                                const KernelRuleTable& rules) {
  // Key: rule index, or -2 / -3 for copies / fills classified by category, -1 for names no rule matched.
  struct Acc {
    KinetoKernelFamily family;
    std::map<uint32_t, double> time_by_name;
  };
  std::map<int, Acc> families;
  for (const KinetoDeviceEvent& e : trace.device_events) {
    const KernelClassification c = classes.of(e);
    const int key = e.activity == KinetoActivity::memcpy ? -2 : e.activity == KinetoActivity::memset ? -3 : c.rule;
    Acc& acc = families[key];
    KinetoKernelFamily& f = acc.family;
    if (f.count == 0) {
      f.rule = c.rule;
      f.cls = c.cls;
      f.op = c.op;
      if (c.rule >= 0) {
        const KernelRule& rule = rules.rules()[static_cast<size_t>(c.rule)];
        f.pattern = rule.pattern;
        f.library = rule.library;
        f.source = rule.source;
      } else {
        f.source = key == -1 ? "no rule matched: compute" : "event category";
      }
    }
    ++f.count;
    f.time_us += e.dur_us;
    acc.time_by_name[e.name] += e.dur_us;
  }
  std::vector<KinetoKernelFamily> out;
  for (auto& [key, acc] : families) {
    acc.family.names = static_cast<int64_t>(acc.time_by_name.size());
    const auto top = std::max_element(acc.time_by_name.begin(), acc.time_by_name.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    acc.family.example = trace.names[top->first];
    out.push_back(std::move(acc.family));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KinetoKernelFamily& a, const KinetoKernelFamily& b) { return a.time_us > b.time_us; });
  return out;
}

}  // namespace

KinetoRankAnalysis analyze_kineto_trace(const KinetoTrace& trace, const KinetoAnalysisOptions& options) {
  std::optional<KernelClassifier> local;
  if (options.classifier == nullptr) local.emplace(options.rules ? *options.rules : KernelRuleTable::defaults());
  KernelClassifier& classifier = options.classifier ? *options.classifier : *local;
  const ClassifiedEvents classes = classify_names(trace, classifier);
  KinetoRankAnalysis a;
  a.origin = trace.origin;
  a.rank = trace.distributed.rank.value_or(0);
  a.world_size = trace.distributed.world_size.value_or(0);
  a.device = device_name(trace);
  a.warnings = trace.warnings;

  const std::vector<bool> keep = hta_selection(trace, options.include_last_profiler_step, a.warnings);
  std::map<KernelClass, KinetoClassTotal> totals;
  for (const KinetoDeviceEvent& e : trace.device_events) {
    const KernelClass cls = classes.of(e).cls;
    KinetoClassTotal& total = totals[cls];
    total.cls = cls;
    ++total.count;
    total.time_us += e.dur_us;
  }
  for (const auto& [cls, total] : totals) a.classes.push_back(total);
  hta_breakdown(trace, classes, keep, a.temporal, a.comm_comp_overlap_pct);
  {
    KernelClassifier hta(KernelRuleTable::hta());  // substring tests: no cache needed across ranks
    hta_breakdown(trace, classify_names(trace, hta), keep, a.hta_temporal, a.hta_comm_comp_overlap_pct);
  }
  a.kernel_families = kernel_families(trace, classes, classifier.table());
  a.steps = step_breakdowns(trace, classes);
  a.collectives = collective_summaries(trace, classes);
  a.process_groups = classify_process_groups(trace.distributed);
  return a;
}

KinetoRunAnalysis analyze_kineto_run(const std::vector<KinetoTrace>& traces, const KinetoAnalysisOptions& options) {
  KinetoRunAnalysis run;
  std::set<int64_t> seen;
  // One classification cache for all ranks: they run the same kernels.
  std::optional<KernelClassifier> shared;
  KinetoAnalysisOptions rank_options = options;
  if (rank_options.classifier == nullptr) {
    shared.emplace(options.rules ? *options.rules : KernelRuleTable::defaults());
    rank_options.classifier = &*shared;
  }
  for (size_t i = 0; i < traces.size(); ++i) {
    KinetoRankAnalysis a = analyze_kineto_trace(traces[i], rank_options);
    if (!traces[i].distributed.rank) {
      if (const auto from_name = rank_from_file_name(traces[i].origin)) {
        a.rank = *from_name;
        if (traces.size() > 1)
          run.warnings.push_back(traces[i].origin + ": no distributedInfo.rank; rank " + std::to_string(a.rank) +
                                 " taken from the file name");
      } else {
        a.rank = static_cast<int64_t>(i);
        if (traces.size() > 1)
          run.warnings.push_back(traces[i].origin + ": no distributedInfo.rank; rank " + std::to_string(a.rank) +
                                 " is its position in the list");
      }
    }
    if (!seen.insert(a.rank).second)
      run.warnings.push_back(traces[i].origin + ": rank " + std::to_string(a.rank) + " appears more than once");
    run.ranks.push_back(std::move(a));
  }
  std::stable_sort(run.ranks.begin(), run.ranks.end(),
                   [](const KinetoRankAnalysis& x, const KinetoRankAnalysis& y) { return x.rank < y.rank; });

  // Step-time skew over the ProfilerSteps all ranks recorded (by name), else over each rank's own steps.
  std::vector<const KinetoRankAnalysis*> with_steps;
  for (const auto& r : run.ranks)
    if (!r.steps.empty()) with_steps.push_back(&r);
  if (with_steps.size() < 2) return run;
  std::set<std::string> common;
  for (const auto& s : with_steps.front()->steps) common.insert(s.name);
  for (const auto* r : with_steps) {
    std::set<std::string> names;
    for (const auto& s : r->steps)
      if (common.count(s.name)) names.insert(s.name);
    common = std::move(names);
  }
  if (common.empty()) run.warnings.emplace_back("the ranks share no ProfilerStep: skew compares each rank's own steps");
  double fastest = std::numeric_limits<double>::infinity();
  double slowest = -std::numeric_limits<double>::infinity();
  for (const auto* r : with_steps) {
    double sum = 0;
    int64_t n = 0;
    for (const auto& s : r->steps) {
      if (!common.empty() && !common.count(s.name)) continue;
      sum += s.duration_us;
      ++n;
    }
    const double mean = sum / static_cast<double>(n);
    fastest = std::min(fastest, mean);
    if (mean > slowest) {
      slowest = mean;
      run.slowest_rank = r->rank;
    }
  }
  run.step_skew_us = slowest - fastest;
  return run;
}

std::optional<KinetoHostDispatch> kineto_host_dispatch(const KinetoTrace& trace) {
  std::map<uint32_t, std::vector<const KinetoLaunch*>> by_thread;
  for (const KinetoDeviceEvent& e : trace.device_events)
    if (e.activity == KinetoActivity::kernel)
      if (const KinetoLaunch* launch = find_launch(trace, e.correlation)) by_thread[launch->thread].push_back(launch);
  const auto busiest = std::max_element(by_thread.begin(), by_thread.end(),
                                        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  if (busiest == by_thread.end() || busiest->second.size() < 2) return std::nullopt;
  std::vector<const KinetoLaunch*> launches = busiest->second;
  std::sort(launches.begin(), launches.end(),
            [](const KinetoLaunch* a, const KinetoLaunch* b) { return a->ts_us < b->ts_us; });
  std::vector<double> intervals, durations;
  for (size_t i = 0; i < launches.size(); ++i) {
    durations.push_back(launches[i]->dur_us);
    if (i > 0) intervals.push_back(launches[i]->ts_us - launches[i - 1]->ts_us);
  }
  const auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  KinetoHostDispatch d;
  d.thread = trace.threads[busiest->first];
  d.kernels = static_cast<int64_t>(launches.size());
  d.median_interval_us = median(intervals);
  d.median_launch_us = median(durations);
  return d;
}

}  // namespace meshscope
