#pragma once
// Importer for PyTorch profiler (Kineto) traces: the Chrome-trace JSON that torch.profiler writes
// (export_chrome_trace / tensorboard_trace_handler), gzip-compressed or plain, CUDA or ROCm, one file per rank.
//
// Read (docs/import.md):
//  - top level: schemaVersion, displayTimeUnit, baseTimeNanoseconds, deviceProperties, distributedInfo (rank,
//    world_size, backend, pg_config with the ranks of each process group), all other keys ignored;
//  - traceEvents: GPU activity (cat "kernel"/"Kernel", "gpu_memcpy"/"Memcpy", "gpu_memset"/"Memset" — the 2021
//    schema capitalised them), ProfilerStep#N spans, CPU events that carry a launch "correlation", c10d /
//    record_param_comms spans (collective name, message size, dtype, process group), [memory] instant events;
//    everything else is counted by category and dropped. A bare top-level array of events is accepted too.
// Times: "ts" and "dur" are microseconds whatever displayTimeUnit says ("ns" only asks viewers to show ns; PyTorch
// then writes µs with three decimals). Holistic Trace Analysis reads them the same way (hta/common/trace_parser.py).
//
// The document is streamed in chunks (through zlib's gzread for files) into the importer's own JSON reader
// (kineto_json_cursor.hpp: as strict as nlohmann::json, a few times faster), so memory grows with the events kept,
// never with the file. Input errors (truncated gzip, invalid JSON, wrong types, missing keys, an empty file) are Error
// values located by file, line, column and byte offset of the uncompressed JSON.
#include <array>
#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/comm/collective_op.hpp"
#include "core/importers/comm_kernel_rules.hpp"

namespace meshscope {

// ---- What a trace holds ---------------------------------------------------------------------------------------

struct KinetoDevice {  // one entry of deviceProperties
  int64_t id = 0;
  std::string name;  // "NVIDIA A100-SXM4-80GB", "AMD Radeon Graphics"
  double total_memory_bytes = 0;
  int64_t compute_major = 0;
  int64_t compute_minor = 0;
  int64_t multiprocessors = 0;  // numSms (compute units on ROCm)
};

struct KinetoProcessGroup {  // one entry of distributedInfo.pg_config
  std::string name;          // pg_name: "0", "1", or a hash
  std::string description;   // pg_desc: "default_pg", "undefined", ...
  std::string backend_config;
  int64_t size = 0;            // pg_size
  std::vector<int64_t> ranks;  // global ranks, in group order
};

struct KinetoDistributedInfo {
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string backend;  // "nccl", "gloo", ...
  std::string nccl_version;
  std::vector<KinetoProcessGroup> process_groups;
};

// Collective parameters that PyTorch records (ProcessGroupNCCL / record_param_comms): on the NCCL kernel's args in
// recent versions, on the CPU record_param_comms op in older ones. Absent fields stay empty / -1.
struct KinetoCollectiveArgs {
  std::string collective_name;  // "allreduce", "_allgather_base", "alltoall_base", ...
  int64_t in_nelems = -1;
  int64_t out_nelems = -1;
  std::string dtype;  // c10 ScalarType name: "Float", "BFloat16", ...
  int64_t group_size = -1;
  std::string process_group_name;
  std::string process_group_description;
  std::string process_group_ranks;  // as written: "[0, 1]"
  [[nodiscard]] bool empty() const {
    return collective_name.empty() && in_nelems < 0 && out_nelems < 0 && dtype.empty() && group_size < 0 &&
           process_group_name.empty() && process_group_ranks.empty();
  }
};

enum class KinetoActivity { kernel, memcpy, memset };

struct KinetoDeviceEvent {
  uint32_t name = 0;  // index into KinetoTrace::names
  KinetoActivity activity = KinetoActivity::kernel;
  double ts_us = 0;
  double dur_us = 0;
  int64_t correlation = -1;  // links the kernel to its CPU launch (cudaLaunchKernel, hipLaunchKernel, ...)
  int64_t stream = -1;
  int64_t device = -1;
  int32_t collective = -1;  // index into KinetoTrace::collective_args, -1 when the event has none
};

struct KinetoStepSpan {  // a ProfilerStep#N annotation
  std::string name;
  int64_t number = -1;  // N
  double ts_us = 0;
  double dur_us = 0;
  bool on_gpu = false;  // the gpu_user_annotation copy Kineto draws on the GPU timeline
};

struct KinetoLaunch {  // the CPU event of a correlation id (earliest one when several carry it)
  int64_t correlation = 0;
  double ts_us = 0;
  uint32_t thread = 0;  // index into KinetoTrace::threads
  double dur_us = 0;    // the launch call's own duration (cudaLaunchKernel, hipLaunchKernel, ...)
};

struct KinetoCpuCommSpan {  // c10d::*, record_param_comms, nccl:* and gloo:* spans on the CPU
  std::string name;
  uint32_t thread = 0;
  double ts_us = 0;
  double dur_us = 0;
  KinetoCollectiveArgs args;
};

struct KinetoWarning {
  std::string message;
  int64_t byte_offset = -1;  // in the uncompressed JSON; -1 for the file as a whole
};

struct KinetoTrace {
  std::string origin;  // the file name used in messages
  int64_t schema_version = 0;
  std::string display_time_unit;  // as written; informational only (see the header comment)
  std::optional<int64_t> base_time_ns;
  bool has_distributed_info = false;
  KinetoDistributedInfo distributed;
  std::vector<KinetoDevice> devices;

  std::vector<std::string> names;    // device-event names, interned
  std::vector<std::string> threads;  // "pid/tid" of CPU threads, interned
  std::vector<KinetoDeviceEvent> device_events;
  std::vector<KinetoCollectiveArgs> collective_args;
  std::vector<KinetoStepSpan> steps;   // in file order
  std::vector<KinetoLaunch> launches;  // sorted by correlation
  std::vector<KinetoCpuCommSpan> cpu_comm_spans;

  std::map<std::string, int64_t> events_by_category;  // every event; "" for events without "cat"
  int64_t events = 0;                                 // elements of traceEvents
  int64_t unknown_category_events = 0;             // events of categories this importer does not know (kept as "other")
  int64_t memory_events = 0;                       // [memory] allocation events
  std::map<int64_t, double> peak_allocated_bytes;  // by device id (-1: CPU), from [memory] "Total Allocated"
  int64_t json_bytes = 0;                          // uncompressed size of the document
  std::vector<KinetoWarning> warnings;
};

// Progress of a load: input bytes read so far (compressed bytes for .gz), the input size when known (else -1), and
// the events read. Return false to cancel; the load then fails with an Error whose message is kKinetoCancelled.
struct KinetoProgress {
  int64_t input_bytes_read = 0;
  int64_t input_bytes_total = -1;
  int64_t events = 0;
};
using KinetoProgressCallback = std::function<bool(const KinetoProgress&)>;
inline constexpr const char* kKinetoCancelled = "import cancelled";

// Limits that keep a hostile or broken document from exhausting memory or the analysis's integer nanoseconds
// (docs/import.md, "Errors"): a "ts" or "dur" beyond ±9e15 µs (285 years; int64 nanoseconds reach 292), one event or
// top-level member larger than 64 MiB (the reader holds a unit whole), and nesting deeper than 1000 levels.
inline constexpr double kKinetoMaxTimeUs = 9.0e15;
inline constexpr int64_t kKinetoMaxUnitBytes = int64_t{64} << 20;
inline constexpr int kKinetoMaxNesting = 1000;

// Where the bytes of a document come from. read() fills up to `size` bytes and returns how many, 0 at the end, or an
// Error (a corrupt or truncated gzip stream); input_bytes_read() is progress in input bytes (compressed for gzip).
class KinetoByteSource {
 public:
  KinetoByteSource() = default;
  KinetoByteSource(const KinetoByteSource&) = delete;
  KinetoByteSource& operator=(const KinetoByteSource&) = delete;
  virtual ~KinetoByteSource() = default;
  [[nodiscard]] virtual Result<int64_t> read(char* data, int64_t size) = 0;
  [[nodiscard]] virtual int64_t input_bytes_read() const = 0;
  [[nodiscard]] virtual int64_t input_bytes_total() const { return -1; }
  // True when the bytes are decompressed: positions in errors are then "of the uncompressed JSON".
  [[nodiscard]] virtual bool compressed() const { return false; }
};

// The importer: a document in, a KinetoTrace or an Error out. origin: the name used in messages.
[[nodiscard]] Result<KinetoTrace> parse_kineto_trace(KinetoByteSource& source, const std::string& origin,
                                                     const KinetoProgressCallback& progress = {});
// An uncompressed trace from a stream.
[[nodiscard]] Result<KinetoTrace> parse_kineto_trace(std::istream& in, const std::string& origin,
                                                     const KinetoProgressCallback& progress = {});
// A .json or .json.gz file (gzip is recognised by its magic bytes, not by the name).
[[nodiscard]] Result<KinetoTrace> load_kineto_trace(const std::string& path,
                                                    const KinetoProgressCallback& progress = {});

// Event categories (docs/import.md, "What is read"). GPU activity: "kernel", "gpu_memcpy", "gpu_memset" and their 2021
// spellings "Kernel", "Memcpy", "Memset". Known: those, the other libkineto ActivityType names and the flow
// categories; events of any other category are counted as unknown.
[[nodiscard]] std::optional<KinetoActivity> kineto_device_activity(std::string_view category);
[[nodiscard]] bool is_known_kineto_category(std::string_view category);
// "ProfilerStep#12" → 12 (HTA: r"ProfilerStep\s*#\s*(\d+)"); nullopt for other names.
[[nodiscard]] std::optional<int64_t> kineto_profiler_step_number(std::string_view name);
// CPU spans that describe a collective: c10d::*, record_param_comms, nccl:*, gloo:*.
[[nodiscard]] bool is_kineto_cpu_comm_span(std::string_view name);

// The readers of the two metadata objects, for the importer and for tools that read them alone. where: the location
// prefix of errors ("trace.json (byte 12): distributedInfo").
[[nodiscard]] Result<KinetoDistributedInfo> kineto_distributed_info_from_json(const nlohmann::json& info,
                                                                              const std::string& where);
[[nodiscard]] Result<std::vector<KinetoDevice>> kineto_devices_from_json(const nlohmann::json& devices,
                                                                         const std::string& where);

// ---- What the analysis reports ----------------------------------------------------------------------------------

struct KinetoAnalysisOptions {
  // HTA's TraceAnalysis(include_last_profiler_step=False) leaves out the GPU work launched from the last
  // ProfilerStep onwards, which may be cut by the end of the profile; the temporal breakdown does the same by default.
  bool include_last_profiler_step = false;
  const KernelRuleTable* rules = nullptr;  // nullptr: KernelRuleTable::defaults()
  // A cache of kernel classifications to share across the ranks of one import (analyze_kineto_run makes one); it
  // takes the place of `rules`. nullptr: a cache for this call only.
  KernelClassifier* classifier = nullptr;
};

// Holistic Trace Analysis's temporal breakdown (hta/analyzers/breakdown_analysis.py, get_temporal_breakdown), for
// one rank, in whole microseconds as HTA rounds them:
//   kernel_time  = end of the last GPU activity - start of the first,
//   idle         = kernel_time - |union of all GPU activity|,
//   compute      = |union of compute kernels|  (everything but communication and memcpy/memset),
//   non_compute  = kernel_time - compute - idle.
struct KinetoTemporalBreakdown {
  double idle_us = 0;
  double compute_us = 0;
  double non_compute_us = 0;
  double kernel_time_us = 0;
  [[nodiscard]] double idle_pct() const { return kernel_time_us > 0 ? 100.0 * idle_us / kernel_time_us : 0.0; }
  [[nodiscard]] double compute_pct() const { return kernel_time_us > 0 ? 100.0 * compute_us / kernel_time_us : 0.0; }
  [[nodiscard]] double non_compute_pct() const {
    return kernel_time_us > 0 ? 100.0 * non_compute_us / kernel_time_us : 0.0;
  }
};

// One device's GPU activity in the window of one step: |union of intervals ∩ [step start, step end]|, in µs (times
// rounded to whole nanoseconds first, so that the sums are exact). busy ≤ duration, and
// compute ∪ communication = compute + exposed communication ≤ busy.
struct KinetoStepDeviceTimes {
  int64_t device = -1;                  // args "device"; -1 when the events do not say
  double busy_us = 0;                   // |all GPU activity|
  double kernel_time_us = 0;            // first start to last end of the activity, clipped to the window
  double compute_us = 0;                // |compute kernels|
  double communication_us = 0;          // |communication kernels|
  double exposed_communication_us = 0;  // |communication \ compute|
  double idle_us = 0;                   // duration - busy
  int64_t gpu_events = 0;               // events that overlap the window
};

// The same quantities for the GPU work the step launched, wherever it ran (HTA's add_iteration: the step whose CPU
// span contains the launch), in whole microseconds as HTA rounds them. They can exceed the step's duration: the GPU
// may still run a step's kernels after its CPU span ends.
struct KinetoStepLaunched {
  double kernel_time_us = 0;  // first start to last end of the step's GPU activity
  double compute_us = 0;
  double communication_us = 0;
  double exposed_communication_us = 0;
  double idle_us = 0;  // kernel_time - |union of all its GPU activity|
  int64_t gpu_events = 0;
};

// One ProfilerStep on one rank: the GPU activity inside the step's window (its CPU span), per device; the top-level
// figures are those of the busiest device. Every figure is at most duration_us.
struct KinetoStepBreakdown {
  std::string name;  // "ProfilerStep#4"
  int64_t number = -1;
  double start_us = 0;                         // the CPU span of the step
  double duration_us = 0;                      // its length: the step time (rounded to whole nanoseconds)
  int64_t device = -1;                         // the device of the figures below
  double busy_us = 0;                          // |union of all GPU activity in the window|
  double kernel_time_us = 0;                   // first start to last end of that activity, clipped to the window
  double compute_us = 0;                       // |union of compute kernels in the window|
  double communication_us = 0;                 // |union of communication kernels in the window|
  double exposed_communication_us = 0;         // |communication \ compute| in the window
  double compute_or_communication_us = 0;      // |compute ∪ communication| = compute + exposed communication
  double idle_us = 0;                          // duration - busy (0 for a trace without GPU activity)
  int64_t gpu_events = 0;                      // GPU events that overlap the window
  std::vector<KinetoStepDeviceTimes> devices;  // every device with activity in the trace, by id
  KinetoStepLaunched launched;                 // the work the step launched (HTA's attribution)
};

struct KinetoCollectiveSummary {
  std::optional<CollectiveOp> op;   // nullopt: a communication kernel whose collective is unknown
  std::string process_group;        // pg name when the trace records it
  int64_t group_size = 0;           // 0: unknown
  bool group_size_assumed = false;  // taken as the world size because the trace does not say
  int64_t count = 0;
  int64_t count_with_bytes = 0;  // kernels whose message size is known
  double bytes = 0;              // sum over count_with_bytes kernels (nccl-tests' "size": the larger of in/out)
  double time_us = 0;            // sum of kernel durations (includes waiting for the slowest peer)
  double algbw_bytes_per_s = 0;  // bytes / time of the kernels with a known size; NaN when none
  double busbw_bytes_per_s = 0;  // algbw × bus_bandwidth_factor(op, group_size); NaN when unknown
  bool on_cpu = false;           // a CPU-only trace: gloo:* / nccl:* annotations instead of kernels
};

// Best-effort reading of a process group as a mesh axis from its rank list: consecutive ranks look like
// tensor-parallel groups, a constant stride > 1 like data-parallel (or pipeline / context) groups.
enum class ProcessGroupShape { world, single, contiguous, strided, irregular };

template <>
struct EnumNames<ProcessGroupShape> {
  static constexpr std::array<std::pair<ProcessGroupShape, std::string_view>, 5> table{
      {{ProcessGroupShape::world, "world"},
       {ProcessGroupShape::single, "single"},
       {ProcessGroupShape::contiguous, "contiguous"},
       {ProcessGroupShape::strided, "strided"},
       {ProcessGroupShape::irregular, "irregular"}}};
};
[[nodiscard]] std::string_view process_group_shape_name(ProcessGroupShape shape);
struct ProcessGroupAxis {
  std::string name;
  std::string description;
  int64_t size = 0;
  int64_t stride = 0;  // between consecutive ranks; 0 when irregular
  ProcessGroupShape shape = ProcessGroupShape::irregular;
  std::string axis_hint;  // "world", "self", "tp-like", "dp-like", "irregular"
};
[[nodiscard]] std::vector<ProcessGroupAxis> classify_process_groups(const KinetoDistributedInfo& info);

struct KinetoClassTotal {
  KernelClass cls = KernelClass::other;
  int64_t count = 0;
  double time_us = 0;  // sum of durations (not a union)
};

// The kernels one rule classified (a kernel family), or the copies and fills classified by their event category.
struct KinetoKernelFamily {
  int rule = -1;        // index in the rule table; -1: no rule (by category, or nothing matched: compute)
  std::string pattern;  // the rule's pattern; "" without a rule
  std::string library;  // the rule's library ("user" for user rules); "" without a rule
  std::string source;   // the rule's source, or "event category" / "no rule matched"
  KernelClass cls = KernelClass::other;
  std::optional<CollectiveOp> op;
  int64_t names = 0;    // distinct kernel names
  int64_t count = 0;    // events
  double time_us = 0;   // sum of durations
  std::string example;  // the name with the largest summed duration
};

struct KinetoRankAnalysis {
  std::string origin;
  int64_t rank = 0;
  int64_t world_size = 0;  // 0 when unknown
  std::string device;      // the name of the GPU the kernels ran on; "cpu" for a CPU-only trace
  std::optional<KinetoTemporalBreakdown> temporal;  // nullopt without GPU activity
  // HTA's get_comm_comp_overlap: |union(communication) ∩ union(compute)| / |union(communication)| × 100, over the
  // same GPU activity as the temporal breakdown; nullopt without communication kernels.
  std::optional<double> comm_comp_overlap_pct;
  // The same two with HTA's own kernel types (KernelRuleTable::hta(): "ncclKernel" is communication), for numbers
  // that compare with HTA's; the two above use the rule table.
  std::optional<KinetoTemporalBreakdown> hta_temporal;
  std::optional<double> hta_comm_comp_overlap_pct;
  std::vector<KinetoStepBreakdown> steps;
  std::vector<KinetoCollectiveSummary> collectives;
  std::vector<KinetoClassTotal> classes;            // per KernelClass, all GPU activity of the trace
  std::vector<KinetoKernelFamily> kernel_families;  // which rule classified which kernels, by time
  std::vector<ProcessGroupAxis> process_groups;
  std::vector<KinetoWarning> warnings;
};

struct KinetoRunAnalysis {
  std::vector<KinetoRankAnalysis> ranks;  // sorted by rank
  // With several ranks: the spread of the mean step time (over the ProfilerSteps every rank has, else over each
  // rank's own steps) and the rank with the longest one.
  std::optional<double> step_skew_us;
  std::optional<int64_t> slowest_rank;
  std::vector<std::string> warnings;
};

[[nodiscard]] KinetoRankAnalysis analyze_kineto_trace(const KinetoTrace& trace,
                                                      const KinetoAnalysisOptions& options = {});
// Traces of several ranks of one job. A trace without distributedInfo.rank takes its rank from the file name
// ("rank-3", "rank3", "worker3") or, failing that, its position in the list (a warning says so).
[[nodiscard]] KinetoRunAnalysis analyze_kineto_run(const std::vector<KinetoTrace>& traces,
                                                   const KinetoAnalysisOptions& options = {});

// How fast the host issued kernels (the host-dispatch costs of docs/estimate.md): on the CPU thread that launched the
// most kernels, the median interval between consecutive kernel launches and the median launch call. nullopt when no
// thread launched at least two kernels.
struct KinetoHostDispatch {
  std::string thread;  // "pid/tid"
  int64_t kernels = 0;
  double median_interval_us = 0;
  double median_launch_us = 0;
};
[[nodiscard]] std::optional<KinetoHostDispatch> kineto_host_dispatch(const KinetoTrace& trace);

// The collective a PyTorch name stands for: "allreduce", "_allgather_base", "reduce_scatter_tensor_coalesced",
// "c10d::alltoall_base_", "nccl:all_reduce", "gloo:broadcast", "send", "recv" ...; nullopt when it is not one.
[[nodiscard]] std::optional<CollectiveOp> collective_op_from_pytorch_name(std::string_view name);
// Bytes per element of a c10 ScalarType name ("Float" 4, "BFloat16" 2, "Float8_e4m3fn" 1, ...); nullopt if unknown.
[[nodiscard]] std::optional<double> pytorch_dtype_bytes(std::string_view name);

}  // namespace meshscope
