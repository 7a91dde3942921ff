// Throughput and peak memory of the Kineto trace importer (core/importers/kineto.hpp). Run:
//   cmake --preset release -DMESHSCOPE_BUILD_BENCH=ON && cmake --build --preset release
//   build/release/bench/meshscope_bench --benchmark_filter=kineto
//
// Inputs: the largest shared trace (../shared/data/kineto_traces/hta_rank1_ws2_V100_with_memory_events.json.gz,
// 53.7 MB of JSON, 216k events), the same trace uncompressed in a temporary .json file, and a synthetic ~200 MB trace
// made by repeating its traceEvents, written once to a temporary .json file. Throughput is counted in bytes of
// uncompressed JSON (bytes_per_second, over CPU time: per core). kineto_inflate_only_* is zlib alone on the .gz, the
// floor under the load of a compressed trace.
//
// The import as the CLI runs it (load every file, then analyze_kineto_run): the 8-rank folder of small traces
// (../shared/data/kineto_traces/param_dlrm_8rank) and the largest single trace. kineto_classify_* isolates the
// classification of kernel names: every distinct name of the 8 ranks through the rule table, once per rank as each
// rank's own analysis would, against one cache for the whole import.
//
// kineto_stream_generated_4GiB parses a 4.3 GB document generated on the fly (no file): beyond 2^31 and 2^32 bytes, to
// show that sizes and offsets do not overflow 32 bits and that the reader's memory stays bounded (peak_rss_MiB).
//
// Peak memory: before each measured call the benchmark hands freed heap back to the kernel (malloc_trim), resets the
// process's resident-set high-water mark (writing "5" to /proc/self/clear_refs, Linux >= 4.0) and notes VmRSS; after
// it, VmHWM - VmRSS(before) is the peak resident memory the call added (counter peak_rss_MiB, the largest over the
// iterations). It includes the parsed trace, which is what a caller keeps.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/importers/kineto.hpp"

#ifndef MESHSCOPE_SHARED_DIR
#define MESHSCOPE_SHARED_DIR "../shared"
#endif

namespace {

using namespace meshscope;

const std::string kLargest =
    std::string(MESHSCOPE_SHARED_DIR) + "/data/kineto_traces/hta_rank1_ws2_V100_with_memory_events.json.gz";
constexpr size_t kSyntheticBytes = size_t{200} << 20;

int64_t status_kib(const std::string& key) {  // a "Key:   1234 kB" line of /proc/self/status
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  return -1;
}

class PeakMemory {
 public:
  void start() {
    malloc_trim(0);
    std::ofstream("/proc/self/clear_refs") << "5";
    before_kib_ = status_kib("VmRSS");
  }
  void stop() { peak_mib_ = std::max(peak_mib_, static_cast<double>(status_kib("VmHWM") - before_kib_) / 1024.0); }
  [[nodiscard]] double peak_mib() const { return peak_mib_; }

 private:
  int64_t before_kib_ = 0;
  double peak_mib_ = 0;
};

std::string gunzip(const std::string& path) {
  std::string out;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return out;
  std::string chunk(1 << 20, '\0');
  int n = 0;
  while ((n = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0)
    out.append(chunk.data(), static_cast<size_t>(n));
  gzclose(file);
  return out;
}

// [begin, end) of the elements of the traceEvents array: the bytes between its '[' and ']'.
std::pair<size_t, size_t> trace_events_body(const std::string& json) {
  const size_t key = json.find("\"traceEvents\"");
  const size_t open = json.find('[', key);
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return {open + 1, i};
    }
  }
  return {open + 1, open + 1};
}

// The largest shared trace with its events repeated until the document reaches kSyntheticBytes, as a .json file.
class SyntheticTrace {
 public:
  SyntheticTrace() : path_((std::filesystem::temp_directory_path() / "meshscope_bench_kineto_200MB.json").string()) {
    const std::string json = gunzip(kLargest);
    if (json.empty()) return;
    auto [begin, end] = trace_events_body(json);
    while (end > begin && (json[end - 1] == ' ' || json[end - 1] == '\n' || json[end - 1] == ',')) --end;
    const std::string_view body(json.data() + begin, end - begin);
    std::ofstream out(path_, std::ios::binary);
    out.write(json.data(), static_cast<std::streamsize>(begin));
    size_t written = json.size();
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    while (written < kSyntheticBytes) {
      out.put(',');
      out.write(body.data(), static_cast<std::streamsize>(body.size()));
      written += body.size() + 1;
    }
    out.write(json.data() + end, static_cast<std::streamsize>(json.size() - end));
    ok_ = static_cast<bool>(out);
  }
  ~SyntheticTrace() { std::remove(path_.c_str()); }
  SyntheticTrace(const SyntheticTrace&) = delete;
  SyntheticTrace& operator=(const SyntheticTrace&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  std::string path_;
  bool ok_ = false;
};

// A file in the temporary directory holding the given bytes, removed at exit.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& bytes)
      : path_((std::filesystem::temp_directory_path() / name).string()) {
    std::ofstream out(path_, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ok_ = !bytes.empty() && static_cast<bool>(out);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  std::string path_;
  bool ok_ = false;
};

void run_load(benchmark::State& state, const std::string& path) {
  PeakMemory memory;
  int64_t json_bytes = 0;
  int64_t events = 0;
  for (auto _ : state) {
    memory.start();
    auto trace = load_kineto_trace(path);
    memory.stop();
    if (!trace) {
      state.SkipWithError(trace.error().to_string().c_str());
      return;
    }
    json_bytes = trace->json_bytes;
    events = trace->events;
    benchmark::DoNotOptimize(trace->device_events.data());
  }
  state.SetBytesProcessed(state.iterations() * json_bytes);
  state.counters["json_MB"] = static_cast<double>(json_bytes) / 1e6;
  state.counters["events"] = static_cast<double>(events);
  state.counters["peak_rss_MiB"] = memory.peak_mib();
}

void kineto_load_largest_shared_trace_gz(benchmark::State& state) {
  run_load(state, kLargest);
}
BENCHMARK(kineto_load_largest_shared_trace_gz)->Unit(benchmark::kMillisecond)->Iterations(3);

// zlib alone: gzread of the compressed trace, no parsing.
void kineto_inflate_only_largest_shared_trace_gz(benchmark::State& state) {
  std::string chunk(size_t{1} << 18, '\0');
  int64_t json_bytes = 0;
  for (auto _ : state) {
    gzFile file = gzopen(kLargest.c_str(), "rb");
    if (file == nullptr) {
      state.SkipWithError("cannot open the trace");
      return;
    }
    json_bytes = 0;
    int n = 0;
    while ((n = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0) json_bytes += n;
    gzclose(file);
    benchmark::DoNotOptimize(chunk.data());
  }
  state.SetBytesProcessed(state.iterations() * json_bytes);
}
BENCHMARK(kineto_inflate_only_largest_shared_trace_gz)->Unit(benchmark::kMillisecond)->Iterations(3);

void kineto_load_largest_shared_trace_json(benchmark::State& state) {
  static const TempFile plain("meshscope_bench_kineto_largest.json", gunzip(kLargest));
  if (!plain.ok()) {
    state.SkipWithError("could not write the uncompressed trace");
    return;
  }
  run_load(state, plain.path());
}
BENCHMARK(kineto_load_largest_shared_trace_json)->Unit(benchmark::kMillisecond)->Iterations(3);

// The parser alone, without zlib: the uncompressed document from memory.
void kineto_parse_largest_shared_trace_from_memory(benchmark::State& state) {
  const std::string json = gunzip(kLargest);
  for (auto _ : state) {
    std::istringstream in(json);
    auto trace = parse_kineto_trace(in, "memory");
    if (!trace) {
      state.SkipWithError(trace.error().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(trace->device_events.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(json.size()));
}
BENCHMARK(kineto_parse_largest_shared_trace_from_memory)->Unit(benchmark::kMillisecond)->Iterations(3);

void kineto_load_synthetic_200MB_json(benchmark::State& state) {
  static const SyntheticTrace synthetic;
  if (!synthetic.ok()) {
    state.SkipWithError("could not write the synthetic trace");
    return;
  }
  run_load(state, synthetic.path());
}
BENCHMARK(kineto_load_synthetic_200MB_json)->Unit(benchmark::kMillisecond)->Iterations(2);

void kineto_analyze_largest_shared_trace(benchmark::State& state) {
  const auto trace = load_kineto_trace(kLargest);
  if (!trace) {
    state.SkipWithError(trace.error().to_string().c_str());
    return;
  }
  for (auto _ : state) {
    auto analysis = analyze_kineto_trace(*trace);
    benchmark::DoNotOptimize(analysis.steps.data());
  }
  state.counters["gpu_events"] = static_cast<double>(trace->device_events.size());
}
BENCHMARK(kineto_analyze_largest_shared_trace)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

const std::string kEightRankDir = std::string(MESHSCOPE_SHARED_DIR) + "/data/kineto_traces/param_dlrm_8rank";

std::vector<std::string> eight_rank_files() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kEightRankDir, ec))
    if (entry.path().string().ends_with(".json.gz")) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// What `meshscope-cli import --trace FILES` does before printing.
void run_import(benchmark::State& state, const std::vector<std::string>& files) {
  if (files.empty()) {
    state.SkipWithError("no trace files");
    return;
  }
  PeakMemory memory;
  int64_t gpu_events = 0;
  for (auto _ : state) {
    memory.start();
    std::vector<KinetoTrace> traces;
    for (const std::string& file : files) {
      auto trace = load_kineto_trace(file);
      if (!trace) {
        state.SkipWithError(trace.error().to_string().c_str());
        return;
      }
      traces.push_back(std::move(*trace));
    }
    const KinetoRunAnalysis run = analyze_kineto_run(traces);
    memory.stop();
    gpu_events = 0;
    for (const auto& t : traces) gpu_events += static_cast<int64_t>(t.device_events.size());
    benchmark::DoNotOptimize(run.ranks.data());
  }
  state.counters["files"] = static_cast<double>(files.size());
  state.counters["gpu_events"] = static_cast<double>(gpu_events);
  state.counters["peak_rss_MiB"] = memory.peak_mib();
}

void kineto_import_8rank_folder(benchmark::State& state) {
  run_import(state, eight_rank_files());
}
BENCHMARK(kineto_import_8rank_folder)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void kineto_import_largest_shared_trace(benchmark::State& state) {
  run_import(state, {kLargest});
}
BENCHMARK(kineto_import_largest_shared_trace)->Unit(benchmark::kMillisecond)->Iterations(5);

std::vector<std::vector<std::string>> eight_rank_names() {
  std::vector<std::vector<std::string>> names;
  for (const std::string& file : eight_rank_files())
    if (auto trace = load_kineto_trace(file)) names.push_back(trace->names);
  return names;
}

// Each rank's distinct names through the table, as eight separate analyses would.
void kineto_classify_8rank_names_per_rank(benchmark::State& state) {
  const auto names = eight_rank_names();
  int64_t lookups = 0;
  for (auto _ : state) {
    lookups = 0;
    for (const auto& rank : names) {
      KernelClassifier classifier(KernelRuleTable::defaults());
      for (const std::string& name : rank) benchmark::DoNotOptimize(classifier.classify(name).rule);
      lookups += static_cast<int64_t>(rank.size());
    }
  }
  state.counters["lookups"] = static_cast<double>(lookups);
}
BENCHMARK(kineto_classify_8rank_names_per_rank)->Unit(benchmark::kMillisecond);

// One cache for the import: a name seen on rank 0 is not classified again on rank 1.
void kineto_classify_8rank_names_one_cache(benchmark::State& state) {
  const auto names = eight_rank_names();
  int64_t distinct = 0;
  for (auto _ : state) {
    KernelClassifier classifier(KernelRuleTable::defaults());
    for (const auto& rank : names)
      for (const std::string& name : rank) benchmark::DoNotOptimize(classifier.classify(name).rule);
    distinct = classifier.distinct_names();
  }
  state.counters["distinct_names"] = static_cast<double>(distinct);
}
BENCHMARK(kineto_classify_8rank_names_one_cache)->Unit(benchmark::kMillisecond);

// A trace document made up as it is read: CPU events (counted, not kept) with a kernel every 1000th event.
class GeneratedTrace final : public KinetoByteSource {
 public:
  explicit GeneratedTrace(int64_t bytes) : target_(bytes) {
    for (int i = 0; i < 999; ++i)
      block_ += R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1.5, "dur": 2.25, )"
                R"("args": {"External id": 17, "Input Dims": [[1024, 1024], [1024, 1024]]}},)"
                "\n";
    block_ += R"({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": 10, )"
              R"("dur": 20, "args": {"stream": 7, "correlation": 1, "device": 0}},)"
              "\n";
  }
  Result<int64_t> read(char* data, int64_t size) override {
    int64_t n = 0;
    while (n < size && phase_ < 3) {
      const std::string_view piece = phase_ == 0 ? std::string_view(kHead) : phase_ == 1 ? block_ : kTail;
      if (phase_ == 1 && offset_ == 0 && produced_ >= target_) {
        phase_ = 2;
        offset_ = 0;
        continue;
      }
      const auto take = std::min<int64_t>(size - n, static_cast<int64_t>(piece.size() - offset_));
      std::copy_n(piece.data() + offset_, take, data + n);
      n += take;
      offset_ += static_cast<size_t>(take);
      produced_ += take;
      if (offset_ == piece.size()) {
        offset_ = 0;
        if (phase_ != 1) ++phase_;
      }
    }
    return n;
  }
  [[nodiscard]] int64_t input_bytes_read() const override { return produced_; }

 private:
  // The last generated event ends with ",\n": the tail closes the array after one more event.
  static constexpr std::string_view kHead = R"({"schemaVersion": 1, "traceEvents": [)";
  static constexpr std::string_view kTail = R"({"ph": "i", "name": "end", "ts": 1}]})";
  std::string block_;
  int64_t target_;
  int64_t produced_ = 0;
  int phase_ = 0;
  size_t offset_ = 0;
};

void kineto_stream_generated_4GiB(benchmark::State& state) {
  constexpr int64_t kBytes = int64_t{4300} * 1000 * 1000;  // > 2^32
  PeakMemory memory;
  int64_t json_bytes = 0;
  int64_t events = 0;
  int64_t kernels = 0;
  for (auto _ : state) {
    GeneratedTrace source(kBytes);
    memory.start();
    auto trace = parse_kineto_trace(source, "generated");
    memory.stop();
    if (!trace) {
      state.SkipWithError(trace.error().to_string().c_str());
      return;
    }
    json_bytes = trace->json_bytes;
    events = trace->events;
    kernels = static_cast<int64_t>(trace->device_events.size());
  }
  state.SetBytesProcessed(state.iterations() * json_bytes);
  state.counters["json_GB"] = static_cast<double>(json_bytes) / 1e9;
  state.counters["events"] = static_cast<double>(events);
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["peak_rss_MiB"] = memory.peak_mib();
}
BENCHMARK(kineto_stream_generated_4GiB)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
