// Kineto trace input: the byte sources (a std::istream, a file read through zlib) and the readers of the small
// metadata objects. The SAX handler that reads the events is in kineto_parse.cpp, the analysis in kineto_analysis.cpp.
#include <zlib.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/importers/kineto.hpp"

namespace meshscope {
namespace {

using json = nlohmann::json;

class IstreamSource final : public KinetoByteSource {
 public:
  explicit IstreamSource(std::istream& in) : in_(in) {}
  Result<int64_t> read(char* data, int64_t size) override {
    in_.read(data, static_cast<std::streamsize>(size));
    const auto n = static_cast<int64_t>(in_.gcount());
    read_ += n;
    if (n == 0 && in_.bad()) return make_error(ErrorCode::io_error, "the stream could not be read");
    return n;
  }
  [[nodiscard]] int64_t input_bytes_read() const override { return read_; }

 private:
  std::istream& in_;
  int64_t read_ = 0;
};

// gzread also reads files that are not gzip-compressed (zlib's "transparent" mode), so one source serves .json and
// .json.gz; `compressed` only changes how positions are worded.
class GzipFileSource final : public KinetoByteSource {
 public:
  GzipFileSource(gzFile file, int64_t file_bytes, bool compressed)
      : file_(file), file_bytes_(file_bytes), compressed_(compressed) {}
  ~GzipFileSource() override { gzclose(file_); }
  GzipFileSource(const GzipFileSource&) = delete;
  GzipFileSource& operator=(const GzipFileSource&) = delete;

  Result<int64_t> read(char* data, int64_t size) override {
    const int n = gzread(file_, data, static_cast<unsigned>(size));
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    // zlib manual (gzread): at the end of the input, Z_BUF_ERROR means the file ended inside a gzip stream.
    if (n < 0 || (code != Z_OK && code != Z_BUF_ERROR))
      return make_error(ErrorCode::io_error, std::string("the gzip data is corrupt (zlib: ") +
                                                 (message != nullptr ? message : "unknown error") + ")");
    if (n == 0 && code == Z_BUF_ERROR)
      return make_error(ErrorCode::io_error, "the gzip stream ends early: the file is truncated");
    return static_cast<int64_t>(n);
  }
  [[nodiscard]] int64_t input_bytes_read() const override { return static_cast<int64_t>(gzoffset(file_)); }
  [[nodiscard]] int64_t input_bytes_total() const override { return file_bytes_; }
  [[nodiscard]] bool compressed() const override { return compressed_; }

 private:
  gzFile file_;
  int64_t file_bytes_;
  bool compressed_;
};

Result<std::vector<KinetoProcessGroup>> process_groups_from_json(const json& list, const std::string& where) {
  if (!list.is_array()) return make_error(ErrorCode::wrong_type, "must be an array", where);
  std::vector<KinetoProcessGroup> groups;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& g = list[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!g.is_object()) return make_error(ErrorCode::wrong_type, "a process group must be an object", at);
    KinetoProcessGroup group;
    for (const auto& [key, field] : {std::pair{"pg_name", &group.name}, std::pair{"pg_desc", &group.description},
                                     std::pair{"backend_config", &group.backend_config}}) {
      if (!g.contains(key)) continue;
      if (!g.at(key).is_string()) return make_error(ErrorCode::wrong_type, "must be a string", at + "." + key);
      *field = g.at(key).get<std::string>();
    }
    if (g.contains("ranks")) {
      const json& ranks = g.at("ranks");
      if (!ranks.is_array()) return make_error(ErrorCode::wrong_type, "must be an array of ranks", at + ".ranks");
      for (const json& r : ranks) {
        if (!r.is_number_integer())
          return make_error(ErrorCode::wrong_type, "must be an array of integer ranks", at + ".ranks");
        group.ranks.push_back(r.get<int64_t>());
      }
    }
    if (g.contains("pg_size")) {
      if (!g.at("pg_size").is_number_integer())
        return make_error(ErrorCode::wrong_type, "must be an integer", at + ".pg_size");
      group.size = g.at("pg_size").get<int64_t>();
    } else {
      group.size = static_cast<int64_t>(group.ranks.size());
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

Result<KinetoTrace> parse_kineto_trace(std::istream& in, const std::string& origin,
                                       const KinetoProgressCallback& progress) {
  IstreamSource source(in);
  return parse_kineto_trace(source, origin, progress);
}

Result<KinetoTrace> load_kineto_trace(const std::string& path, const KinetoProgressCallback& progress) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorCode::io_error, "is a folder, not a trace file", path);
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return make_error(ErrorCode::io_error, "cannot read the file (" + ec.message() + ")", path);
  bool compressed = false;
  {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) return make_error(ErrorCode::io_error, "cannot open the file", path);
    std::array<char, 2> magic{};
    probe.read(magic.data(), 2);
    compressed = probe.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                 static_cast<unsigned char>(magic[1]) == 0x8b;  // RFC 1952: ID1 ID2
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return make_error(ErrorCode::io_error, "cannot open the file", path);
  gzbuffer(file, 1U << 18);
  GzipFileSource source(file, static_cast<int64_t>(size), compressed);
  return parse_kineto_trace(source, path, progress);
}

Result<KinetoDistributedInfo> kineto_distributed_info_from_json(const json& info, const std::string& where) {
  if (!info.is_object()) return make_error(ErrorCode::wrong_type, "distributedInfo must be an object", where);
  KinetoDistributedInfo out;
  for (const auto& [key, field] : {std::pair{"rank", &out.rank}, std::pair{"world_size", &out.world_size}}) {
    if (!info.contains(key)) continue;
    if (!info.at(key).is_number_integer())
      return make_error(ErrorCode::wrong_type, "must be an integer", where + "." + key);
    *field = info.at(key).get<int64_t>();
  }
  for (const auto& [key, field] : {std::pair{"backend", &out.backend}, std::pair{"nccl_version", &out.nccl_version}}) {
    if (!info.contains(key)) continue;
    if (!info.at(key).is_string()) return make_error(ErrorCode::wrong_type, "must be a string", where + "." + key);
    *field = info.at(key).get<std::string>();
  }
  if (info.contains("pg_config")) {
    MS_TRY(groups, process_groups_from_json(info.at("pg_config"), where + ".pg_config"));
    out.process_groups = std::move(groups);
  }
  if (out.rank && out.world_size && (*out.rank < 0 || *out.rank >= *out.world_size))
    return make_error(ErrorCode::invalid_argument,
                      "rank " + std::to_string(*out.rank) + " is outside world_size " + std::to_string(*out.world_size),
                      where + ".rank");
  return out;
}

Result<std::vector<KinetoDevice>> kineto_devices_from_json(const json& list, const std::string& where) {
  if (!list.is_array()) return make_error(ErrorCode::wrong_type, "deviceProperties must be an array", where);
  std::vector<KinetoDevice> devices;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& d = list[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!d.is_object()) return make_error(ErrorCode::wrong_type, "a device must be an object", at);
    KinetoDevice device;
    device.id = static_cast<int64_t>(i);
    for (const auto& [key, field] :
         {std::pair{"id", &device.id}, std::pair{"computeMajor", &device.compute_major},
          std::pair{"computeMinor", &device.compute_minor}, std::pair{"numSms", &device.multiprocessors}}) {
      if (!d.contains(key)) continue;
      if (!d.at(key).is_number_integer())
        return make_error(ErrorCode::wrong_type, "must be an integer", at + "." + key);
      *field = d.at(key).get<int64_t>();
    }
    if (d.contains("name")) {
      if (!d.at("name").is_string()) return make_error(ErrorCode::wrong_type, "must be a string", at + ".name");
      device.name = d.at("name").get<std::string>();
    }
    if (d.contains("totalGlobalMem")) {
      if (!d.at("totalGlobalMem").is_number())
        return make_error(ErrorCode::wrong_type, "must be a number of bytes", at + ".totalGlobalMem");
      device.total_memory_bytes = d.at("totalGlobalMem").get<double>();
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

// Kineto's activity categories (libkineto ActivityType names), its flow categories, and the capitalised ones of the
// 2021 schema. Events of any other category are counted as unknown.
bool is_known_kineto_category(std::string_view cat) {
  static constexpr std::string_view kKnown[] = {"",
                                                "cpu_op",
                                                "user_annotation",
                                                "gpu_user_annotation",
                                                "gpu_memcpy",
                                                "gpu_memset",
                                                "kernel",
                                                "external_correlation",
                                                "cuda_runtime",
                                                "cuda_driver",
                                                "cpu_instant_event",
                                                "python_function",
                                                "overhead",
                                                "mtia_runtime",
                                                "mtia_ccp_events",
                                                "cuda_sync",
                                                "cuda_profiler_range",
                                                "glow_runtime",
                                                "xpu_runtime",
                                                "xpu_driver",
                                                "collective_comm",
                                                "hpu_op",
                                                "privateuse1_runtime",
                                                "privateuse1_driver",
                                                "ac2g",
                                                "fwdbwd",
                                                "async",
                                                "Trace",
                                                "Operator",
                                                "Runtime",
                                                "Kernel",
                                                "Memcpy",
                                                "Memset",
                                                "Python",
                                                "Overhead"};
  return std::find(std::begin(kKnown), std::end(kKnown), cat) != std::end(kKnown);
}

namespace {
// Called for every event: comparisons whose length the compiler knows (a load or two, no call to memcmp).
template <size_t N>
bool is(std::string_view s, const char (&literal)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}
template <size_t N>
bool starts_with(std::string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}
}  // namespace

std::optional<KinetoActivity> kineto_device_activity(std::string_view cat) {
  if (is(cat, "kernel") || is(cat, "Kernel")) return KinetoActivity::kernel;
  if (is(cat, "gpu_memcpy") || is(cat, "Memcpy")) return KinetoActivity::memcpy;
  if (is(cat, "gpu_memset") || is(cat, "Memset")) return KinetoActivity::memset;
  return std::nullopt;
}

// "ProfilerStep#12" → 12 (HTA: r"ProfilerStep\s*#\s*(\d+)").
std::optional<int64_t> kineto_profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep";
  if (!starts_with(name, "ProfilerStep")) return std::nullopt;
  size_t i = kPrefix.size();
  while (i < name.size() && name[i] == ' ') ++i;
  if (i >= name.size() || name[i] != '#') return std::nullopt;
  ++i;
  while (i < name.size() && name[i] == ' ') ++i;
  int64_t number = 0;
  size_t digits = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 18) {
    number = number * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  return digits > 0 ? std::optional<int64_t>(number) : std::nullopt;
}

bool is_kineto_cpu_comm_span(std::string_view name) {
  return starts_with(name, "c10d::") || starts_with(name, "nccl:") || starts_with(name, "gloo:") ||
         is(name, "record_param_comms");
}

}  // namespace meshscope
