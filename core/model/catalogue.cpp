#include "core/model/catalogue.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/model/model_io.hpp"
#include "resources/embedded.hpp"

namespace meshscope {

using nlohmann::json;

namespace {
constexpr std::string_view kModelPrefix = "models/";
constexpr std::string_view kJsonSuffix = ".json";
}  // namespace

std::optional<double> GpuSpec::peak_flops_per_s(DType type) const {
  const auto it = peak_dense_flops_per_s.find(std::string(dtype_name(type)));
  if (it == peak_dense_flops_per_s.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& file : embedded_files()) {
    const std::string_view path = file.path;
    if (path.starts_with(kModelPrefix) && path.ends_with(kJsonSuffix))
      names.emplace_back(path.substr(kModelPrefix.size(), path.size() - kModelPrefix.size() - kJsonSuffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<ModelSpec> model_preset(std::string_view name) {
  const std::string path = std::string(kModelPrefix) + std::string(name) + std::string(kJsonSuffix);
  for (const auto& file : embedded_files()) {
    if (file.path != path) continue;
    MS_TRY(doc, parse_json_text(file.content, "resources/" + path));
    return model_from_json(doc, "resources/" + path);
  }
  std::string known;
  for (const auto& preset : model_preset_names()) known += (known.empty() ? "" : ", ") + preset;
  return make_error(ErrorCode::invalid_argument,
                    "\"" + std::string(name) + "\" is neither a model preset nor a readable file; presets: " + known,
                    "--model");
}

std::vector<SampleCluster> sample_clusters() {
  constexpr std::string_view kPrefix = "../sample_clusters/";
  std::vector<SampleCluster> out;
  for (const auto& file : embedded_files())
    if (file.path.starts_with(kPrefix)) out.push_back({file.path.substr(kPrefix.size()), file.content});
  std::sort(out.begin(), out.end(), [](const SampleCluster& a, const SampleCluster& b) { return a.file < b.file; });
  return out;
}

Result<ModelSpec> resolve_model(const std::string& name_or_path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return load_model_file(name_or_path);
  return model_preset(name_or_path);
}

Result<std::vector<GpuSpec>> gpus_from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object() || doc.value("format", "") != "meshscope-gpu-catalogue")
    return make_error(ErrorCode::invalid_argument, "not a meshscope GPU catalogue (\"format\")", origin);
  if (!doc.contains("gpus") || !doc.at("gpus").is_array())
    return make_error(ErrorCode::missing_field, "\"gpus\" must be an array", origin + ": gpus");
  std::vector<GpuSpec> gpus;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  for (size_t i = 0; i < doc.at("gpus").size(); ++i) {
    const json& g = doc.at("gpus").at(i);
    const std::string where = origin + ": gpus[" + std::to_string(i) + "]";
    try {
      GpuSpec gpu;
      gpu.id = g.at("id").get<std::string>();
      gpu.name = g.at("name").get<std::string>();
      gpu.vendor = g.value("vendor", "");
      gpu.architecture = g.value("architecture", "");
      gpu.memory_bytes = g.at("memory_gib").get<double>() * kGiB;
      gpu.memory_bandwidth_bytes_per_s = g.at("memory_bandwidth_gb_per_s").get<double>() * 1e9;
      for (const auto& [key, value] : g.at("peak_dense_tflops").items())
        gpu.peak_dense_flops_per_s[key] = value.get<double>() * 1e12;
      gpu.nvlink_bytes_per_s = g.value("nvlink_gb_per_s", 0.0) * 1e9;
      gpu.tdp_watts = g.value("tdp_w", 0.0);
      gpu.streaming_multiprocessors = g.value("sms", 0.0);
      gpu.source = g.value("source", "");
      gpu.notes = g.value("notes", "");
      if (g.contains("gemm")) {
        const json& r = g.at("gemm");
        if (r.contains("achievable_tflops"))
          for (const auto& [key, value] : r.at("achievable_tflops").items())
            gpu.gemm.achievable_flops_per_s[key] = value.get<double>() * 1e12;
        gpu.gemm.achievable_source = r.value("achievable_source", "");
        if (r.contains("sustained_tflops"))
          for (const auto& [key, value] : r.at("sustained_tflops").items())
            gpu.gemm.sustained_flops_per_s[key] = value.get<double>() * 1e12;
        gpu.gemm.sustained_share_of_burst = r.value("sustained_share_of_burst", 0.0);
        gpu.gemm.sustained_source = r.value("sustained_source", "");
        gpu.gemm.compute_units = r.value("compute_units", 0.0);
        gpu.gemm.kernel_floor_s = r.value("kernel_floor_us", 0.0) * 1e-6;
        gpu.gemm.k_half_elements = r.value("k_half", 0.0);
        gpu.gemm.tile_128x128 = r.value("tile_128x128", 1.0);
        gpu.gemm.tile_64x64 = r.value("tile_64x64", 1.0);
        gpu.gemm.bandwidth_share = r.value("bandwidth_share", 1.0);
        gpu.gemm.shape_source = r.value("shape_source", "");
        for (const auto* rates : {&gpu.gemm.achievable_flops_per_s, &gpu.gemm.sustained_flops_per_s})
          for (const auto& [key, value] : *rates) {
            const auto peak = gpu.peak_dense_flops_per_s.find(key);
            if (value <= 0 || (peak != gpu.peak_dense_flops_per_s.end() && value > peak->second))
              return make_error(ErrorCode::invalid_argument,
                                "measured " + key + " GEMM rate must be positive and at most the peak",
                                where + ": gemm");
          }
        if (gpu.gemm.sustained_share_of_burst < 0 || gpu.gemm.sustained_share_of_burst > 1 ||
            gpu.gemm.bandwidth_share <= 0 || gpu.gemm.bandwidth_share > 1 || gpu.gemm.tile_128x128 <= 0 ||
            gpu.gemm.tile_64x64 <= 0)
          return make_error(ErrorCode::invalid_argument,
                            "GEMM tile rates, bandwidth and sustained shares must be in (0, 1]", where + ": gemm");
      }
      if (g.contains("attention")) {
        for (const auto& [kernel, a] : g.at("attention").items()) {
          const std::string at = where + ": attention." + kernel;
          if (kernel != "flash2" && kernel != "cudnn" && kernel != "flash3")
            return make_error(ErrorCode::invalid_argument,
                              "unknown attention kernel \"" + kernel + "\"; known: flash2, cudnn, flash3", at);
          AttentionKernelRate rate;
          // "forward_tflops"/"backward_tflops": one number, or one per entry of "sequence".
          auto rates_of = [](const json& v) {
            std::vector<double> values;
            if (v.is_array())
              for (const json& x : v) values.push_back(x.get<double>() * 1e12);
            else
              values.push_back(v.get<double>() * 1e12);
            return values;
          };
          rate.forward_flops_per_s = rates_of(a.at("forward_tflops"));
          rate.backward_flops_per_s = rates_of(a.at("backward_tflops"));
          if (a.contains("sequence"))
            for (const json& x : a.at("sequence")) rate.sequence.push_back(x.get<double>());
          else
            rate.sequence.push_back(8192);
          bool ascending = true;
          for (size_t k = 1; k < rate.sequence.size(); ++k)
            ascending = ascending && rate.sequence[k] > rate.sequence[k - 1];
          if (rate.sequence.empty() || !ascending || rate.sequence.front() <= 0 ||
              rate.forward_flops_per_s.size() != rate.sequence.size() ||
              rate.backward_flops_per_s.size() != rate.sequence.size())
            return make_error(ErrorCode::invalid_argument,
                              "\"sequence\" must ascend from a positive length and give one forward and one backward "
                              "rate per length",
                              at);
          if (a.contains("head_dim_64")) {
            rate.head_dim_64_forward = a.at("head_dim_64").at("forward").get<double>();
            rate.head_dim_64_backward = a.at("head_dim_64").at("backward").get<double>();
          }
          rate.source = a.value("source", "");
          const auto peak = gpu.peak_dense_flops_per_s.find("bf16");
          const double limit = peak != gpu.peak_dense_flops_per_s.end() ? peak->second : 0;
          for (const auto* values : {&rate.forward_flops_per_s, &rate.backward_flops_per_s})
            for (double value : *values)
              if (value <= 0 || (limit > 0 && value > limit))
                return make_error(ErrorCode::invalid_argument,
                                  "measured attention rates must be positive and at most the bf16 peak", at);
          if (rate.head_dim_64_forward <= 0 || rate.head_dim_64_forward > 2 || rate.head_dim_64_backward <= 0 ||
              rate.head_dim_64_backward > 2)
            return make_error(ErrorCode::invalid_argument, "head_dim_64 shares must be in (0, 2]", at + ".head_dim_64");
          gpu.attention[kernel] = rate;
        }
      }
      if (gpu.memory_bytes <= 0 || gpu.memory_bandwidth_bytes_per_s <= 0)
        return make_error(ErrorCode::invalid_argument, "memory and bandwidth must be positive", where);
      if (gpu.streaming_multiprocessors < 0)
        return make_error(ErrorCode::invalid_argument, "sms must not be negative", where + ": sms");
      gpus.push_back(std::move(gpu));
    } catch (const json::exception& e) {
      return make_error(ErrorCode::wrong_type, std::string("bad GPU entry: ") + e.what(), where);
    }
  }
  return gpus;
}

const std::vector<GpuSpec>& gpu_catalogue() {
  static const std::vector<GpuSpec> catalogue = [] {
    for (const auto& file : embedded_files()) {
      if (file.path != "gpus.json") continue;
      auto doc = parse_json_text(file.content, "resources/gpus.json");
      if (!doc) break;
      auto gpus = gpus_from_json(*doc, "resources/gpus.json");
      if (gpus) return *gpus;
    }
    return std::vector<GpuSpec>{};  // a broken embedded catalogue fails the catalogue tests
  }();
  return catalogue;
}

Result<GpuSpec> find_gpu(std::string_view id) {
  for (const auto& gpu : gpu_catalogue())
    if (gpu.id == id) return gpu;
  std::string known;
  for (const auto& gpu : gpu_catalogue()) known += (known.empty() ? "" : ", ") + gpu.id;
  return make_error(ErrorCode::invalid_argument, "unknown GPU \"" + std::string(id) + "\"; known: " + known, "--gpu");
}

std::string_view default_project_text() {
  for (const auto& file : embedded_files())
    if (file.path == "default_project.json") return file.content;
  return {};
}

}  // namespace meshscope
