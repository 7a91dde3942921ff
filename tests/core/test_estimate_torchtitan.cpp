// A whole step against a run the model was not told about: torchtitan's Llama 3 8B preset
// (train_configs/llama3_8b.toml) on 8×H200, logged in ../shared/data/training_logs/
// torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log (datacrunch-research/benchmarks :
// docs/README.md @ 47c19970ca35, MIT). The log is a check, never a fit target: no constant of the
// cost core was set from it. The configuration is read from the log itself:
//   "Building 1-D device mesh with ['dp_shard'], [8]"     FSDP2 over 8 GPUs (zero=3), no TP/PP/CP
//   "local batch size 1, global batch size 8, sequence length 8192"
//   "Applied selective activation checkpointing"            torchtitan's op-level SAC (below)
//   "CUDA capacity: NVIDIA H200 with 139.83GiB memory"
//   "Building llama3 8B with ModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, …)"
// and its throughput from the step lines ("tps: 7,080" tokens/s per GPU), steps 10–90: step 1
// includes the warm-up, and step 100 the profiler's trace dump ("Dumping profiler traces at step 100").
//
// What meshscope cannot say yet, and so what this estimate leaves out: torchtitan's op-level
// selective AC recomputes every second matmul and every non-matmul op (torchtitan
// torchtitan/distributed/activation_checkpoint.py, _custom_policy: "Saves output of all compute
// ops, except every second mm"); meshscope's `selective` recomputes the attention core. Eager
// PyTorch runs RMSNorm, SwiGLU and RoPE as several unfused kernels each (no torch.compile in
// this run); meshscope counts one pass per kernel group.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/estimate/compute.hpp"
#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;

namespace {

struct TorchtitanLog {
  int64_t dp_shard = 0, local_batch = 0, global_batch = 0, seq_len = 0;
  bool selective_ac = false;
  std::string gpu;
  std::vector<std::pair<int, double>> tps;  // step, tokens/s per GPU
};

TorchtitanLog read_log(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  TorchtitanLog log;
  const std::regex mesh(R"(Building 1-D device mesh with \['dp_shard'\], \[(\d+)\])");
  const std::regex batch(R"(local batch size (\d+), global batch size (\d+), sequence length (\d+))");
  const std::regex gpu(R"(CUDA capacity: (NVIDIA \S+))");
  const std::regex step(R"(step:\s+(\d+)\s.*tps: ([\d,]+))");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, mesh)) log.dp_shard = std::stoll(m[1]);
    if (std::regex_search(line, m, batch)) {
      log.local_batch = std::stoll(m[1]);
      log.global_batch = std::stoll(m[2]);
      log.seq_len = std::stoll(m[3]);
    }
    if (std::regex_search(line, m, gpu)) log.gpu = m[1];
    if (line.find("Applied selective activation checkpointing") != std::string::npos) log.selective_ac = true;
    if (std::regex_search(line, m, step)) {
      std::string digits = m[2];
      digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
      log.tps.emplace_back(std::stoi(m[1]), std::stod(digits));
    }
  }
  return log;
}

}  // namespace

TEST_CASE("estimate: torchtitan's Llama 3 8B preset on 8×H200 within 10 % of its log", "[!mayfail]") {
  const TorchtitanLog log =
      read_log(test::shared_path("data/training_logs/torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log"));
  REQUIRE(log.dp_shard == 8);
  REQUIRE(log.local_batch == 1);
  REQUIRE(log.global_batch == 8);
  REQUIRE(log.seq_len == 8192);
  REQUIRE(log.selective_ac);
  REQUIRE(log.gpu == "NVIDIA H200");
  std::vector<double> steady;
  for (const auto& [step, tps] : log.tps)
    if (step >= 10 && step <= 90) steady.push_back(tps);
  REQUIRE(steady.size() == 9);
  std::sort(steady.begin(), steady.end());
  const double measured = steady[steady.size() / 2];  // 7,051 tokens/s per GPU

  auto cluster = generate_cluster("hgx-h200");
  REQUIRE(cluster);
  const Router router(*cluster);
  TrainingWorkload w;
  w.seq_len = log.seq_len;
  w.global_batch = log.global_batch;
  w.zero_stage = 3;
  w.recompute = RecomputeMode::op;  // llama3_8b.toml: selective_ac_option "op"
  Layout l;
  l.dp = log.dp_shard;
  l.micro_batch = log.local_batch;
  EstimateOptions options;
  options.order = AxisOrder::torchtitan;
  auto est = estimate_step(*model_preset("llama3-8b"), w, l, *cluster, router, options);
  REQUIRE(est);
  const double error = est->tokens_per_s_per_gpu / measured - 1;
  std::printf(
      "[fidelity] torchtitan Llama 3 8B FSDP8 8xH200 seq 8192 selective AC: predicted %6.0f, logged %6.0f "
      "tokens/s per GPU, error %+5.1f %% (step %.3f s; MFU %.1f %%)\n",
      est->tokens_per_s_per_gpu, measured, 100 * error, est->step_time_s, 100 * est->mfu);
  // Before the measured GEMM rates: 11,441 (+62 %); with them +52 %; with torchtitan's op-level
  // SAC (recompute=op) +44 %; with FSDP2's copies +35 %. The target: a whole-step model that is
  // right lands within 10 % of such a run. This preset run is not told what the log shows — eager
  // kernels (no compile line: `compare --log` reads kernels=eager from it, +19 %) — nor what it
  // cannot show, PyTorch 2.6's SDPA FlashAttention-2 (with both: +10 %, the validation set's row).
  // Tagged [!mayfail]; the guard below keeps what was gained.
  CHECK(error < 0.40);
  CHECK(std::abs(error) < 0.10);
}

TEST_CASE("estimate: PyTorch's context_parallel charges its ring's fp32 merges and exposed exchanges") {
  // torch/distributed/tensor/experimental/_attention.py as torchtitan runs it (cp_comm=torch, the
  // default under FSDP2): one SDPA call per ring step, each merged into an fp32 output
  // (_SDPAMerger), fp32 dK/dV accumulators passed around the ring in backward. Counted from that
  // source for the busiest rank (the last), in units of O = the rank's bf16 attention output:
  // forward 3 (first cast) + (cp − 1)·(4 concatenation + 3 cast + 16 merge) − 4 (no
  // concatenation after the last step) + 3 (cast back) = 23(cp − 1) + 6; backward 6 (zeroed fp32
  // accumulators) + 27 (first step) + 30 per later step − 4 (no concatenation at the last) + 9
  // (casts back) = 30(cp − 1) + 38.
  auto cluster = generate_cluster("dgx-h100:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  auto model = model_preset("llama3.1-8b");
  REQUIRE(model);
  TrainingWorkload w;
  w.seq_len = 131072;
  w.global_batch = 2;
  w.zero_stage = 3;
  w.recompute = RecomputeMode::full;
  Layout l;
  l.cp = 4;
  l.dp = 2;
  auto gpu = find_gpu("h100-sxm");
  REQUIRE(gpu);
  const ComputeEfficiency efficiency;
  const auto merges = [&](const TrainingWorkload& workload) -> std::optional<OperationCost> {
    for (const OperationCost& op : layer_operations({*model, workload, l, *gpu, efficiency}, 0))
      if (op.name == "attention: ring-attention merges (PyTorch context parallel, fp32)") return op;
    return std::nullopt;
  };
  const double o = 131072.0 / 4 * 32 * 128 * 2;  // 32k tokens × 32 heads × 128 × bf16
  const auto torch_ring = merges(w);
  REQUIRE(torch_ring);
  CHECK(torch_ring->bytes == Approx((23 * 3 + 6) * o));
  CHECK(torch_ring->backward_input_s / torch_ring->forward_s == Approx((30.0 * 3 + 38) / (23 * 3 + 6)));
  TrainingWorkload megatron = w;
  megatron.cp_comm = CpComm::p2p;
  CHECK_FALSE(merges(megatron));

  auto torch_step = estimate_step(*model, w, l, *cluster, router);
  auto ring_step = estimate_step(*model, megatron, l, *cluster, router);
  REQUIRE(torch_step);
  REQUIRE(ring_step);
  CHECK(torch_step->step_time_s > ring_step->step_time_s);
  // Each layer's last dK/dV exchange is waited for after the ring loop: at least 32 of them exposed
  // per micro-batch (the all-gathers and the other exchanges hide under the SDPA steps or not).
  double exchange = 0;
  for (const AxisComm& axis : torch_step->comm.axes)
    if (axis.axis == MeshAxis::cp)
      for (const auto& c : axis.collectives)
        if (c.op == CollectiveOp::send_recv) exchange = c.time_s;
  REQUIRE(exchange > 0);
  CHECK(torch_step->breakdown.cp_exposed_s >= 32 * exchange * (1 - 1e-9));
}
