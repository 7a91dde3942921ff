// Per-step figures of a Kineto trace (docs/import.md, "Per step"): unions of the GPU activity inside each step's
// window, per device, on every real trace in ../shared/data/kineto_traces, checked against the invariants that any
// correct breakdown satisfies and against a brute-force union computed here; and the classification of kernel names
// (the literal prefilter, the cache shared across ranks, the rule each family came from).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/importers/kineto.hpp"
#include "kineto_test_support.hpp"

using namespace meshscope;
using namespace meshscope::test::kineto;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

// Every shared trace, the 8-rank folder's included, so that a trace added to ../shared is checked too.
std::vector<std::string> all_shared_traces() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(test::shared_path(kDir)))
    if (entry.is_regular_file() && entry.path().string().ends_with(".json.gz")) out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

int64_t ns(double us) {
  return std::llround(us * 1000.0);
}

// |∪ intervals ∩ [w0, w1)| the slow way: every event clipped, sorted, merged.
int64_t brute_union_ns(std::vector<std::pair<int64_t, int64_t>> spans, int64_t w0, int64_t w1) {
  for (auto& [s, e] : spans) {
    s = std::clamp(s, w0, w1);
    e = std::clamp(e, w0, w1);
  }
  std::sort(spans.begin(), spans.end());
  int64_t total = 0;
  int64_t reach = w0;
  for (const auto& [s, e] : spans) {
    const int64_t from = std::max(s, reach);
    if (e > from) total += e - from;
    reach = std::max(reach, e);
  }
  return total;
}

}  // namespace

TEST_CASE("kineto: per-step compute ∪ communication never exceeds the step, on every shared trace", "[kineto]") {
  const auto paths = all_shared_traces();
  REQUIRE(paths.size() >= 17);  // MANIFEST.md: 10 traces and the 8 ranks of param_dlrm_8rank
  int64_t steps_checked = 0;
  for (const std::string& path : paths) {
    INFO(path);
    const KinetoRankAnalysis a = analyze_kineto_trace(load_cached(path));
    for (const KinetoStepBreakdown& s : a.steps) {
      INFO(s.name);
      ++steps_checked;
      const int64_t duration = ns(s.duration_us);
      REQUIRE(duration >= 0);
      for (const KinetoStepDeviceTimes& d : s.devices) {
        INFO("device " << d.device);
        CHECK(ns(d.compute_us) <= duration);
        CHECK(ns(d.communication_us) <= duration);
        CHECK(ns(d.exposed_communication_us) <= ns(d.communication_us));
        CHECK(ns(d.compute_us) + ns(d.exposed_communication_us) <= ns(d.busy_us));  // compute ∪ comm ≤ busy
        CHECK(ns(d.busy_us) <= duration);
        CHECK(ns(d.kernel_time_us) <= duration);
        CHECK(ns(d.busy_us) <= ns(d.kernel_time_us));
        CHECK(ns(d.idle_us) == duration - ns(d.busy_us));
      }
      CHECK(ns(s.compute_or_communication_us) == ns(s.compute_us) + ns(s.exposed_communication_us));
      CHECK(s.compute_or_communication_us <= s.duration_us);
      CHECK(s.communication_us <= s.duration_us);
      CHECK(s.exposed_communication_us <= s.duration_us);
      CHECK(s.idle_us >= 0);
      CHECK(s.idle_us <= s.duration_us);
    }
  }
  CHECK(steps_checked >= 30);
}

TEST_CASE("kineto: a step's compute is the union inside its window, not the work it launched", "[kineto]") {
  // Regression: on this V100 trace the GPU runs ~60 ms behind the CPU, so the kernels ProfilerStep#101 launches take
  // 93 ms of compute against its 35 ms span; the per-step compute used to be that, larger than the step.
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_rank-0_V100_ns_resolution.pt.trace.json.gz"));
  REQUIRE(a.steps.size() == 5);
  const KinetoStepBreakdown& first = a.steps[0];
  CHECK(first.name == "ProfilerStep#101");
  CHECK(first.launched.compute_us > first.duration_us);  // what the step launched runs past its end
  CHECK(first.compute_us <= first.duration_us);
  // The same on the 16-rank A100 trace, whose per-step idle time used to exceed the step (GPU span > CPU span).
  const KinetoRankAnalysis b = analyze_kineto_trace(shared_trace("hta_rank0_ws16_A100-SXM4-80GB.json.gz"));
  REQUIRE_FALSE(b.steps.empty());
  CHECK(b.steps[0].launched.idle_us > b.steps[0].duration_us);
  for (const auto& s : b.steps) CHECK(s.idle_us <= s.duration_us);
}

TEST_CASE("kineto: the window union agrees with a brute-force union of clipped events", "[kineto]") {
  // Recomputed here from the parsed events: each event [ts, ts + dur] in whole ns, clipped to the step's CPU span.
  const std::string name = GENERATE(std::string("hta_rank0_ws16_A100-SXM4-80GB.json.gz"),
                                    std::string("hta_nccl_data_rank0_ws2_A100.json.gz"),
                                    std::string("hta_rank1_ws2_V100_with_memory_events.json.gz"));
  INFO(name);
  const KinetoTrace& trace = shared_trace(name);
  const KinetoRankAnalysis a = analyze_kineto_trace(trace);
  REQUIRE_FALSE(a.steps.empty());
  for (const KinetoStepBreakdown& s : a.steps) {
    INFO(s.name);
    const int64_t w0 = ns(s.start_us);
    const int64_t w1 = w0 + ns(s.duration_us);
    std::vector<std::pair<int64_t, int64_t>> all, compute, comm;
    for (const KinetoDeviceEvent& e : trace.device_events) {
      if (e.device != s.device) continue;
      const std::pair<int64_t, int64_t> span{ns(e.ts_us), ns(e.ts_us) + ns(e.dur_us)};
      all.push_back(span);
      const bool copy = e.activity != KinetoActivity::kernel;
      const KernelClass cls =
          copy ? KernelClass::memcpy : KernelRuleTable::defaults().classify(trace.names[e.name]).cls;
      if (is_compute_kernel(cls)) compute.push_back(span);
      if (cls == KernelClass::communication) comm.push_back(span);
    }
    std::vector<std::pair<int64_t, int64_t>> compute_or_comm = compute;
    compute_or_comm.insert(compute_or_comm.end(), comm.begin(), comm.end());
    CHECK(ns(s.busy_us) == brute_union_ns(all, w0, w1));
    CHECK(ns(s.compute_us) == brute_union_ns(compute, w0, w1));
    CHECK(ns(s.communication_us) == brute_union_ns(comm, w0, w1));
    CHECK(ns(s.compute_or_communication_us) == brute_union_ns(compute_or_comm, w0, w1));
  }
}

TEST_CASE("kineto: a second device's copy of the work does not add to a step's figures", "[kineto]") {
  // The 2-rank A100 trace with every GPU event repeated on another device (as one process driving two GPUs would
  // record): per device the figures are unchanged, and the step reports one device, not the sum of both.
  KinetoTrace trace = shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz");
  const KinetoRankAnalysis single = analyze_kineto_trace(trace);
  const size_t n = trace.device_events.size();
  for (size_t i = 0; i < n; ++i) {
    KinetoDeviceEvent copy = trace.device_events[i];
    copy.device = 5;
    trace.device_events.push_back(copy);
  }
  const KinetoRankAnalysis doubled = analyze_kineto_trace(trace);
  REQUIRE(doubled.steps.size() == single.steps.size());
  for (size_t i = 0; i < single.steps.size(); ++i) {
    const auto& s = single.steps[i];
    const auto& d = doubled.steps[i];
    INFO(s.name);
    REQUIRE(d.devices.size() == 2);
    CHECK(d.devices[0].device == 0);
    CHECK(d.devices[1].device == 5);
    for (const auto& dev : d.devices) {
      CHECK(dev.compute_us == s.compute_us);
      CHECK(dev.communication_us == s.communication_us);
      CHECK(dev.idle_us == s.idle_us);
    }
    CHECK(d.device == 0);  // equal activity: the lowest id
    CHECK(d.compute_us == s.compute_us);
    CHECK(d.compute_or_communication_us <= d.duration_us);
  }
}

// ---- Classification -------------------------------------------------------------------------------------------------

namespace {

// The table's answer computed without its prefilter: std::regex_search (or a substring search) for every rule.
int reference_rule(const KernelRuleTable& table, const std::string& name) {
  for (size_t i = 0; i < table.rules().size(); ++i) {
    const KernelRule& r = table.rules()[i];
    bool match = false;
    if (r.regex) {
      auto flags = std::regex::ECMAScript;
      if (r.ignore_case) flags |= std::regex::icase;
      match = std::regex_search(name, std::regex(r.pattern, flags));
    } else if (r.ignore_case) {
      std::string a = name;
      std::string b = r.pattern;
      for (char& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (char& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      match = a.find(b) != std::string::npos;
    } else {
      match = name.find(r.pattern) != std::string::npos;
    }
    if (match) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

TEST_CASE("kineto: the literal prefilter never changes which rule matches", "[kineto]") {
  // Every kernel name of every shared trace, plus names built to exercise each part of the pattern syntax.
  std::set<std::string> names = {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                 "ALL_REDUCE_fused",
                                 "allreduce7<(Op)0>",
                                 "void deep_ep::internode_ll::dispatch<false>(void*)",
                                 "deep_ep::x::combined",
                                 "colour",
                                 "color",
                                 "colr",
                                 "xxy",
                                 "aXd",
                                 "abd",
                                 "ad",
                                 "foo_bar",
                                 "bar_foo",
                                 "c",
                                 "[ab]c",
                                 "bc",
                                 "Memcpy HtoD",
                                 "my_a2a_kernel_v2"};
  for (const std::string& path : all_shared_traces())
    for (const std::string& name : load_cached(path).names) names.insert(name);
  // User rules with groups, optional characters, classes, anchors, counted repeats and alternation.
  std::vector<KernelRule> user;
  for (const char* pattern : {"a(b|c)?d", "colou?r", "x{2}y", "[ab]c", "^foo_", "_foo$", "(?:ab)+d", "\\bbar\\b", "a.d",
                              "my_a2a|my_b2b", "A(X)d"}) {
    KernelRule r;
    r.pattern = pattern;
    r.regex = true;
    r.cls = KernelClass::communication;
    user.push_back(r);
  }
  user.push_back(KernelRule{"COLOUR", true, true, KernelClass::gemm, std::nullopt, "user", "test"});
  auto table = KernelRuleTable::defaults().with_rules_first(user);
  REQUIRE(table);
  for (const std::string& name : names) {
    INFO(name);
    CHECK(table->classify(name).rule == reference_rule(*table, name));
    CHECK(KernelRuleTable::defaults().classify(name).rule == reference_rule(KernelRuleTable::defaults(), name));
  }
}

TEST_CASE("kineto: an import classifies each distinct kernel name once for all its ranks", "[kineto]") {
  std::vector<KinetoTrace> traces;
  std::set<std::string> distinct;
  for (const std::string& path : all_shared_traces()) {
    if (path.find("param_dlrm_8rank") == std::string::npos) continue;
    traces.push_back(load_cached(path));
    distinct.insert(traces.back().names.begin(), traces.back().names.end());
  }
  REQUIRE(traces.size() == 8);
  KernelClassifier classifier(KernelRuleTable::defaults());
  KinetoAnalysisOptions options;
  options.classifier = &classifier;
  const KinetoRunAnalysis run = analyze_kineto_run(traces, options);
  CHECK(run.ranks.size() == 8);
  CHECK(classifier.distinct_names() == static_cast<int64_t>(distinct.size()));
  // The cache gives what the table gives.
  for (const std::string& name : distinct)
    CHECK(classifier.classify(name).rule == KernelRuleTable::defaults().classify(name).rule);
}

TEST_CASE("kineto: the output says which rule classified each kernel family", "[kineto]") {
  // MANIFEST.md: this trace holds 21 NCCL kernels (AllReduce and Broadcast).
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz"));
  int64_t nccl = 0;
  int64_t events = 0;
  for (const KinetoKernelFamily& f : a.kernel_families) {
    INFO(f.pattern << " " << f.source);
    events += f.count;
    CHECK(f.names >= 1);
    CHECK_FALSE(f.example.empty());
    if (f.rule >= 0) {
      const KernelRule& rule = KernelRuleTable::defaults().rules()[static_cast<size_t>(f.rule)];
      CHECK(f.pattern == rule.pattern);
      CHECK(f.library == rule.library);
      CHECK_FALSE(f.source.empty());
      CHECK(KernelRuleTable::defaults().classify(f.example).rule == f.rule);
    }
    if (f.cls == KernelClass::communication) {
      CHECK(f.library == "NCCL/RCCL");
      nccl += f.count;
    }
  }
  CHECK(nccl == 21);
  CHECK(events == static_cast<int64_t>(shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz").device_events.size()));
  // A user rule is named as such, with the file it came from.
  auto user = parse_kernel_rules_json(R"({"rules": [{"match": "ncclKernel_Broadcast", "category": "communication",
                                          "op": "broadcast", "library": "my NCCL fork"}]})",
                                      "rules.json");
  REQUIRE(user);
  auto table = KernelRuleTable::defaults().with_rules_first(*user);
  REQUIRE(table);
  KinetoAnalysisOptions options;
  options.rules = &*table;
  const KinetoRankAnalysis b = analyze_kineto_trace(shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz"), options);
  const auto broadcast = std::find_if(b.kernel_families.begin(), b.kernel_families.end(),
                                      [](const KinetoKernelFamily& f) { return f.rule == 0; });
  REQUIRE(broadcast != b.kernel_families.end());
  CHECK(broadcast->library == "my NCCL fork");
  CHECK(broadcast->source == "rules.json: rules[0]");
  const KinetoTrace& trace = shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz");
  const auto broadcasts = std::count_if(trace.device_events.begin(), trace.device_events.end(), [&](const auto& e) {
    return trace.names[e.name].find("ncclKernel_Broadcast") != std::string::npos;
  });
  CHECK(broadcasts > 0);
  CHECK(broadcast->count == broadcasts);
}
