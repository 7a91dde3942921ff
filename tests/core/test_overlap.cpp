// The frameworks' overlap keys (tp_comm_overlap, overlap_grad_reduce, overlap_param_gather,
// fsdp_prefetch, reshard_after_forward): their parsing and defaults, the chunked Transformer Engine
// timelines, Megatron's bucketed data-parallel rules and FSDP's reshard policy, each against the
// arithmetic its framework's source implies (derived in the comments, not read from the code).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "core/estimate/overlap.hpp"
#include "core/estimate/step.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/search.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

const PlannedCollective& dp_collective(const StepEstimate& e, CollectiveOp op) {
  for (const auto& a : e.comm.axes)
    if (a.axis == MeshAxis::dp)
      for (const auto& c : a.collectives)
        if (c.op == op) return c;
  FAIL("no DP collective " << collective_op_name(op));
  static const PlannedCollective none;
  return none;
}

bool states(const StepEstimate& e, const std::string& text) {
  for (const auto& a : e.assumptions)
    if (a.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("overlap keys: Megatron's flags default to off, FSDP2's prefetch and torchtitan's reshard policy to on") {
  // megatron/core/distributed/distributed_data_parallel_config.py: overlap_grad_reduce = False,
  // overlap_param_gather = False; megatron/training/arguments.py: --tp-comm-overlap store_true.
  // torchtitan parallelism.fsdp_reshard_after_forward = "default"; FSDP2 prefetches one block.
  const TrainingWorkload defaults;
  CHECK_FALSE(defaults.tp_comm_overlap);
  CHECK_FALSE(defaults.overlap_grad_reduce);
  CHECK_FALSE(defaults.overlap_param_gather);
  CHECK(defaults.fsdp_prefetch);
  CHECK(defaults.reshard_after_forward == ReshardAfterForward::torchtitan_default);

  auto keys = split_key_values("tp_comm_overlap=1,overlap_grad_reduce=1,overlap_param_gather=1", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->tp_comm_overlap);
  CHECK(w->overlap_grad_reduce);
  CHECK(w->overlap_param_gather);
  // The project file and the GUI carry the keys through training_to_keys.
  auto again = training_from_keys(training_to_keys(*w));
  REQUIRE(again);
  CHECK(again->tp_comm_overlap);
  CHECK(again->overlap_param_gather);
  for (const auto& [text, policy] :
       {std::pair{"never", ReshardAfterForward::never}, std::pair{"false", ReshardAfterForward::never},
        std::pair{"always", ReshardAfterForward::always}, std::pair{"true", ReshardAfterForward::always},
        std::pair{"default", ReshardAfterForward::torchtitan_default}}) {
    auto r = training_from_keys({{"reshard_after_forward", text}, {"fsdp_prefetch", "0"}});
    REQUIRE(r);
    CHECK(r->reshard_after_forward == policy);
    CHECK_FALSE(r->fsdp_prefetch);
    CHECK(training_from_keys(training_to_keys(*r))->reshard_after_forward == policy);
  }
  CHECK_FALSE(training_from_keys({{"reshard_after_forward", "sometimes"}}));
}

TEST_CASE("overlap keys: overlap_param_gather without overlap_grad_reduce is refused, as Megatron-LM refuses it") {
  // megatron/training/arguments.py validate_args: "Must use --overlap-param-gather with
  // --overlap-grad-reduce".
  auto w = training_from_keys({{"overlap_param_gather", "true"}});
  REQUIRE_FALSE(w);
  CHECK(w.error().message.find("overlap_grad_reduce") != std::string::npos);
  CHECK(training_from_keys({{"overlap_param_gather", "true"}, {"overlap_grad_reduce", "true"}}));
}

TEST_CASE("overlap: Transformer Engine's chunked timelines, by method") {
  // transformer_engine/pytorch/module/base.py get_default_config and comm_gemm_overlap.cpp:
  // ring_exchange — tp GEMM chunks, tp − 1 exchanges, no SM margin. TP 8, an 8 ms GEMM (1 ms a
  // chunk) and a 7 ms all-gather (1 ms an exchange): 1 + 7 × max(1, 1) = 8 ms, nothing exposed;
  // a 14 ms all-gather (2 ms an exchange): 1 + 7 × 2 = 15 ms, 7 ms exposed.
  CHECK(tp_overlap_exposed_s(TpOverlapMethod::ring_exchange, 7e-3, 8e-3, 8, 132) == Approx(0).margin(1e-12));
  CHECK_THAT(tp_overlap_exposed_s(TpOverlapMethod::ring_exchange, 14e-3, 8e-3, 8, 132), WithinRel(7e-3, 1e-9));
  // pipeline — 4 chunks, num_sm 16 with set_sm_margin: on an H100 (132 SMs, H100 whitepaper) the
  // 8 ms GEMM runs on 116 SMs, 8 × 132/116 = 9.1034 ms; a 4 ms reduce-scatter in 1 ms chunks
  // under the next GEMM chunk, the last after it: 9.1034 + 1 = 10.1034 ms, so 2.1034 ms beyond
  // the GEMM alone — the SMs are charged, not free.
  CHECK_THAT(tp_overlap_exposed_s(TpOverlapMethod::pipeline, 4e-3, 8e-3, 8, 132),
             WithinRel(8e-3 * 16.0 / 116.0 + 1e-3, 1e-9));
  // bulk — the whole collective beside the whole GEMM (on 116 SMs): a 10 ms reduce-scatter
  // exceeds the 9.1034 ms GEMM, max(9.1034, 10) − 8 = 2 ms.
  CHECK_THAT(tp_overlap_exposed_s(TpOverlapMethod::bulk, 10e-3, 8e-3, 8, 132), WithinRel(2e-3, 1e-9));
  CHECK(streaming_multiprocessors(*find_gpu("h100-sxm")) == 132);
  CHECK(streaming_multiprocessors(*find_gpu("a100-80gb-sxm")) == 108);
}

TEST_CASE("overlap: Megatron's CP ring hides each K/V exchange under one ring step's attention, not the GEMMs") {
  // transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py,
  // AttnFuncWithCPAndKVP2P.forward: at step i the rank posts the send/recv of the K/V chunk step
  // i + 1 needs, runs step i's attention, and waits for the chunk before step i + 1; the layer's
  // GEMMs need the attention's input or output and run outside the loop. With the load-balancing
  // split each of the cp steps computes the same area of the causal mask. CP 4, a 4 ms attention
  // core forward (1 ms a step) inside a 10 ms layer: three 1.5 ms exchanges leave 3 × 0.5 ms
  // exposed; backward, three 3 ms exchanges of K/V and dK/dV under 2 ms steps: 3 × 1 ms.
  WorkTime layer;
  layer.forward_s = 10e-3;
  layer.backward_input_s = 20e-3;
  layer.attention_forward_s = 4e-3;
  layer.attention_backward_s = 8e-3;
  CpExposed ring = cp_exposed(CpComm::p2p, 4, 4.5e-3, 9e-3, 0, layer);
  CHECK_THAT(ring.forward_s, WithinRel(1.5e-3, 1e-9));
  CHECK_THAT(ring.backward_s, WithinRel(3e-3, 1e-9));
  // Exchanges shorter than a step hide entirely; a longer layer (more GEMM time) hides no more.
  ring = cp_exposed(CpComm::p2p, 4, 2.4e-3, 4.8e-3, 0, layer);
  CHECK(ring.forward_s == 0.0);
  CHECK(ring.backward_s == 0.0);
  layer.forward_s = 100e-3;
  layer.backward_input_s = 200e-3;
  CHECK_THAT(cp_exposed(CpComm::p2p, 4, 4.5e-3, 9e-3, 0, layer).forward_s, WithinRel(1.5e-3, 1e-9));
  // Ulysses (flash_attn_a2a_communicate): each all-to-all is waited for before or after the
  // attention core, with nothing of the layer beside it.
  const CpExposed ulysses = cp_exposed(CpComm::all_to_all, 4, 4.5e-3, 9e-3, 0, layer);
  CHECK(ulysses.forward_s == 4.5e-3);
  CHECK(ulysses.backward_s == 9e-3);
}

TEST_CASE("overlap: tp_comm_overlap hides TP communication under the GEMMs with SP, and is not applied without") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 512;
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.vpp = 5;
  l.dp = 2;
  l.sp = true;
  auto plain = estimate_step(m, w, l, *cluster, router);
  w.tp_comm_overlap = true;
  auto overlapped = estimate_step(m, w, l, *cluster, router);
  REQUIRE((plain && overlapped));
  // Each of a layer's eight SP collectives (480 µs for 128 MiB over NVLink in docs/estimate.md's
  // worked example) runs under a GEMM of a few ms: most of it hides; the pipelined and bulk GEMMs'
  // 16-SM margin (16/116 of their time) remains.
  CHECK(overlapped->breakdown.tp_exposed_s < 0.5 * plain->breakdown.tp_exposed_s);
  CHECK(overlapped->breakdown.tp_exposed_s > 0);
  CHECK(overlapped->step_time_s < plain->step_time_s);
  CHECK(states(*overlapped, "tp_comm_overlap: TP all-gathers and reduce-scatters in chunks"));
  CHECK(states(*overlapped, "132 SMs"));
  // Megatron-LM asserts --sequence-parallel for --tp-comm-overlap: without SP nothing changes and
  // the assumptions say why.
  l.sp = false;
  auto no_sp = estimate_step(m, w, l, *cluster, router);
  w.tp_comm_overlap = false;
  auto no_sp_plain = estimate_step(m, w, l, *cluster, router);
  REQUIRE((no_sp && no_sp_plain));
  CHECK(no_sp->step_time_s == no_sp_plain->step_time_s);
  CHECK(states(*no_sp, "tp_comm_overlap not applied"));
}

TEST_CASE("overlap: Megatron's DP buckets — the last gradient bucket and the first parameter bucket stay exposed") {
  // megatron/core/distributed/param_and_grad_buffer.py: gradients live in buckets of
  // max(40,000,000, 1,000,000 × DP) parameters. With overlap_grad_reduce a bucket's
  // reduce-scatter starts when the last micro-batch's backward has produced its gradients, so
  // the last bucket's (the first layers', produced last) is issued as the backward ends and is
  // exposed whole; when the backward is long enough to hide the others, exposed = one bucket's
  // reduce-scatter. With overlap_param_gather, the forward pre-hook of the first bucket's module
  // waits for its all-gather and dispatches the next: exposed = one bucket's all-gather. Without
  // either, every bucket's collective is exposed (finish_grad_sync after the backward,
  // start_param_sync(force_sync) after the optimizer step).
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-8b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 256;
  w.zero_stage = 1;
  Layout l;
  l.tp = 8;
  l.dp = 8;
  l.sp = true;
  l.micro_batch = 4;  // a long backward window: 4 × 8,192 tokens
  auto none = estimate_step(m, w, l, *cluster, router);
  w.overlap_grad_reduce = true;
  auto grads = estimate_step(m, w, l, *cluster, router);
  w.overlap_param_gather = true;
  auto both = estimate_step(m, w, l, *cluster, router);
  REQUIRE((none && grads && both));
  const PlannedCollective& rs = dp_collective(*none, CollectiveOp::reduce_scatter);
  const PlannedCollective& ag = dp_collective(*none, CollectiveOp::all_gather);
  REQUIRE(rs.count_per_step > 2);  // several buckets: 8B / 8 TP ranks over 40M-parameter buckets
  CHECK_THAT(none->breakdown.dp_exposed_s, WithinRel(rs.time_per_step_s() + ag.time_per_step_s(), 1e-9));
  // What is hidden still takes NCCL's 16 channels' SMs of H100 SXM's 132 from the compute under it
  // (one thread block per channel, src/enqueue.cc).
  const double sm_share = 16.0 / 132.0;
  CHECK_THAT(grads->breakdown.dp_exposed_s,
             WithinRel(rs.time_s + ag.time_per_step_s() + (rs.time_per_step_s() - rs.time_s) * sm_share, 1e-9));
  CHECK_THAT(both->breakdown.dp_exposed_s,
             WithinRel(rs.time_s + ag.time_s +
                           (rs.time_per_step_s() - rs.time_s + ag.time_per_step_s() - ag.time_s) * sm_share,
                       1e-9));
  CHECK(states(*both, "NCCL kernels take 16 SMs of 132"));
  CHECK(states(*grads, "the last bucket is exposed"));
  CHECK(states(*both, "the first bucket is exposed"));
  // Without the distributed optimizer (zero=0) there is no parameter gather to overlap: said so.
  w.zero_stage = 0;
  auto ddp = estimate_step(m, w, l, *cluster, router);
  REQUIRE(ddp);
  CHECK(states(*ddp, "overlap_param_gather not applied"));
}

TEST_CASE("overlap: FSDP re-gathers for the backward only the blocks torchtitan's policy reshards") {
  // torchtitan apply_fsdp: reshard_after_forward "default" = every block but the last without
  // PP, none with PP; "always"/"never" as named. One forward all-gather per block and
  // micro-batch, plus one in backward for each resharded block (no recompute here).
  auto cluster = generate_cluster("dgx-h100:nodes=2");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-8b");  // 32 layers
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.zero_stage = 3;
  w.recompute = RecomputeMode::none;
  Layout l;
  l.dp = 16;
  const auto gathers = [&](ReshardAfterForward policy, const Layout& layout) {
    TrainingWorkload v = w;
    v.reshard_after_forward = policy;
    auto e = estimate_step(m, v, layout, *cluster, router);
    REQUIRE(e);
    const double micro_batches = static_cast<double>(e->micro_batches);
    return dp_collective(*e, CollectiveOp::all_gather).count_per_step / micro_batches;
  };
  CHECK(gathers(ReshardAfterForward::always, l) == 64);
  CHECK(gathers(ReshardAfterForward::torchtitan_default, l) == 63);
  CHECK(gathers(ReshardAfterForward::never, l) == 32);
  Layout piped = l;
  piped.pp = 2;
  piped.dp = 8;
  CHECK(gathers(ReshardAfterForward::torchtitan_default, piped) == 16);  // 16 blocks per stage, none resharded
  // Prefetch issues the next block's all-gather under this block's compute; without it every
  // all-gather waits, so the step can only grow.
  auto prefetched = estimate_step(m, w, l, *cluster, router);
  w.fsdp_prefetch = false;
  auto waiting = estimate_step(m, w, l, *cluster, router);
  REQUIRE((prefetched && waiting));
  CHECK(waiting->breakdown.dp_exposed_s > prefetched->breakdown.dp_exposed_s);
  CHECK(states(*waiting, "no prefetch"));
}

TEST_CASE("overlap: FSDP2 copies each gathered block out and each block's gradients into the reduce-scatter input") {
  // torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py: foreach_all_gather_copy_out runs
  // split_with_sizes_copy on the current stream after the all-gather's wait (the unsharded block
  // read and written once), foreach_reduce runs chunk_cat into the reduce_dtype buffer on the
  // current stream before the reduce-scatter stream waits for it (the bf16 gradients read, the
  // fp32 input written).
  CHECK(fsdp2_copy_bytes(3, 100, 400, 0.5) == 3 * 200 + 400 + 200);
  auto cluster = generate_cluster("hgx-h200");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3-8b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 8;
  REQUIRE(apply_training_convention(w, "megatron"));  // bf16 parameters, fp32 gradients (FSDP2's reduce_dtype)
  w.zero_stage = 3;
  w.recompute = RecomputeMode::none;
  Layout l;
  l.dp = 8;
  w.memory_framework = MemoryFramework::fsdp2;
  auto fsdp2 = estimate_step(m, w, l, *cluster, router);
  w.memory_framework = MemoryFramework::generic;
  auto generic = estimate_step(m, w, l, *cluster, router);
  REQUIRE((fsdp2 && generic));
  // Llama 3 8B: 8.03 B parameters over 32 blocks (the plan gives each block an even share of the
  // stage's parameters, embedding and LM head included: 8,030,261,248 / 32, the size torchtitan's
  // log prints); one micro-batch; 32 forward gathers and 31 backward re-gathers (torchtitan's
  // default reshards every block but the last), 32 reduce-scatters. Bytes: 63 · 2 · 2 B and
  // 32 · (4 + 2) B per block parameter, at 70 % of the H200's 4.8 TB/s.
  const double block = 8030261248.0 / 32;
  const double bytes = 63 * 2 * 2 * block + 32 * 6 * block;
  const double expected_s = bytes / (4.8e12 * 0.7);
  CHECK_THAT(fsdp2->breakdown.dp_exposed_s - generic->breakdown.dp_exposed_s, WithinRel(expected_s, 0.05));
  CHECK(states(*fsdp2, "FSDP2's all-gather copy-out and reduce-scatter copy-in"));
  CHECK_FALSE(states(*generic, "copy-out"));
}

TEST_CASE("search: tp_comm_overlap is a dimension where TP > 1 with SP, and only there") {
  auto cluster = generate_cluster("dgx-h100:nodes=4");
  REQUIRE(cluster);
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 256;
  SearchOptions options;
  options.top = 400;
  options.space.recompute = {RecomputeMode::selective};
  options.space.zero_stages = {1};
  auto r = rank_layouts(*model_preset("llama3.1-70b"), w, *cluster, options);
  REQUIRE(r);
  bool with = false, without = false;
  for (const auto& l : r->layouts) {
    if (!l.layout.sp || l.layout.tp == 1) CHECK_FALSE(l.tp_comm_overlap);
    if (l.layout.tp > 1 && l.layout.sp) (l.tp_comm_overlap ? with : without) = true;
  }
  CHECK(with);
  CHECK(without);
}

// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm, combined_1f1b.py): the passes
// the warm-up leaves without a partner, as schedules.py counts them for the first rank.
TEST_CASE("overlap: ep_comm_overlap pairs the steady state's passes and hides their EP all-to-alls") {
  CHECK(ep_overlap_paired_share(1, 1, 64) == Approx(1 - 1.0 / 64));              // no pipeline: the first forward
  CHECK(ep_overlap_paired_share(16, 1, 128) == Approx(1 - 16.0 / 128));          // 1F1B: p
  CHECK(ep_overlap_paired_share(4, 4, 64) == Approx(1 - (6.0 + 12 + 1) / 256));  // 2(p − 1) + (v − 1)p + 1
  CHECK(ep_overlap_paired_share(8, 1, 4) == 0);                                  // all warm-up

  // Qwen3-30B-A3B with EP 8 on one DGX H100 node, 16 micro-batches: the exposed EP time falls, and
  // never below what exceeds the partner's compute; the assumptions say which share was paired.
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 128;
  Layout l;
  l.dp = 8;
  l.ep = 8;
  auto cluster = generate_cluster("dgx-h100");
  REQUIRE(cluster);
  const Router router(*cluster);
  const auto off = estimate_step(m, w, l, *cluster, router);
  w.ep_comm_overlap = true;
  const auto on = estimate_step(m, w, l, *cluster, router);
  REQUIRE(off);
  REQUIRE(on);
  REQUIRE(off->breakdown.ep_exposed_s > 0);
  CHECK(on->breakdown.ep_exposed_s < off->breakdown.ep_exposed_s);
  CHECK(on->breakdown.ep_exposed_s >= 0);
  CHECK(on->breakdown.ep_exposed_s >= off->breakdown.ep_exposed_s / 16 * 0.999);  // the unpaired pass
  // Every paired all-to-all hides whole (one layer's is shorter than the partner's compute), and its
  // NCCL kernels hold one SM per channel (16) of the H100's 132 while it does: the unpaired pass's
  // share, plus 16/132 of the hidden 15/16.
  const double sms = 132;  // H100 SXM5: 132 SMs (NVIDIA H100 whitepaper, Table 3)
  CHECK(on->breakdown.ep_exposed_s == Approx(off->breakdown.ep_exposed_s * (1.0 / 16 + 15.0 / 16 * 16 / sms)));
  // The flex dispatcher's DeepEP kernels take Megatron-Core's moe_deepep_num_sms, 20.
  w.moe_dispatcher = MoeDispatcher::flex;
  const auto flex_on = estimate_step(m, w, l, *cluster, router);
  w.ep_comm_overlap = false;
  const auto flex_off = estimate_step(m, w, l, *cluster, router);
  REQUIRE(flex_on);
  REQUIRE(flex_off);
  CHECK(flex_on->breakdown.ep_exposed_s ==
        Approx(flex_off->breakdown.ep_exposed_s * (1.0 / 16 + 15.0 / 16 * 20 / sms)));
  CHECK(on->step_time_s < off->step_time_s);
  CHECK(std::any_of(on->assumptions.begin(), on->assumptions.end(),
                    [](const std::string& a) { return a.find("combined 1F1B pairs") != std::string::npos; }));
}
