// Training log import, on the real logs in ../shared/data/training_logs (see ../shared/data/MANIFEST.md) and on
// broken variants derived from them here. Every expected number is printed in the log itself (file and line cited);
// a median is taken by hand over the printed values listed next to it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/importers/training_log.hpp"
#include "core/importers/training_log_model.hpp"
#include "core/model/model_io.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

const std::string kDir = "data/training_logs/";
const std::string kThera = test::shared_path(kDir + "megatron_mi300x_8gpu_tp4_pp2_thera.log");
const std::string kV100 = test::shared_path(kDir + "megatron_v100_32gpu_tp4_pp8_bigscience.log");
const std::string kMegDs = test::shared_path(kDir + "megatron_deepspeed_v100_64gpu_tp4_pp16_bigscience.log");
const std::string kZero3 = test::shared_path(kDir + "deepspeed_zero3_megatron_v100_64gpu_mp4_bigscience.log");
const std::string kSuperbench =
    test::shared_path(kDir + "superbench_megatron-deepspeed_gpt6.7B_2node_16gpu_zero1.log.gz");
const std::string kOlmoe = test::shared_path(kDir + "olmoe_sft_deepspeed-zero3_32gpu_with_nccl_info.log.gz");
const std::string kTitan = test::shared_path(kDir + "torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log");

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

MeasuredRun load(const std::string& path) {
  auto run = load_training_log(path);
  INFO(path << ": " << (run ? std::string() : run.error().to_string()));
  REQUIRE(run);
  return *run;
}

bool has_warning(const MeasuredRun& run, const std::string& text) {
  for (const auto& w : run.warnings)
    if (w.message.find(text) != std::string::npos) return true;
  return false;
}

const LogIteration* iteration(const MeasuredRun& run, int64_t n) {
  for (const auto& it : run.iterations)
    if (it.iteration == n) return &it;
  return nullptr;
}

}  // namespace

TEST_CASE("training log: Megatron-LM on 8 MI300X gives the median step time after iteration 1 and the peak allocated") {
  const MeasuredRun run = load(kThera);
  CHECK(run.framework == TrainingFramework::megatron);
  CHECK(run.iterations.size() == 17);  // lines 1576..1600: iterations 1..17 of 20, then the time limit
  CHECK(run.excluded_iterations == std::vector<int64_t>{1});  // line 1576: 450846.5 ms, the warm-up
  REQUIRE(run.step_time_s);
  CHECK(run.step_time_s->count == 16);
  // Lines 1585..1600, iterations 2..17: 423291.1 421545.3 420965.6 421365.2 419080.4 418343.3 419181.8 419295.2
  // 419414.1 419469.4 419234.8 419363.6 418969.1 419212.6 419055.3 419152.3 ms; the middle two are 419234.8 and
  // 419295.2.
  CHECK_THAT(run.step_time_s->median, WithinRel((419234.8 + 419295.2) / 2 / 1e3, 1e-12));
  CHECK_THAT(run.step_time_s->min, WithinRel(418.3433, 1e-12));  // line 1590
  CHECK_THAT(run.step_time_s->max, WithinRel(423.2911, 1e-12));  // line 1585
  CHECK_THAT(run.step_time_s->relative_spread, WithinRel((423291.1 - 418343.3) / 419265.0, 1e-9));
  // "throughput per GPU (TFLOP/s/GPU)" of iterations 2..17: eight values at or below 250.8 and eight at or above it.
  REQUIRE(run.tflops_per_gpu);
  CHECK_THAT(run.tflops_per_gpu->median, WithinRel(250.8, 1e-12));
  CHECK_THAT(run.tflops_per_gpu->max, WithinRel(251.4, 1e-12));  // line 1590
  // Tokens/s/GPU derived: global batch 512 × seq 8192 / (step time × 8 GPUs).
  CHECK(run.tokens_per_s_source == "global_batch * seq_length / (step_time * world_size)");
  const LogIteration* it2 = iteration(run, 2);
  REQUIRE(it2);
  REQUIRE(it2->tokens_per_s_per_gpu);
  CHECK_THAT(*it2->tokens_per_s_per_gpu, WithinRel(512.0 * 8192 / (423.2911 * 8), 1e-12));
  CHECK_THAT(*it2->loss, WithinRel(1.171790e+01, 1e-12));  // line 1585 "lm loss"
  // Line 1583: "[Rank 4] (after 1 iterations) memory (MB) | ... | max allocated: 74046.685546875"; line 1579: rank 0's
  // max reserved 90894.0.
  REQUIRE(run.peak_memory_bytes);
  CHECK(run.peak_memory_quantity == "max allocated");
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(74046.685546875 * kMiB, 1e-12));
  CHECK_THAT(*run.max_reserved_bytes, WithinRel(90894.0 * kMiB, 1e-12));
  CHECK(run.memory.size() == 8);  // lines 1577..1584, one per rank
}

TEST_CASE("training log: Megatron's argument dump gives the model and the layout that ran") {
  const MeasuredRun run = load(kThera);
  // Lines 571..975: num_layers 56, hidden_size 6144, ffn_hidden_size 21504, num_attention_heads 96,
  // group_query_attention True with num_query_groups 24, seq_length 8192; tensor_model_parallel_size 4,
  // pipeline_model_parallel_size 2, data_parallel_size 1, sequence_parallel True, micro_batch_size 1,
  // global_batch_size 512, world_size 8, recompute_granularity selective, bf16 True, use_distributed_optimizer True.
  CHECK(run.model.num_layers == 56);
  CHECK(run.model.hidden_size == 6144);
  CHECK(run.model.ffn_hidden_size == 21504);
  CHECK(run.model.num_attention_heads == 96);
  CHECK(run.model.num_query_groups == 24);
  CHECK(run.model.seq_length == 8192);
  CHECK(run.layout.world_size == 8);
  CHECK(run.layout.tp == 4);
  CHECK(run.layout.pp == 2);
  CHECK(run.layout.dp == 1);
  CHECK(run.layout.sequence_parallel == true);
  CHECK(run.layout.distributed_optimizer == true);
  CHECK(run.layout.layout_keys() == "tp=4,pp=2,dp=1,sp=true,micro_batch=1");
  CHECK(run.layout.train_keys() == "global_batch=512,precision=bf16,zero=1,recompute=selective");
  CHECK(run.arguments.at("lr") == "0.00015");
}

TEST_CASE("training log: Megatron-LM on 32 V100 reports every 10 iterations; the first report is the warm-up") {
  const MeasuredRun run = load(kV100);
  CHECK(run.framework == TrainingFramework::megatron);
  CHECK(run.iterations.size() == 20);                          // iterations 10, 20, ..., 200 (log_interval 10)
  CHECK(run.excluded_iterations == std::vector<int64_t>{10});  // line 1475: 3171.3 ms
  REQUIRE(run.step_time_s);
  // The 19 values of iterations 20..200 sorted: 1572.7 1613.7 1614.3 1615.7 1615.8 1616.4 1616.6 1616.6 1616.7
  // 1617.2 1618.3 1622.7 1622.8 1623.5 1623.5 1623.8 1624.4 1625.2 1773.4 ms.
  CHECK_THAT(run.step_time_s->median, WithinRel(1.6172, 1e-12));
  CHECK_THAT(run.step_time_s->min, WithinRel(1.5727, 1e-12));  // line 1477, iteration 20
  CHECK_THAT(run.step_time_s->max, WithinRel(1.7734, 1e-12));
  CHECK_FALSE(run.tflops_per_gpu);  // this Megatron (2021) prints no throughput
  // Line 1503: "[Rank 2] (after 20 iterations) ... max allocated: 22113.0625" (two reports per line in places,
  // e.g. line 1480 holds ranks 25 and 27).
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(22113.0625 * kMiB, 1e-12));
  CHECK(run.memory.size() == 32);
  CHECK(run.layout.layout_keys() == "tp=4,pp=8,dp=1,micro_batch=1");  // lines 1173..1312
  CHECK(run.layout.train_keys() == "global_batch=4,precision=fp16,zero=0,recompute=full");
  CHECK(run.model.hidden_size == 7168);
  CHECK(run.model.ffn_hidden_size == 28672);
}

TEST_CASE("training log: Megatron-DeepSpeed 3D on 64 V100 is told from Megatron by its deepspeed argument") {
  const MeasuredRun run = load(kMegDs);
  CHECK(run.framework == TrainingFramework::megatron_deepspeed);
  CHECK(run.iterations.size() == 49);  // lines 901..1044
  CHECK(run.excluded_iterations == std::vector<int64_t>{1});
  REQUIRE(run.step_time_s);
  CHECK(run.step_time_s->count == 48);
  // Sorted 48 values of iterations 2..49: the 24th and 25th are 137068.7 (line 994) and 137138.4 (line 952).
  CHECK_THAT(run.step_time_s->median, WithinRel((137068.7 + 137138.4) / 2 / 1e3, 1e-12));
  CHECK_THAT(run.step_time_s->min, WithinRel(125.6433, 1e-12));                  // line 1026
  CHECK_THAT(run.step_time_s->max, WithinRel(141.0968, 1e-12));                  // line 950, iteration 2
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(19961.072265625 * kMiB, 1e-12));  // line 884, rank 1
  CHECK(run.layout.layout_keys() == "tp=4,pp=16,dp=1,micro_batch=4");            // lines 51..204
  CHECK(run.layout.train_keys() == "global_batch=1024,precision=fp16,zero=0,recompute=full");
}

TEST_CASE("training log: DeepSpeed ZeRO-3 Megatron adds 'Effective Tera Flops per GPU' to its iteration") {
  const MeasuredRun run = load(kZero3);
  CHECK(run.framework == TrainingFramework::megatron_deepspeed);
  REQUIRE(run.iterations.size() == 3);  // lines 331, 335, 338
  CHECK(run.excluded_iterations == std::vector<int64_t>{1});
  // Lines 335 and 338: 125912.4 and 123907.8 ms; lines 337 and 340: 40.6 and 41.26 TFLOPs.
  CHECK_THAT(run.step_time_s->median, WithinRel((125912.4 + 123907.8) / 2 / 1e3, 1e-12));
  CHECK_THAT(run.tflops_per_gpu->median, WithinRel((40.6 + 41.26) / 2, 1e-12));
  CHECK_THAT(*iteration(run, 1)->tflops_per_gpu, WithinRel(41.94, 1e-12));  // line 334
  // Line 332: "after 1 iterations memory (MB) | allocated: 10857.5625 | max allocated: 26118.2294921875 | ...
  // max reserved: 28234.0"; see_memory_usage's prints (lines 136..171, before training) are records, not the peak.
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(26118.2294921875 * kMiB, 1e-12));
  CHECK_THAT(*run.max_reserved_bytes, WithinRel(28234.0 * kMiB, 1e-12));
  const auto zero_init = std::find_if(run.memory.begin(), run.memory.end(), [](const LogMemory& m) {
    return m.label == "After initializing ZeRO optimizer";
  });
  REQUIRE(zero_init != run.memory.end());
  CHECK_THAT(*zero_init->max_allocated_bytes, WithinRel(19.67 * kGiB, 1e-12));  // line 171 "Max_MA 19.67 GB"
  // world_size 64, model_parallel_size 4, batch_size 48, zero_stage 3 (lines 13..122); train_batch_size 768 (line 227).
  CHECK(run.layout.world_size == 64);
  CHECK(run.layout.layout_keys() == "tp=4,dp=16,micro_batch=48");
  CHECK(run.layout.global_batch == 768);
  CHECK(run.layout.zero_stage == 3);
}

TEST_CASE("training log: SuperBench's Megatron-DeepSpeed log behind pdsh 'host: ' prefixes, gzip-compressed") {
  const MeasuredRun run = load(kSuperbench);
  CHECK(run.framework == TrainingFramework::megatron_deepspeed);
  CHECK(run.iterations.size() == 5);  // lines 1429..1441, all from host vm-07-14
  CHECK(run.excluded_iterations == std::vector<int64_t>{1});
  // Iterations 2..5: 75254.0 75249.6 75182.4 74494.9 ms; TFLOPs 149.10 149.11 149.24 150.62; samples per second
  // 27.215 27.216 27.240 27.492.
  CHECK_THAT(run.step_time_s->median, WithinRel((75249.6 + 75182.4) / 2 / 1e3, 1e-12));
  CHECK_THAT(run.tflops_per_gpu->median, WithinRel((149.11 + 149.24) / 2, 1e-12));
  CHECK_THAT(run.samples_per_s->median, WithinRel((27.216 + 27.240) / 2, 1e-12));
  // Line 1430 (host vm-07-05): "[Rank 0] (after 1 iterations) memory (MB) | ... | max allocated: 68581.8095703125".
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(68581.8095703125 * kMiB, 1e-12));
  CHECK_THAT(*run.max_reserved_bytes, WithinRel(90178.0 * kMiB, 1e-12));
  // Lines 230..541: TP 1, PP 1, world 16, micro 2, global 2048, fp16, zero_stage 1.
  CHECK(run.layout.layout_keys() == "tp=1,pp=1,dp=16,sp=false,micro_batch=2");
  CHECK(run.layout.train_keys() == "global_batch=2048,precision=fp16,zero=1,recompute=none");
  CHECK(run.model.num_layers == 32);
  CHECK(run.model.seq_length == 2048);
}

TEST_CASE("training log: torchtitan's step lines give tps, max reserved memory and the step time per tokens") {
  const MeasuredRun run = load(kTitan);
  CHECK(run.framework == TrainingFramework::torchtitan);
  CHECK(run.iterations.size() == 11);  // lines 30..41: steps 1, 10, 20, ..., 100
  CHECK(run.excluded_iterations == std::vector<int64_t>{1});
  // tps of steps 10..100: 7,026 7,080 7,082 7,072 7,057 7,051 7,042 7,036 7,033 6,856; middle two 7,042 and 7,051.
  CHECK_THAT(run.tokens_per_s_per_gpu->median, WithinRel((7042.0 + 7051.0) / 2, 1e-12));
  CHECK_THAT(run.tokens_per_s_per_gpu->min, WithinRel(6856.0, 1e-12));  // line 41, step 100
  // Line 29: "local batch size 1, ... sequence length 8192" on a 1-D dp_shard mesh (line 19): a step is 8192
  // tokens per GPU, so its time is 8192 / tps.
  CHECK_THAT(run.step_time_s->median, WithinRel((8192.0 / 7042 + 8192.0 / 7051) / 2, 1e-12));
  // "memory: 49.59GiB(35.46%)" (lines 32..41) is torchtitan's max_reserved_gib; line 32 writes it "mmemory" (an
  // ANSI remnant) and line 23 holds a bare "[31m".
  CHECK(run.peak_memory_quantity == "max reserved");
  CHECK_THAT(*run.peak_memory_bytes, WithinRel(49.59 * kGiB, 1e-12));
  CHECK_THAT(*iteration(run, 1)->max_reserved_bytes, WithinRel(42.08 * kGiB, 1e-12));  // line 30
  CHECK_THAT(*iteration(run, 10)->mfu, WithinRel(0.4115, 1e-12));                      // line 32
  CHECK_THAT(*iteration(run, 100)->loss, WithinRel(6.4719, 1e-12));                    // line 41
  // Line 22: ModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, ...).
  CHECK(run.model.hidden_size == 4096);
  CHECK(run.model.num_layers == 32);
  CHECK(run.model.num_query_groups == 8);
  CHECK(run.model.vocab_size == 128256);
  CHECK(run.layout.layout_keys() == "tp=1,pp=1,dp=8,micro_batch=1");
  // Line 24: selective AC (torchtitan's op-level SAC: recompute=op); FSDP (zero=3); line 25 applies FSDP with no
  // "Compiling each TransformerBlock with torch.compile" before it: eager kernels.
  CHECK(run.layout.train_keys() == "global_batch=8,zero=3,recompute=op,kernels=eager");
}

TEST_CASE("training log: a torchtitan log that compiles its blocks ran fused kernels") {
  // The same log with the line torchtitan's apply_compile writes inserted after line 24, as a compiled run logs it.
  std::vector<std::string> lines = lines_of(read_text_file(kTitan).value());
  REQUIRE(lines.size() > 25);
  REQUIRE(lines[24].find("Applied FSDP to the model") != std::string::npos);
  lines.insert(lines.begin() + 24,
               "[rank0]:2025-02-13 11:33:29,238 - root - INFO - Compiling each TransformerBlock with torch.compile");
  auto run = parse_training_log(join(lines), "compiled.log");
  REQUIRE(run);
  CHECK(run->layout.kernels == std::optional<std::string>("fused"));
  // Without the parallelize lines at all (a log cut after its step lines start) nothing is said.
  std::vector<std::string> cut = lines_of(read_text_file(kTitan).value());
  cut.erase(cut.begin() + 24);
  auto silent = parse_training_log(join(cut), "cut.log");
  REQUIRE(silent);
  CHECK_FALSE(silent->layout.kernels);
}

TEST_CASE("training log: an accelerate + DeepSpeed SFT log is timed by the timestamps of its Step lines") {
  const MeasuredRun run = load(kOlmoe);
  CHECK(run.framework == TrainingFramework::deepspeed);
  CHECK(run.iterations.size() == 9500);
  // Step 1 has no earlier step; step 2 (the first timed one) is the warm-up.
  CHECK(run.excluded_iterations == std::vector<int64_t>{2});
  // Lines 1419 and 1420: 2024-08-03T04:58:48.487524938Z and 04:59:01.041364269Z.
  CHECK_THAT(*iteration(run, 2)->step_time_s, WithinRel(61.041364269 - 48.487524938, 1e-6));
  CHECK_FALSE(iteration(run, 1)->step_time_s);
  // tqdm's last training line (10919): "9500/9500 [32:33:54<00:00, 12.33s/it]", i.e. 117234 s / 9500 = 12.34 s.
  REQUIRE(run.step_time_s);
  CHECK_THAT(run.step_time_s->median, WithinRel(117234.0 / 9500, 0.03));
  CHECK(run.layout.world_size == 32);  // "Num processes: 32"
  CHECK(run.layout.zero_stage == 3);   // ds_config 'zero_optimization': {'stage': 3
  CHECK(run.layout.precision == "bf16");
  // DeepSpeed's config print, lines 933 and 934: train_batch_size 128, train_micro_batch_size_per_gpu 2.
  CHECK(run.layout.global_batch == 128);
  CHECK(run.layout.micro_batch == 2);
  CHECK_FALSE(run.peak_memory_bytes);  // only see_memory_usage before training
  CHECK(has_warning(run, "memory is printed only before training"));
}

TEST_CASE("training log: ANSI colour codes around and inside the fields change nothing") {
  std::vector<std::string> lines = lines_of(read_text_file(kThera).value());
  for (std::string& line : lines) {
    if (line.find("iteration ") == std::string::npos) continue;
    line = "\x1b[32m" + line + "\x1b[0m";
    const size_t at = line.find("elapsed time");
    if (at != std::string::npos) line.insert(at, "\x1b[1;33m");
  }
  auto run = parse_training_log(join(lines), "ansi.log");
  REQUIRE(run);
  CHECK(run->iterations.size() == 17);
  CHECK_THAT(run->step_time_s->median, WithinRel(419.265, 1e-12));
}

TEST_CASE("training log: two ranks' prefixed lines interleaved, the lowest rank is read") {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(read_text_file(kTitan).value())) {
    out.push_back(line);
    if (line.rfind("[rank0]:", 0) == 0 && line.find("tps:") != std::string::npos) {
      std::string other = "[rank1]:" + line.substr(8);
      other.replace(other.find("tps: "), 5, "tps: 9");  // rank 1's tps differ: they must not be read
      out.push_back(other);
    }
  }
  auto run = parse_training_log(join(out), "two_ranks.log");
  REQUIRE(run);
  CHECK(run->iterations.size() == 11);
  CHECK_THAT(run->tokens_per_s_per_gpu->median, WithinRel((7042.0 + 7051.0) / 2, 1e-12));
  CHECK(has_warning(*run, "rank 0's are read"));
}

TEST_CASE("training log: two unprefixed copies of a log interleaved line by line are deduplicated") {
  const std::vector<std::string> lines = lines_of(read_text_file(kThera).value());
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    out.push_back(line);
    out.push_back(line);
  }
  auto run = parse_training_log(join(out), "twice.log");
  REQUIRE(run);
  CHECK(run->iterations.size() == 17);
  CHECK_THAT(run->step_time_s->median, WithinRel(419.265, 1e-12));
  CHECK(has_warning(*run, "repeated iteration line"));
}

TEST_CASE("training log: a file cut inside its last iteration line drops that record with a warning") {
  const std::string text = read_text_file(kThera).value();
  const size_t last = text.find("iteration       17/");  // line 1600
  REQUIRE(last != std::string::npos);
  const size_t cut = text.find("elapsed time per iteration (ms): 4191", last);
  REQUIRE(cut != std::string::npos);
  auto run = parse_training_log(text.substr(0, cut + 37), "cut.log");  // "...(ms): 4191" of 419152.3
  REQUIRE(run);
  CHECK(run->iterations.size() == 16);
  CHECK(iteration(*run, 17) == nullptr);
  CHECK(has_warning(*run, "ends inside this iteration line"));
  // Cut after a whole line: nothing is dropped.
  auto whole = parse_training_log(text.substr(0, text.find('\n', last) + 1), "cut_at_line.log");
  REQUIRE(whole);
  CHECK(whole->iterations.size() == 17);
}

TEST_CASE("training log: a log without iteration lines is an error that says what was expected") {
  const std::vector<std::string> lines = lines_of(read_text_file(kThera).value());
  const std::vector<std::string> head(lines.begin(), lines.begin() + 1000);  // bash trace and arguments only
  auto run = parse_training_log(join(head), "head.log");
  REQUIRE_FALSE(run);
  CHECK(run.error().code == ErrorCode::parse_error);
  CHECK(run.error().location == "head.log");
  CHECK_THAT(run.error().message, Contains("no training iteration lines found") && Contains("elapsed time"));
  CHECK_FALSE(parse_training_log("", "empty.log"));
}

TEST_CASE("training log: an iteration line with a field that is not a number is an error at its line") {
  std::vector<std::string> lines = lines_of(read_text_file(kThera).value());
  std::string& line = lines[1586 - 1];  // iteration 3
  line.replace(line.find("421545.3"), 8, "n/a");
  auto run = parse_training_log(join(lines), "bad.log");
  REQUIRE_FALSE(run);
  CHECK(run.error().location == "bad.log:1586");
  CHECK_THAT(run.error().message, Contains("expected a number after \"elapsed time per iteration (ms):\""));
}

TEST_CASE("training log: garbage never crashes and gives an error or a run") {
  std::mt19937 rng(16);
  const std::string base = read_text_file(kTitan).value();
  for (int round = 0; round < 200; ++round) {
    std::string text = base;
    for (int k = 0; k < 40; ++k) text[rng() % text.size()] = static_cast<char>(rng() % 256);
    text.resize(rng() % text.size());
    auto run = parse_training_log(text, "garbage.log");
    if (run) CHECK_FALSE(run->iterations.empty());
  }
  std::string noise(4096, '\0');
  for (char& c : noise) c = static_cast<char>(rng() % 256);
  CHECK_FALSE(parse_training_log(noise, "noise.bin"));
}

TEST_CASE("training log: a truncated gzip file and a missing file are io errors") {
  std::ifstream in(kSuperbench, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto path = std::filesystem::temp_directory_path() / "meshscope_truncated_training_log.log.gz";
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes.substr(0, bytes.size() / 2);
  }
  auto run = load_training_log(path.string());
  std::filesystem::remove(path);
  REQUIRE_FALSE(run);
  CHECK(run.error().code == ErrorCode::io_error);
  CHECK_THAT(run.error().message, Contains("truncated"));
  CHECK(load_training_log("/nonexistent/x.log").error().code == ErrorCode::io_error);
}

TEST_CASE("training log: srun --label prefixes ('3: ') are launcher prefixes, not part of the line") {
  std::vector<std::string> lines = lines_of(read_text_file(kThera).value());
  for (std::string& line : lines) line = "3: " + line;
  auto run = parse_training_log(join(lines), "srun.log");
  REQUIRE(run);
  CHECK(run->iterations.size() == 17);
  CHECK_THAT(run->step_time_s->median, WithinRel(419.265, 1e-12));
  CHECK(run->layout.tp == 4);  // the argument dump reads through the prefix too
}

TEST_CASE("training log: DeepSpeed's engine lines give samples/s, max allocated and train_batch_size / samples/s") {
  // The shape of DeepSpeed's engine print (deepspeed/runtime/engine.py, steps_per_print) and its config print; no
  // shared log has them, so the numbers are this text's own.
  const std::string text =
      "[2024-01-01 10:00:00,000] [INFO] [config.py:984:print]   train_batch_size ............. 256\n"
      "[2024-01-01 10:00:10,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, lr=[0.0001]\n"
      "[2024-01-01 10:00:10,001] [INFO] [timer.py:260:stop] epoch=0/micro_step=10/global_step=10, "
      "RunningAvgSamplesPerSec=120.5, CurrSamplesPerSec=128.0, MemAllocated=10.5GB, MaxMemAllocated=30.25GB\n"
      "[2024-01-01 10:00:20,001] [INFO] [timer.py:260:stop] epoch=0/micro_step=20/global_step=20, "
      "RunningAvgSamplesPerSec=124.0, CurrSamplesPerSec=125.0, MemAllocated=10.5GB, MaxMemAllocated=31.5GB\n"
      "[2024-01-01 10:00:30,001] [INFO] [timer.py:260:stop] epoch=0/micro_step=30/global_step=30, "
      "RunningAvgSamplesPerSec=124.5, CurrSamplesPerSec=127.5, MemAllocated=10.5GB, MaxMemAllocated=31.5GB\n";
  auto run = parse_training_log(text, "deepspeed.log");
  REQUIRE(run);
  CHECK(run->framework == TrainingFramework::deepspeed);
  CHECK(run->iterations.size() == 3);
  CHECK(run->excluded_iterations == std::vector<int64_t>{10});
  CHECK_THAT(run->step_time_s->median, WithinRel((256.0 / 125.0 + 256.0 / 127.5) / 2, 1e-12));
  CHECK_THAT(run->samples_per_s->median, WithinRel((125.0 + 127.5) / 2, 1e-12));
  CHECK(run->peak_memory_quantity == "max allocated");
  CHECK_THAT(*run->peak_memory_bytes, WithinRel(31.5 * kGiB, 1e-12));
}

TEST_CASE("training log: the argument dump makes a model with the parameter count the log prints") {
  const MeasuredRun run = load(kThera);
  auto model = model_spec_from_log(run);
  REQUIRE(model);
  // Lines 571..975: swiglu True, normalization RMSNorm, position_embedding_type rope,
  // untie_embeddings_and_output_weights True, add_bias_linear False, kv_channels 64, dropouts 0.0; line 978: "padded
  // vocab ... (new size: 50688)".
  CHECK(model->vocab_size == 50688);
  CHECK(model->num_kv_heads == 24);
  CHECK(model->head_dim == 64);
  CHECK(model->mlp == MlpKind::gated);
  CHECK(model->norm == NormKind::rmsnorm);
  CHECK(model->position == PositionKind::rotary);
  CHECK_FALSE(model->tied_embeddings);
  CHECK_FALSE(model->mlp_bias);
  CHECK_FALSE(model->dropout);
  // Line 1569: "Total number of parameters in billions: 28.11".
  CHECK(std::abs(count_params(*model).total_params() / 28.11e9 - 1) < 0.0005);
}

TEST_CASE("training log: torchtitan's ModelArgs make Llama 3 8B with the size the log prints") {
  auto model = model_spec_from_log(load(kTitan));
  REQUIRE(model);
  // Line 22: dim=4096, ffn_dim_multiplier=1.3, multiple_of=1024 → FFN 14336 by torchtitan's FeedForward rule.
  CHECK(model->ffn_hidden_size == 14336);
  // Line 23: "Model llama3 8B size: 8,030,261,248 total parameters".
  CHECK(count_params(*model).total_params() == 8030261248.0);
}

TEST_CASE("training log: a log without model dims gives no model, and says what is missing") {
  auto model = model_spec_from_log(load(kOlmoe));
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::missing_field);
  CHECK_THAT(model.error().message, Contains("num_layers") && Contains("--model"));
}

// NeMo-Launcher's progress bar (NeMo 1 under PyTorch Lightning): the line DGX Cloud Benchmarking's Llama 3.1 405B
// recipe prints as its example (tests/data/training_logs/PROVENANCE.md). Step time, loss and step are printed there.
TEST_CASE("training log: NeMo's progress bar gives train_step_timing at its global step; redrawings keep the last") {
  const std::string path =
      std::string(MESHSCOPE_SOURCE_DIR) + "/tests/data/training_logs/dgxc_llama31_405b_nemo_launcher_progress_bar.txt";
  const MeasuredRun run = load(path);
  CHECK(run.framework == TrainingFramework::nemo);
  CHECK(std::string(training_framework_name(run.framework)) == "nemo");
  REQUIRE(run.iterations.size() == 1);
  CHECK(run.iterations[0].iteration == 49);  // global_step=49.00
  REQUIRE(run.iterations[0].step_time_s);
  CHECK_THAT(*run.iterations[0].step_time_s, WithinRel(12.80, 1e-12));  // train_step_timing in s=12.80
  REQUIRE(run.iterations[0].loss);
  CHECK_THAT(*run.iterations[0].loss, WithinRel(11.70, 1e-12));  // reduced_train_loss=11.70
  CHECK(has_warning(run, "includes warm-up"));                   // one timed step

  // The same drawing as tqdm writes it to a file: the bar redrawn with carriage returns on one physical line. Steps
  // 48 and 49 (each drawn twice; the second drawing of step 49 with the step time the recipe prints) read as two
  // iterations, the first left out as warm-up, and step 49 keeps its last drawing.
  std::ifstream in(path);
  std::string drawing;
  std::getline(in, drawing);
  std::string step48 = drawing;
  step48.replace(step48.find("global_step=49.00"), 17, "global_step=48.00");
  std::string first49 = drawing;
  first49.replace(first49.find("in s=12.80"), 10, "in s=13.10");
  const std::string text = step48 + "\r" + step48 + "\r" + first49 + "\r" + drawing + "\n";
  auto redrawn = parse_training_log(text, "redrawn.log");
  REQUIRE(redrawn);
  REQUIRE(redrawn->iterations.size() == 2);
  CHECK(redrawn->excluded_iterations == std::vector<int64_t>{48});
  REQUIRE(redrawn->step_time_s);
  CHECK_THAT(redrawn->step_time_s->median, WithinRel(12.80, 1e-12));
  CHECK_FALSE(has_warning(*redrawn, "printed again"));

  // A broken variant: the step time is not a number → an error at the line.
  std::string broken = drawing;
  broken.replace(broken.find("in s=12.80"), 10, "in s=n/a");
  auto bad = parse_training_log(broken + "\n", "broken.log");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("broken.log:1") && Contains("train_step_timing in s="));
}

// NeMo 2's ProgressPrinter line as DGX Cloud Benchmarking's Llama 3.1 recipe prints it (NeMo 25.02.01;
// tests/data/training_logs/PROVENANCE.md). peak_memory_usage / memory_allocated are not read: no source says which
// allocator statistic they are.
TEST_CASE("training log: NeMo 2's progress printer gives step, global batch, loss and train_step_timing") {
  const std::string path =
      std::string(MESHSCOPE_SOURCE_DIR) + "/tests/data/training_logs/dgxc_llama31_nemo2_progress_printer.txt";
  const MeasuredRun run = load(path);
  CHECK(run.framework == TrainingFramework::nemo);
  REQUIRE(run.iterations.size() == 1);
  const LogIteration& it = run.iterations[0];
  CHECK(it.iteration == 49);  // global_step: 49
  REQUIRE(it.step_time_s);
  CHECK_THAT(*it.step_time_s, WithinRel(12.39, 1e-12));  // train_step_timing in s: 12.39
  REQUIRE(it.loss);
  CHECK_THAT(*it.loss, WithinRel(11.96, 1e-12));  // reduced_train_loss: 11.96
  CHECK(it.global_batch == 128);                  // global_batch_size: 128
  CHECK_FALSE(run.peak_memory_bytes);
  CHECK(run.step_time_source.find("train_step_timing") != std::string::npos);

  // Variants derived from the line: the memory keys of NeMo's MemoryMonitor (units of 1e9 bytes) and of a
  // max_memory_reserved / max_memory_allocated callback (bytes) are read; a bad number is an error at its line.
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::string monitored = line;
  monitored.replace(monitored.find("peak_memory_usage: 70833405952 | memory_allocated: 44271689728"), 62,
                    "memory/peak_reserved_mem: 70.833 | memory/peak_allocated_mem: 44.272");
  auto with_monitor = parse_training_log(monitored + "\n", "monitor.log");
  REQUIRE(with_monitor);
  REQUIRE(with_monitor->peak_memory_bytes);
  CHECK_THAT(*with_monitor->peak_memory_bytes, WithinRel(44.272e9, 1e-12));
  CHECK(with_monitor->peak_memory_quantity == "max allocated");
  REQUIRE(with_monitor->max_reserved_bytes);
  CHECK_THAT(*with_monitor->max_reserved_bytes, WithinRel(70.833e9, 1e-12));
  std::string bytes = line;
  bytes.replace(bytes.find("peak_memory_usage"), 17, "max_memory_reserved");
  bytes.replace(bytes.find("memory_allocated"), 16, "max_memory_allocated");
  auto with_bytes = parse_training_log(bytes + "\n", "bytes.log");
  REQUIRE(with_bytes);
  REQUIRE(with_bytes->peak_memory_bytes);
  CHECK(*with_bytes->peak_memory_bytes == 44271689728.0);
  std::string broken = line;
  broken.replace(broken.find("in s: 12.39"), 11, "in s: nan?");
  auto bad = parse_training_log("[NeMo I 2025-04-11 14:48:45 nemo_logging:393] setup\n" + broken + "\n", "bad.log");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("bad.log:2") && Contains("train_step_timing in s:"));
}
