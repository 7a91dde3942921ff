#pragma once
// The frameworks' communication/computation overlaps, as pure rules shared by estimate_step() and
// the ranked search's fast model: how much of each collective the compute it is scheduled under
// hides, and what the overlap itself costs. Each rule names the framework code it follows; the
// workload keys that switch them are in core/workload/workload.hpp (docs/cli.md, docs/estimate.md §2).
#include <cstdint>
#include <vector>

#include "core/estimate/compute.hpp"
#include "core/hardware/hardware.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

// Transformer Engine's userbuffer overlap (Megatron --tp-comm-overlap; TE
// transformer_engine/pytorch/module/base.py, initialize_ub): which method each GEMM of a
// transformer layer overlaps its sequence-parallel collective with, and the defaults of
// get_default_config: "ring_exchange" splits an all-gather into tp point-to-point steps, each
// under one tp-th of the GEMM, through copy engines (num_sm 1, no SM margin); "pipeline" splits
// the GEMM into num_splits = 4 chunks and reduce-scatters each chunk under the next one's GEMM
// (num_sm 16, set_sm_margin: the GEMM runs on the other SMs); "bulk" runs one whole collective
// under one whole GEMM (num_sm 16, set_sm_margin).
enum class TpOverlapMethod { ring_exchange, pipeline, bulk };
struct TpOverlapDefaults {
  int64_t pipeline_splits = 4;  // get_default_config: num_splits = 4 for "pipeline"
  int64_t comm_sms = 16;        // get_default_config: num_sm = 16 for "pipeline" and "bulk"
};

// The GEMMs of one layer, one micro-batch, one rank, that TE pairs with the layer's four forward
// and four backward sequence-parallel collectives (the core counts an all-gather and a
// reduce-scatter around attention and around the MLP, in forward and in backward):
//   forward:  AG → qkv_fprop (ring_exchange), RS → proj_fprop (pipeline),
//             AG → fc1_fprop (ring_exchange), RS → fc2_fprop (pipeline)
//   backward: AG → proj_dgrad (ring_exchange), RS → qkv_wgrad (bulk),
//             AG → fc2_dgrad (ring_exchange), RS → fc1_wgrad (bulk)
// A MoE layer's experts are grouped GEMMs outside TE's userbuffers: its MLP-side collectives are
// not overlapped (mlp_overlapped false).
struct TpOverlapGemms {
  double qkv_fprop_s = 0, proj_fprop_s = 0, fc1_fprop_s = 0, fc2_fprop_s = 0;
  double proj_dgrad_s = 0, qkv_wgrad_s = 0, fc2_dgrad_s = 0, fc1_wgrad_s = 0;
  bool mlp_overlapped = true;
};
// From a layer's operations (compute.hpp layer_operations): the attention GEMMs other than the
// output projection are "qkv", the dense MLP's first GEMM(s) "fc1" and its last "fc2".
[[nodiscard]] TpOverlapGemms tp_overlap_gemms(const std::vector<OperationCost>& operations);

// Seconds that one collective of `comm_s` costs the step beyond the GEMM of `gemm_s` it overlaps
// with, by method (the chunked timelines above), plus the GEMM's slowdown on the SMs the
// communication kernels take when the method sets an SM margin: gemm · sms / (sms − comm_sms).
[[nodiscard]] double tp_overlap_exposed_s(TpOverlapMethod method, double comm_s, double gemm_s, int64_t tp, double sms,
                                          const TpOverlapDefaults& defaults = {});

// What TP communication costs one layer, forward and backward, per micro-batch: with the overlap,
// the exposed remainders and the SM charge of the four collectives of each pass; without it,
// every collective (tp_layer_exposed below).
struct TpLayerCost {
  double forward_s = 0;
  double backward_s = 0;
};
[[nodiscard]] TpLayerCost tp_overlapped_layer(const TpOverlapGemms& gemms, double all_gather_s, double reduce_scatter_s,
                                              int64_t tp, double sms);

// Whether the schedule splits the backward into B and a W run later (zero bubble, Qi et al. 2024
// §2; DualPipe, DeepSeek-V3 §3.2.1): only with a pipeline.
[[nodiscard]] constexpr bool splits_backward(PipelineSchedule schedule, int64_t pp) {
  return pp > 1 && (schedule == PipelineSchedule::zb_h1 || schedule == PipelineSchedule::zb_h2 ||
                    schedule == PipelineSchedule::dualpipe);
}

// The GEMMs a TP overlap can hide under when the backward is split: a deferred W is not there for
// the bulk overlap of the backward's reduce-scatter, which Transformer Engine runs beside the
// same backward's weight-gradient GEMM (transformer_engine/pytorch/module/layernorm_linear.py,
// ub_bulk_wgrad: the dgrad reduce-scatter under the wgrad GEMM); so the reduce-scatter is exposed
// in B and W runs at the full SM count. (The zero-bubble implementation itself,
// sail-sg/zero-bubble-pipeline-parallelism WeightGradStore.is_supported, falls back to the
// unsplit schedule under Transformer Engine: "hard to capture weight gradient computation".)
[[nodiscard]] inline TpOverlapGemms without_deferred_wgrad(TpOverlapGemms gemms) {
  gemms.qkv_wgrad_s = 0;
  gemms.fc1_wgrad_s = 0;
  return gemms;
}

// Streaming multiprocessors (AMD: compute units) of a GPU, from the vendors' datasheets; 0 when
// unknown (then no SM margin can be charged, and the estimate says so).
[[nodiscard]] double streaming_multiprocessors(const GpuSpec& gpu);

// Megatron-Core's EP all-to-all overlap (--overlap-moe-expert-parallel-comm;
// megatron/core/pipeline_parallel/combined_1f1b.py): in the steady state each (micro-batch, chunk)
// forward runs beside another's backward on two streams, the forward's dispatch and combine under
// the backward's compute and the backward's under the forward's. The warm-up forwards and the
// cool-down backwards have no partner: of a rank's m·v forward passes the first rank's warm-up
// leaves 2(p − 1) + (v − 1)·p + 1 unpaired under the interleaved schedule (schedules.py, one more
// with the overlap), p under 1F1B, and one without pipelining. The share of forward (and of
// backward) passes that are paired: 1 − unpaired / (m·v), at least 0.
[[nodiscard]] double ep_overlap_paired_share(int64_t pp, int64_t vpp, int64_t micro_batches);

// Bucketed data-parallel collectives overlapped with a compute window (Megatron-Core
// megatron/core/distributed/param_and_grad_buffer.py): the buckets are issued one after another
// as the window's compute makes them ready, so what the window cannot hide is exposed, and at
// least the bucket issued when the window ends (the last gradient bucket, whose gradients are
// the backward's last; the first parameter bucket, which the forward's first layer waits for).
[[nodiscard]] double bucketed_exposed_s(double total_s, double edge_bucket_s, double window_s);

// FSDP (ZeRO-3) per block and micro-batch: the forward all-gather of each block, the backward's
// re-gather where the block was resharded after forward (and the recompute's, counted by the
// communication plan), and the gradient reduce-scatter. PyTorch FSDP2 (torch/distributed/fsdp/
// _fully_shard/_fsdp_param_group.py): reduce-scatters run on their own stream under the next
// block's backward; with prefetch the next block's all-gather is issued under this block's
// compute (implicitly in forward, explicitly one block ahead in backward), so per block only what
// exceeds the compute is exposed, plus the step's first all-gather and last reduce-scatter.
// Without prefetch every all-gather waits.
struct FsdpBlock {
  double forward_gathers = 1;   // all-gathers in forward (1)
  double backward_gathers = 1;  // re-gathers in backward (0 when not resharded; + recompute's)
  double all_gather_s = 0, reduce_scatter_s = 0;
  double forward_compute_s = 0, backward_compute_s = 0;  // the block's compute it runs under
};
[[nodiscard]] double fsdp_exposed_s(const FsdpBlock& block, double blocks_per_step, bool prefetch);

// FSDP2's copies on the compute stream (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py):
// after waiting for a block's all-gather, foreach_all_gather_copy_out splits the gathered buffer
// into the block's parameters (split_with_sizes_copy: the unsharded bytes read and written); before
// the reduce-scatter stream waits for it, foreach_reduce copies the block's gradients into the
// reduce-scatter input in reduce_dtype (chunk_cat: the gradients read in the parameter dtype, the
// input written in the reduce dtype). Both are memory-bound and serialised with the compute. The bytes moved by
// `gathers` all-gathers of `gathered_bytes` each (the unsharded block in the parameter dtype) and the reduce-scatters
// whose inputs total `reduce_bytes` (in the reduce dtype; the gradients they copy are read at `param_over_reduce` of
// that).
[[nodiscard]] double fsdp2_copy_bytes(double gathers, double gathered_bytes, double reduce_bytes,
                                      double param_over_reduce);
// Their seconds on the compute stream at `memory_bytes_per_s` where the workload's framework resolves
// to FSDP2 (parameters gathered in param_dtype, gradients reduced in grad_dtype); 0 otherwise.
[[nodiscard]] double fsdp2_copy_s(const TrainingWorkload& workload, double gathers, double gathered_bytes,
                                  double reduce_bytes, double memory_bytes_per_s);

// Collectives hidden under compute still run: NCCL launches one thread block per channel (src/
// enqueue.cc: the kernel's grid is the plan's channel count), each resident on an SM for the whole
// collective, and the compute they overlap runs on the remaining SMs. The compute time lost:
// hidden × min(channels, SMs) / SMs; 0 where the SM count is unknown.
[[nodiscard]] double nccl_sm_slowdown_s(double hidden_s, int64_t channels, double sms);

// The SMs the EP all-to-all kernels hold while they run: the flex dispatcher's DeepEP kernels
// Megatron-Core's moe_deepep_num_sms = 20 (TransformerConfig), NCCL's all-to-all one thread block per
// channel (the runtime's nccl_channels).
[[nodiscard]] int64_t ep_kernel_sms(const TrainingWorkload& workload);

// One MoE layer's exposed EP all-to-all time per pass, `each_s` being a pass's dispatch and combine.
// The `paired_share` of passes (DualPipe: all; Megatron's combined 1F1B: ep_overlap_paired_share)
// run theirs under the partner pass's compute — a forward's under a backward's, a backward's under
// a forward's — and expose only what exceeds it; the others expose all of it. What hides still
// holds `kernel_sms` of the GPU's `sms` from the compute it hides under (nccl_sm_slowdown_s).
struct EpExposed {
  double forward_s = 0, backward_s = 0;
};
[[nodiscard]] EpExposed ep_exposed(double each_s, double forward_compute_s, double backward_compute_s,
                                   double paired_share, int64_t kernel_sms, double sms);

// Context parallelism's communication exposed per layer and micro-batch (docs/estimate.md §2,
// CP), by implementation (`impl`, resolved): `forward_s` and `backward_s` the pass's collectives
// (under PyTorch's context_parallel its K/V all-gather), `exchange_s` one of PyTorch's cp dK/dV
// exchanges, `layer` the layer's compute. Megatron's ring (p2p): each of the cp − 1 exchanges
// beyond one ring step's attention (1/cp of the attention core). Ulysses (all_to_all): all of it.
// PyTorch's (torch): the all-gather beyond the first ring step's SDPA call (1/cp of the attention),
// each exchange beyond the next step's SDPA backward, and the last one — waited for after the
// loop — all of it.
struct CpExposed {
  double forward_s = 0, backward_s = 0;
};
[[nodiscard]] CpExposed cp_exposed(CpComm impl, int64_t cp, double forward_s, double backward_s, double exchange_s,
                                   const WorkTime& layer);

}  // namespace meshscope
