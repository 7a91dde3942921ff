// Training log importer (training_log.hpp): the record readers of each framework, the argument dump, and the
// statistics after warm-up. Line cleaning is in training_log_lines.cpp.
#include "core/importers/training_log.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <set>
#include <utility>

#include "core/importers/training_log_lines.hpp"
#include "core/importers/training_log_setup.hpp"

namespace meshscope {
namespace {

using training_log_detail::argument_line;
using training_log_detail::as_count;
using training_log_detail::bool_arg;
using training_log_detail::clean_line;
using training_log_detail::CleanLine;
using training_log_detail::int_at;
using training_log_detail::is_digit;
using training_log_detail::number_at;
using training_log_detail::read_megatron_arguments;
using training_log_detail::read_memory_reports;
using training_log_detail::read_mesh;
using training_log_detail::read_torchtitan_model;
using training_log_detail::trim;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The number after `key` in line: nullopt when the key is absent; an Error when it is there without a number.
Result<std::optional<double>> field(std::string_view line, std::string_view key, const std::string& where) {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return std::optional<double>{};
  const auto value = number_at(line.substr(at + key.size()));
  if (!value) return make_error(ErrorCode::parse_error, "expected a number after \"" + std::string(key) + "\"", where);
  return value;
}

struct Record {
  LogIteration it;
  std::optional<int64_t> rank;
  std::optional<double> timestamp;
};

// A record of the report line `line`, with the rank and time its launcher prefix gave.
Record record_at(const CleanLine& c, int64_t line) {
  Record r;
  r.rank = c.rank;
  r.timestamp = c.timestamp;
  r.it.line = line;
  return r;
}

struct Reader {
  std::string origin;
  std::vector<Record> megatron, torchtitan, deepspeed, accelerate, nemo;
  std::vector<LogMemory> memory;
  std::map<std::string, std::string> arguments;
  std::map<std::string, std::string> ds_config;
  std::vector<TrainingLogWarning> warnings;
  bool deepspeed_seen = false, torchtitan_seen = false;
  std::optional<int64_t> world_size_line, accelerate_processes, zero_stage_line, tt_local_batch, tt_global_batch,
      tt_seq;
  std::optional<std::string> mixed_precision, tt_recompute;
  bool tt_parallelized = false, tt_compiled = false;  // torchtitan's parallelize lines, its compile line
  std::optional<int64_t> padded_vocab;
  std::map<std::string, int64_t> mesh;
  LogModelDims tt_model;
  std::string memory_label;
  int64_t arguments_dumps = 0;
  bool arguments_open = false;
  int64_t arguments_line = 0;

  [[nodiscard]] std::string where(int64_t line) const { return origin + ":" + std::to_string(line); }
  [[nodiscard]] size_t record_count() const {
    return megatron.size() + torchtitan.size() + deepspeed.size() + accelerate.size() + nemo.size();
  }

  Result<bool> megatron_line(const CleanLine& c, int64_t line) {
    std::string_view s = c.text;
    const size_t at = s.find("iteration");
    if (at == std::string_view::npos || s.find('|') == std::string_view::npos) return false;
    // " iteration   N/   M |": a number, then '/'.
    size_t i = at + 9;
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t digits = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == digits) return false;
    size_t j = i;
    while (j < s.size() && s[j] == ' ') ++j;
    if (j >= s.size() || s[j] != '/') return false;
    if (s.find("elapsed time per iteration") == std::string_view::npos) return false;
    Record r = record_at(c, line);
    r.it.iteration = int_at(s, digits, std::min<size_t>(i - digits, 15));
    const std::string w = where(line);
    MS_TRY(elapsed, field(s, "elapsed time per iteration (ms):", w));
    if (elapsed) r.it.step_time_s = *elapsed / 1e3;
    MS_TRY(tflops, field(s, "throughput per GPU (TFLOP/s/GPU):", w));
    if (!tflops) {
      MS_TRY(ds_tflops, field(s, "| TFLOPs:", w));
      tflops = ds_tflops;
    }
    r.it.tflops_per_gpu = tflops;
    MS_TRY(samples, field(s, "samples per second:", w));
    r.it.samples_per_s = samples;
    MS_TRY(tgs, field(s, "tokens per gpu per second (tgs):", w));
    r.it.tokens_per_s_per_gpu = tgs;
    MS_TRY(loss, field(s, "lm loss:", w));
    if (!loss) {
      MS_TRY(loss2, field(s, "lm-loss:", w));
      loss = loss2;
    }
    r.it.loss = loss;
    MS_TRY(gbs, field(s, "global batch size:", w));
    r.it.global_batch = as_count(gbs);
    megatron.push_back(r);
    return true;
  }

  Result<bool> torchtitan_line(const CleanLine& c, int64_t line) {
    std::string_view s = c.text;
    const size_t at = s.find("step:");
    if (at == std::string_view::npos || s.find("tps:") == std::string_view::npos) return false;
    const auto step = as_count(number_at(s.substr(at + 5)));
    if (!step) return make_error(ErrorCode::parse_error, "expected a step number after \"step:\"", where(line));
    Record r = record_at(c, line);
    r.it.iteration = *step;
    const std::string w = where(line);
    MS_TRY(loss, field(s, "loss:", w));
    r.it.loss = loss;
    MS_TRY(memory_gib, field(s, "memory:", w));
    if (memory_gib) r.it.max_reserved_bytes = *memory_gib * kGiB;
    MS_TRY(tps, field(s, "tps:", w));
    r.it.tokens_per_s_per_gpu = tps;
    MS_TRY(tflops, field(s, "tflops:", w));
    r.it.tflops_per_gpu = tflops;
    MS_TRY(mfu, field(s, "mfu:", w));
    if (mfu) r.it.mfu = *mfu / 100;
    MS_TRY(elapsed, field(s, "elapsed_time_per_step:", w));
    r.it.step_time_s = elapsed;
    torchtitan.push_back(r);
    torchtitan_seen = true;
    return true;
  }

  Result<bool> deepspeed_line(const CleanLine& c, int64_t line) {
    std::string_view s = c.text;
    const std::string w = where(line);
    if (const size_t at = s.find("global_step=");
        at != std::string_view::npos && s.find("CurrSamplesPerSec=") != std::string_view::npos) {
      Record r = record_at(c, line);
      const auto step = as_count(number_at(s.substr(at + 12)));
      if (!step) return make_error(ErrorCode::parse_error, "expected a step number after \"global_step=\"", w);
      r.it.iteration = *step;
      MS_TRY(samples, field(s, "CurrSamplesPerSec=", w));
      r.it.samples_per_s = samples;
      MS_TRY(max_ma, field(s, "MaxMemAllocated=", w));
      if (max_ma) r.it.max_allocated_bytes = *max_ma * kGiB;
      deepspeed.push_back(r);
      return true;
    }
    // DeepSpeed's pipeline engine: "steps: 10 loss: 7.1 iter time (s): 12.3 samples/sec: 83.1".
    if (const size_t at = s.find("steps: ");
        at != std::string_view::npos && s.find("iter time (s):") != std::string_view::npos) {
      Record r = record_at(c, line);
      const auto step = as_count(number_at(s.substr(at + 7)));
      if (!step) return make_error(ErrorCode::parse_error, "expected a step number after \"steps:\"", w);
      r.it.iteration = *step;
      MS_TRY(time, field(s, "iter time (s):", w));
      r.it.step_time_s = time;
      MS_TRY(samples, field(s, "samples/sec:", w));
      r.it.samples_per_s = samples;
      MS_TRY(loss, field(s, "loss:", w));
      r.it.loss = loss;
      deepspeed.push_back(r);
      return true;
    }
    // accelerate / HF loops: "Step: 9483, LR: 3.5e-08, Loss: 310.4".
    if (const size_t at = s.find("Step: ");
        at != std::string_view::npos && s.find("Loss: ", at) != std::string_view::npos) {
      const auto step = as_count(number_at(s.substr(at + 6)));
      if (!step) return make_error(ErrorCode::parse_error, "expected a step number after \"Step:\"", w);
      Record r = record_at(c, line);
      r.it.iteration = *step;
      MS_TRY(loss, field(s.substr(at), "Loss: ", w));
      r.it.loss = loss;
      accelerate.push_back(r);
      return true;
    }
    return false;
  }

  // NeMo. NeMo 2's ProgressPrinter (nemo/lightning/pytorch/callbacks/progress_printer.py, what the performance
  // scripts and NeMo-Run recipes print): "Training epoch E, iteration N/M | key: value | ...", each metric averaged
  // over the log interval except global_step. NeMo 1's tqdm progress bar (PyTorch Lightning, NeMo-Launcher): "Epoch
  // E: : P%|...| n/M [t<r, v_num=x, reduced_train_loss=L, global_step=S, consumed_samples=C, train_step_timing in
  // s=T]", redrawn in place (one physical line holds many drawings separated by carriage returns; the caller splits
  // them). train_step_timing is NeMo's TimingCallback (nemo/utils/exp_manager.py): the wall time of each global
  // batch on the logging rank.
  Result<bool> nemo_line(const CleanLine& c, int64_t line) {
    std::string_view s = c.text;
    const std::string w = where(line);
    const size_t epoch = s.find("Training epoch ");
    const size_t iteration = s.find(", iteration ");
    if (epoch != std::string_view::npos && iteration != std::string_view::npos && iteration > epoch &&
        s.find(" | ", iteration) != std::string_view::npos) {
      Record r = record_at(c, line);
      MS_TRY(step, field(s, "global_step:", w));
      const auto printed = as_count(number_at(s.substr(iteration + 12)));
      const auto number = step ? as_count(step) : printed;
      if (!number) return make_error(ErrorCode::parse_error, "expected an iteration number after \"iteration\"", w);
      r.it.iteration = *number;
      MS_TRY(time, field(s, "train_step_timing in s:", w));
      r.it.step_time_s = time;
      MS_TRY(loss, field(s, "reduced_train_loss:", w));
      r.it.loss = loss;
      MS_TRY(gbs, field(s, "global_batch_size:", w));
      r.it.global_batch = as_count(gbs);
      MS_TRY(tflops, field(s, "TFLOPS_per_GPU:", w));
      r.it.tflops_per_gpu = tflops;
      MS_TRY(tokens, field(s, "tokens_per_sec_per_gpu:", w));
      r.it.tokens_per_s_per_gpu = tokens;
      // torch.cuda.max_memory_reserved / max_memory_allocated in bytes (the keys name the calls), or NeMo's
      // MemoryMonitor (nemo/lightning/pytorch/callbacks/memory_callback.py): memory/peak_reserved_mem and
      // memory/peak_allocated_mem, in units of 1e9 bytes.
      MS_TRY(reserved, field(s, "max_memory_reserved:", w));
      MS_TRY(allocated, field(s, "max_memory_allocated:", w));
      MS_TRY(reserved_gb, field(s, "memory/peak_reserved_mem:", w));
      MS_TRY(allocated_gb, field(s, "memory/peak_allocated_mem:", w));
      if (!reserved && reserved_gb) reserved = *reserved_gb * 1e9;
      if (!allocated && allocated_gb) allocated = *allocated_gb * 1e9;
      r.it.max_reserved_bytes = reserved;
      r.it.max_allocated_bytes = allocated;
      nemo.push_back(r);
      return true;
    }
    const size_t timing = s.find("train_step_timing in s=");
    if (timing == std::string_view::npos) return false;
    const size_t step_at = s.find("global_step=");
    if (step_at == std::string_view::npos) return false;
    const auto step = as_count(number_at(s.substr(step_at + 12)));
    if (!step) return make_error(ErrorCode::parse_error, "expected a step number after \"global_step=\"", w);
    Record r = record_at(c, line);
    r.it.iteration = *step;
    MS_TRY(time, field(s, "train_step_timing in s=", w));
    r.it.step_time_s = time;
    MS_TRY(loss, field(s, "reduced_train_loss=", w));
    r.it.loss = loss;
    // A progress bar redraws in place: the last drawing of a step is the one the terminal shows.
    if (!nemo.empty() && nemo.back().it.iteration == r.it.iteration && nemo.back().rank == r.rank)
      nemo.back() = r;
    else
      nemo.push_back(r);
    return true;
  }

  void other_line(const CleanLine& c, int64_t line) {
    const std::string_view s = c.text;
    if (s.find("memory (MB)") != std::string_view::npos) read_memory_reports(s, line, memory);
    if (const size_t at = s.find("Effective Tera Flops per GPU:"); at != std::string_view::npos)
      if (!megatron.empty() && !megatron.back().it.tflops_per_gpu)
        megatron.back().it.tflops_per_gpu = number_at(s.substr(at + 29));
    if (s.find("see_memory_usage]") != std::string_view::npos) {
      const size_t ma = s.find("MA ");
      const size_t max_ma = s.find("Max_MA ");
      if (ma != std::string_view::npos && max_ma != std::string_view::npos) {
        LogMemory m;
        m.line = line;
        m.label = memory_label;
        const auto gib = [&](size_t p, size_t len) -> std::optional<double> {
          const auto v = number_at(s.substr(p + len));
          return v ? std::optional<double>(*v * kGiB) : std::nullopt;
        };
        m.allocated_bytes = gib(ma, 3);
        m.max_allocated_bytes = gib(max_ma, 7);
        if (const size_t ca = s.find("CA ", max_ma + 7); ca != std::string_view::npos) m.reserved_bytes = gib(ca, 3);
        if (const size_t max_ca = s.find("Max_CA "); max_ca != std::string_view::npos)
          m.max_reserved_bytes = gib(max_ca, 7);
        memory.push_back(m);
      } else if (s.find("CPU Virtual Memory") == std::string_view::npos) {
        memory_label = std::string(trim(s.substr(s.find("see_memory_usage]") + 17)));
      }
      deepspeed_seen = true;
    }
    if (const size_t at = s.find("print]");
        at != std::string_view::npos && s.find("[config.py:") != std::string_view::npos) {
      deepspeed_seen = true;
      if (auto kv = argument_line(s.substr(at + 6))) ds_config.emplace(kv->first, kv->second);
    }
    if (s.find("DeepSpeed") != std::string_view::npos || s.find("deepspeed") != std::string_view::npos ||
        s.find("ds_config") != std::string_view::npos)
      deepspeed_seen = true;
    if (s.find("torchtitan") != std::string_view::npos) torchtitan_seen = true;
    if (const size_t at = s.find("using world size:"); at != std::string_view::npos && !world_size_line)
      world_size_line = as_count(number_at(s.substr(at + 17)));
    if (s.substr(0, 14) == "Num processes:" && !accelerate_processes)
      accelerate_processes = as_count(number_at(s.substr(14)));
    if (const size_t at = s.find("Mixed precision type:"); at != std::string_view::npos && !mixed_precision)
      mixed_precision = std::string(trim(s.substr(at + 21)));
    if (const size_t at = s.find("'zero_optimization': {'stage':"); at != std::string_view::npos && !zero_stage_line)
      zero_stage_line = as_count(number_at(s.substr(at + 30)));
    if (const size_t at = s.find("ZeRO stage "); at != std::string_view::npos && !zero_stage_line)
      zero_stage_line = as_count(number_at(s.substr(at + 11)));
    if (s.find("device mesh with") != std::string_view::npos && mesh.empty()) mesh = read_mesh(s);
    if (const size_t at = s.find("Training starts at step"); at != std::string_view::npos) {
      const auto after = [&](std::string_view key) -> std::optional<int64_t> {
        const size_t p = s.find(key, at);
        return p == std::string_view::npos ? std::nullopt : as_count(number_at(s.substr(p + key.size())));
      };
      tt_local_batch = after("local batch size ");
      tt_global_batch = after("global batch size ");
      tt_seq = after("sequence length ");
      torchtitan_seen = true;
    }
    if (s.find("ModelArgs(") != std::string_view::npos) read_torchtitan_model(s, tt_model);
    if (const size_t at = s.find("padded vocab (size:"); at != std::string_view::npos && !padded_vocab)
      if (const size_t p = s.find("new size:", at); p != std::string_view::npos)
        padded_vocab = as_count(number_at(s.substr(p + 9)));
    // torchtitan's "selective" is its op-level SAC by default (selective_ac_option "op" in the presets): meshscope's
    // recompute=op.
    if (s.find("Applied selective activation checkpointing") != std::string_view::npos) tt_recompute = "op";
    if (s.find("Applied full activation checkpointing") != std::string_view::npos) tt_recompute = "full";
    if (s.find("Compiling each TransformerBlock with torch.compile") != std::string_view::npos) tt_compiled = true;
    if (s.find("Applied FSDP to the model") != std::string_view::npos ||
        s.find("Applied DDP to the model") != std::string_view::npos ||
        s.find("Applied HSDP to the model") != std::string_view::npos)
      tt_parallelized = true;
  }

  // The launcher prefix of the physical line being read (its first drawing's), for the drawings after a carriage
  // return, which carry none of their own.
  std::optional<double> line_timestamp;
  std::optional<int64_t> line_rank;

  Result<void> line(std::string_view raw, int64_t number) {
    CleanLine c = clean_line(raw);
    if (!c.timestamp) c.timestamp = line_timestamp;
    if (!c.rank) c.rank = line_rank;
    line_timestamp = c.timestamp;
    line_rank = c.rank;
    const std::string_view s = trim(c.text);
    if (arguments_open) {
      if (s.find("end of arguments") != std::string_view::npos) {
        arguments_open = false;
        return {};
      }
      if (auto kv = argument_line(s); kv && arguments_dumps == 1) arguments.emplace(kv->first, kv->second);
      return {};
    }
    if (s.size() > 3 && s.substr(0, 3) == "---" && s.find(" arguments ") != std::string_view::npos &&
        s.find("end of") == std::string_view::npos) {
      arguments_open = true;
      arguments_line = number;
      ++arguments_dumps;
      return {};
    }
    MS_TRY(megatron_read, megatron_line(c, number));
    if (megatron_read) return {};
    MS_TRY(torchtitan_read, torchtitan_line(c, number));
    if (torchtitan_read) return {};
    MS_TRY(deepspeed_read, deepspeed_line(c, number));
    if (deepspeed_read) return {};
    MS_TRY(nemo_read, nemo_line(c, number));
    if (nemo_read) return {};
    other_line(c, number);
    return {};
  }
};

// The records of one rank, one per iteration number.
std::vector<LogIteration> one_rank(const std::vector<Record>& records, std::vector<TrainingLogWarning>& warnings) {
  std::set<int64_t> ranks;
  for (const Record& r : records)
    if (r.rank) ranks.insert(*r.rank);
  std::optional<int64_t> chosen;
  if (ranks.size() > 1) {
    chosen = *ranks.begin();
    warnings.push_back({0, "iteration lines of " + std::to_string(ranks.size()) + " ranks are interleaved; rank " +
                               std::to_string(*chosen) + "'s are read"});
  }
  std::vector<LogIteration> out;
  std::map<int64_t, size_t> seen;
  int64_t duplicates = 0;
  for (const Record& r : records) {
    if (chosen && r.rank && *r.rank != *chosen) continue;
    const auto [it, fresh] = seen.emplace(r.it.iteration, out.size());
    if (!fresh) {
      const LogIteration& first = out[it->second];
      if (first.step_time_s != r.it.step_time_s || first.loss != r.it.loss)
        warnings.push_back({r.it.line, "iteration " + std::to_string(r.it.iteration) +
                                           " is printed again with other values; the first (line " +
                                           std::to_string(first.line) + ") is kept"});
      ++duplicates;
      continue;
    }
    out.push_back(r.it);
  }
  if (duplicates > 0)
    warnings.push_back(
        {0, std::to_string(duplicates) + " repeated iteration line(s) (another rank's copy of the log) were left out"});
  return out;
}

void finish_layout(Reader& r, MeasuredRun& run) {
  LogLayout& l = run.layout;
  if (!r.arguments.empty()) read_megatron_arguments(r.arguments, run.model, l);
  if (r.padded_vocab) run.model.vocab_size = r.padded_vocab;
  if (!l.world_size) l.world_size = r.world_size_line;
  if (run.framework == TrainingFramework::torchtitan) {
    run.model = r.tt_model;
    if (r.tt_seq) run.model.seq_length = r.tt_seq;
    const auto axis = [&](const char* name) -> std::optional<int64_t> {
      const auto it = r.mesh.find(name);
      return it == r.mesh.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    int64_t world = 1;
    for (const auto& [name, size] : r.mesh) world *= size;
    if (!r.mesh.empty()) l.world_size = world;
    l.tp = axis("tp").value_or(1);
    l.pp = axis("pp").value_or(1);
    l.cp = axis("cp").value_or(1);
    if (!r.mesh.empty()) l.dp = axis("dp_shard").value_or(1) * axis("dp_replicate").value_or(1);
    l.micro_batch = r.tt_local_batch;
    l.global_batch = r.tt_global_batch;
    l.recompute = r.tt_recompute ? r.tt_recompute : std::optional<std::string>("none");
    // Its parallelize step logs the compile of its blocks where training.compile is on; a log that shows the step
    // without it ran eager PyTorch's kernels (kernels=eager).
    if (r.tt_compiled)
      l.kernels = "fused";
    else if (r.tt_parallelized)
      l.kernels = "eager";
    if (axis("dp_shard").value_or(1) > 1) l.zero_stage = 3;  // FSDP2 shards parameters, gradients and states
  }
  if (run.framework == TrainingFramework::deepspeed) {
    if (r.accelerate_processes) {
      l.world_size = r.accelerate_processes;
      l.dp = r.accelerate_processes;
    }
    if (r.mixed_precision) l.precision = *r.mixed_precision;
  }
  if (!l.zero_stage || run.framework == TrainingFramework::deepspeed) {
    if (const auto it = r.ds_config.find("zero_optimization_stage"); it != r.ds_config.end())
      l.zero_stage = as_count(number_at(it->second));
    else if (r.zero_stage_line && run.framework == TrainingFramework::deepspeed)
      l.zero_stage = r.zero_stage_line;
  }
  if (!l.global_batch)
    if (const auto it = r.ds_config.find("train_batch_size"); it != r.ds_config.end())
      l.global_batch = as_count(number_at(it->second));
  if (!l.micro_batch)
    if (const auto it = r.ds_config.find("train_micro_batch_size_per_gpu"); it != r.ds_config.end())
      l.micro_batch = as_count(number_at(it->second));
}

// Reads the log line by line into the reader; a line cut short at the end of a truncated file is left
// out with a warning.
Result<void> read_lines(Reader& reader, std::string_view text) {
  const bool ends_with_newline = text.back() == '\n';
  int64_t number = 0;
  size_t start = 0;
  size_t last_records = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string_view raw =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++number;
    const bool last = end == std::string_view::npos || end + 1 >= text.size();
    last_records = reader.record_count();
    // A progress bar (tqdm) redraws with carriage returns: each drawing is read as a line of its own.
    Result<void> read;
    reader.line_timestamp.reset();
    reader.line_rank.reset();
    for (size_t from = 0; from <= raw.size() && read;) {
      const size_t cr = raw.find('\r', from);
      const std::string_view drawing =
          raw.substr(from, cr == std::string_view::npos ? std::string_view::npos : cr - from);
      if (!drawing.empty()) read = reader.line(drawing, number);
      if (cr == std::string_view::npos) break;
      from = cr + 1;
    }
    if (!read) {
      // A report line cut short at the end of a truncated file is left out, not an error.
      if (!(last && !ends_with_newline)) return tl::unexpected(read.error());
      reader.warnings.push_back({number, "the last line is cut off and cannot be read; it was left out"});
    } else if (last && !ends_with_newline) {
      if (reader.record_count() > last_records) {
        for (auto* records :
             {&reader.megatron, &reader.torchtitan, &reader.deepspeed, &reader.accelerate, &reader.nemo})
          if (!records->empty() && records->back().it.line == number) records->pop_back();
        reader.warnings.push_back(
            {number, "the file ends inside this iteration line (no newline): its record was left out"});
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (reader.arguments_open)
    reader.warnings.push_back({reader.arguments_line, "the argument dump has no end line (truncated log?)"});
  return {};
}

// The framework the log is from, by the iteration lines it has (Megatron's first), and those lines.
Result<std::vector<Record>*> choose_records(Reader& reader, MeasuredRun& run) {
  if (!reader.megatron.empty()) {
    const bool deepspeed = bool_arg(reader.arguments, "deepspeed").value_or(false) || !reader.ds_config.empty();
    run.framework = deepspeed ? TrainingFramework::megatron_deepspeed : TrainingFramework::megatron;
    run.step_time_source = "elapsed time per iteration (ms)";
    return &reader.megatron;
  }
  if (!reader.torchtitan.empty()) {
    run.framework = TrainingFramework::torchtitan;
    return &reader.torchtitan;
  }
  if (!reader.nemo.empty()) {
    run.framework = TrainingFramework::nemo;
    run.step_time_source = "train_step_timing in s (NeMo's TimingCallback)";
    return &reader.nemo;
  }
  if (!reader.deepspeed.empty()) {
    run.framework = TrainingFramework::deepspeed;
    return &reader.deepspeed;
  }
  if (!reader.accelerate.empty()) {
    run.framework = TrainingFramework::deepspeed;
    if (!reader.deepspeed_seen)
      reader.warnings.push_back({0, "\"Step: N, LR: x, Loss: y\" lines without DeepSpeed markers; read as DeepSpeed"});
    return &reader.accelerate;
  }
  return make_error(ErrorCode::parse_error,
                    "no training iteration lines found; expected Megatron's \" iteration N/ M | ... | elapsed time "
                    "per iteration (ms): X |\", torchtitan's \"step: N  loss: x  memory: xGiB(y%)  tps: T\", "
                    "DeepSpeed's \"global_step=N, ... CurrSamplesPerSec=X\", \"Step: N, LR: x, Loss: y\", NeMo's "
                    "\"Training epoch E, iteration N/M | ... | train_step_timing in s: T\" or its progress bar's "
                    "\"global_step=N, ..., train_step_timing in s=T\"",
                    reader.origin);
}

// The step times and tokens per second the log does not print, from what it does: the accelerate
// records' timestamps, torchtitan's tps, DeepSpeed's samples per second, the batch and the world size.
void derive_rates(Reader& reader, const std::vector<Record>& records, MeasuredRun& run,
                  std::vector<LogIteration>& iterations) {
  // Timestamps of the accelerate records (before the rank choice drops any).
  if (&records == &reader.accelerate) {
    std::map<int64_t, double> stamp;
    for (const Record& r : records)
      if (r.timestamp) stamp.emplace(r.it.iteration, *r.timestamp);
    for (LogIteration& it : iterations) {
      const auto now = stamp.find(it.iteration);
      const auto before = stamp.find(it.iteration - 1);
      if (now != stamp.end() && before != stamp.end() && now->second > before->second)
        it.step_time_s = now->second - before->second;
    }
    run.step_time_source = "timestamps of consecutive \"Step:\" lines";
    if (stamp.empty())
      reader.warnings.push_back({0, "the \"Step:\" lines carry no timestamps: no step time can be measured"});
  }
  const LogLayout& l = run.layout;
  if (run.framework == TrainingFramework::torchtitan) {
    const bool printed = std::any_of(iterations.begin(), iterations.end(),
                                     [](const LogIteration& it) { return it.step_time_s.has_value(); });
    run.step_time_source = printed ? "elapsed_time_per_step" : "local_batch * seq_len / (tps * tp*pp*cp)";
    run.tokens_per_s_source = "printed (tps)";
    const int64_t non_dp = l.tp.value_or(1) * l.pp.value_or(1) * l.cp.value_or(1);
    if (!printed && reader.tt_local_batch && reader.tt_seq)
      for (LogIteration& it : iterations)
        if (it.tokens_per_s_per_gpu && *it.tokens_per_s_per_gpu > 0)
          it.step_time_s = static_cast<double>(*reader.tt_local_batch * *reader.tt_seq) /
                           (*it.tokens_per_s_per_gpu * static_cast<double>(non_dp));
    if (!printed && !(reader.tt_local_batch && reader.tt_seq))
      reader.warnings.push_back({0, "no \"Training starts at step ...\" line: the step time cannot be derived"});
  }
  if (run.framework == TrainingFramework::deepspeed && &records == &reader.deepspeed) {
    const auto batch = l.global_batch;
    run.step_time_source = "iter time (s), or train_batch_size / CurrSamplesPerSec";
    for (LogIteration& it : iterations)
      if (!it.step_time_s && batch && it.samples_per_s && *it.samples_per_s > 0)
        it.step_time_s = static_cast<double>(*batch) / *it.samples_per_s;
  }
  // Tokens per second per GPU where not printed: global batch × sequence length / (step time × world size).
  if (run.tokens_per_s_source.empty()) {
    const bool printed = std::any_of(iterations.begin(), iterations.end(),
                                     [](const LogIteration& it) { return it.tokens_per_s_per_gpu.has_value(); });
    if (printed) {
      run.tokens_per_s_source = "printed (tokens per gpu per second)";
    } else if (run.model.seq_length && l.world_size && *l.world_size > 0) {
      run.tokens_per_s_source = "global_batch * seq_length / (step_time * world_size)";
      for (LogIteration& it : iterations) {
        const auto gbs = it.global_batch ? it.global_batch : l.global_batch;
        if (gbs && it.step_time_s && *it.step_time_s > 0)
          it.tokens_per_s_per_gpu = static_cast<double>(*gbs * *run.model.seq_length) /
                                    (*it.step_time_s * static_cast<double>(*l.world_size));
      }
    }
  }
}

// The median and spread of the step time, TFLOP/s, tokens and samples per second after warm-up: the
// first record with a step time is left out (header comment).
void summarise_steps(const std::vector<LogIteration>& iterations, MeasuredRun& run,
                     std::vector<TrainingLogWarning>& warnings) {
  std::set<int64_t> excluded;
  const auto timed = static_cast<int64_t>(std::count_if(
      iterations.begin(), iterations.end(), [](const LogIteration& it) { return it.step_time_s.has_value(); }));
  if (timed >= 2) {
    for (const LogIteration& it : iterations)
      if (it.step_time_s) {
        excluded.insert(it.iteration);
        break;
      }
  } else if (timed == 1) {
    warnings.push_back({0, "only one timed iteration: the step time includes warm-up"});
  } else {
    warnings.push_back({0, "no iteration gives a step time"});
  }
  run.excluded_iterations.assign(excluded.begin(), excluded.end());
  std::vector<double> step, tflops, tokens, samples;
  for (const LogIteration& it : iterations) {
    if (excluded.count(it.iteration)) continue;
    if (it.step_time_s) step.push_back(*it.step_time_s);
    if (it.tflops_per_gpu) tflops.push_back(*it.tflops_per_gpu);
    if (it.tokens_per_s_per_gpu) tokens.push_back(*it.tokens_per_s_per_gpu);
    if (it.samples_per_s) samples.push_back(*it.samples_per_s);
  }
  run.step_time_s = spread_stats(step);
  run.tflops_per_gpu = spread_stats(tflops);
  run.tokens_per_s_per_gpu = spread_stats(tokens);
  run.samples_per_s = spread_stats(samples);
}

// Peak memory: the largest in-training figure (memory reports after an iteration; torchtitan's and DeepSpeed's
// per-step figures). see_memory_usage's prints come before training and are not a peak of it.
void peak_memory(const std::vector<LogIteration>& iterations, MeasuredRun& run,
                 std::vector<TrainingLogWarning>& warnings) {
  for (const LogMemory& m : run.memory) {
    if (!m.after_iterations) continue;
    if (m.max_allocated_bytes && (!run.peak_memory_bytes || *m.max_allocated_bytes > *run.peak_memory_bytes)) {
      run.peak_memory_bytes = m.max_allocated_bytes;
      run.peak_memory_quantity = "max allocated";
    }
    if (m.max_reserved_bytes && (!run.max_reserved_bytes || *m.max_reserved_bytes > *run.max_reserved_bytes))
      run.max_reserved_bytes = m.max_reserved_bytes;
  }
  for (const LogIteration& it : iterations) {
    if (it.max_allocated_bytes && (!run.peak_memory_bytes || *it.max_allocated_bytes > *run.peak_memory_bytes)) {
      run.peak_memory_bytes = it.max_allocated_bytes;
      run.peak_memory_quantity = "max allocated";
    }
    if (it.max_reserved_bytes && (!run.max_reserved_bytes || *it.max_reserved_bytes > *run.max_reserved_bytes))
      run.max_reserved_bytes = it.max_reserved_bytes;
  }
  if (!run.peak_memory_bytes && run.max_reserved_bytes) {
    run.peak_memory_bytes = run.max_reserved_bytes;
    run.peak_memory_quantity = "max reserved";
  }
  if (!run.peak_memory_bytes && !run.memory.empty())
    warnings.push_back({0, "memory is printed only before training (see_memory_usage): no peak is reported"});
}

}  // namespace

const char* training_framework_name(TrainingFramework framework) {
  switch (framework) {
    case TrainingFramework::megatron:
      return "megatron";
    case TrainingFramework::megatron_deepspeed:
      return "megatron-deepspeed";
    case TrainingFramework::deepspeed:
      return "deepspeed";
    case TrainingFramework::torchtitan:
      return "torchtitan";
    case TrainingFramework::nemo:
      return "nemo";
  }
  return "megatron";
}

std::optional<SpreadStats> spread_stats(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  SpreadStats s;
  s.count = static_cast<int64_t>(values.size());
  const size_t n = values.size();
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.min = values.front();
  s.max = values.back();
  s.relative_spread = s.median != 0 ? (s.max - s.min) / s.median : 0;
  return s;
}

std::string LogLayout::layout_keys() const {
  std::string out;
  const auto add = [&](const char* key, const std::string& value) {
    out += (out.empty() ? "" : ",") + std::string(key) + "=" + value;
  };
  if (tp) add("tp", std::to_string(*tp));
  if (pp) add("pp", std::to_string(*pp));
  if (dp) add("dp", std::to_string(*dp));
  if (cp && *cp > 1) add("cp", std::to_string(*cp));
  if (ep && *ep > 1) add("ep", std::to_string(*ep));
  if (vpp && *vpp > 1) add("vpp", std::to_string(*vpp));
  if (sequence_parallel) add("sp", *sequence_parallel ? "true" : "false");
  if (micro_batch) add("micro_batch", std::to_string(*micro_batch));
  return out;
}

std::string LogLayout::train_keys() const {
  std::string out;
  const auto add = [&](const char* key, const std::string& value) {
    out += (out.empty() ? "" : ",") + std::string(key) + "=" + value;
  };
  if (global_batch) add("global_batch", std::to_string(*global_batch));
  if (precision && (*precision == "bf16" || *precision == "fp16")) add("precision", *precision);
  if (zero_stage) add("zero", std::to_string(*zero_stage));
  if (recompute) add("recompute", *recompute);
  if (kernels) add("kernels", *kernels);
  return out;
}

Result<MeasuredRun> parse_training_log(std::string_view text, const std::string& origin) {
  if (text.empty()) return make_error(ErrorCode::parse_error, "the log is empty", origin);
  Reader reader;
  reader.origin = origin;
  if (auto read = read_lines(reader, text); !read) return tl::unexpected(read.error());
  MeasuredRun run;
  run.origin = origin;
  MS_TRY(records, choose_records(reader, run));
  run.arguments = reader.arguments;
  for (const auto& [key, value] : reader.ds_config) run.arguments.emplace("deepspeed_config." + key, value);
  run.memory = reader.memory;
  finish_layout(reader, run);
  std::vector<LogIteration> iterations = one_rank(*records, reader.warnings);
  derive_rates(reader, *records, run, iterations);
  summarise_steps(iterations, run, reader.warnings);
  peak_memory(iterations, run, reader.warnings);
  run.iterations = std::move(iterations);
  run.warnings = std::move(reader.warnings);
  return run;
}

Result<MeasuredRun> load_training_log(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(ErrorCode::io_error, "is a folder, not a log", path);
  if (!std::filesystem::exists(path, ec)) return make_error(ErrorCode::io_error, "no such file", path);
  // gzread reads plain files too (zlib's transparent mode), so one path serves .log and .log.gz.
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return make_error(ErrorCode::io_error, "cannot open the file", path);
  std::string text;
  std::array<char, 1 << 16> buffer{};
  while (true) {
    const int n = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n > 0) text.append(buffer.data(), static_cast<size_t>(n));
    if (n < static_cast<int>(buffer.size())) {
      int code = Z_OK;
      const char* message = gzerror(file, &code);
      if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
        const std::string what = code == Z_BUF_ERROR ? "the gzip stream ends early: the file is truncated"
                                                     : std::string("cannot read the file (zlib: ") + message + ")";
        gzclose(file);
        return make_error(ErrorCode::io_error, what, path);
      }
      break;
    }
  }
  gzclose(file);
  return parse_training_log(text, path);
}

}  // namespace meshscope
