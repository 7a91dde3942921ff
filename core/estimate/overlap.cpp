#include "core/estimate/overlap.hpp"

#include "core/memory/memory.hpp"

#include <algorithm>
#include <string>

namespace meshscope {

TpOverlapGemms tp_overlap_gemms(const std::vector<OperationCost>& operations) {
  TpOverlapGemms g;
  bool moe = false;
  const auto starts = [](const std::string& name, const char* prefix) { return name.rfind(prefix, 0) == 0; };
  for (const OperationCost& op : operations) {
    if (starts(op.name, "moe: ")) moe = true;
    if (starts(op.name, "attention: ")) {
      // The attention core (FlashAttention or the stored-score kernels) is not a TE linear layer.
      if (op.name.find("core") != std::string::npos || op.name.find("scores") != std::string::npos) continue;
      if (op.name.find("output projection") != std::string::npos) {
        g.proj_fprop_s += op.forward_s;
        g.proj_dgrad_s += op.backward_input_s;
      } else {  // QKV, or MLA's q/kv down- and up-projections
        g.qkv_fprop_s += op.forward_s;
        g.qkv_wgrad_s += op.backward_weight_s;
      }
    } else if (starts(op.name, "mlp: ")) {
      if (op.name.find("down projection") != std::string::npos || op.name.find("second linear") != std::string::npos) {
        g.fc2_fprop_s += op.forward_s;
        g.fc2_dgrad_s += op.backward_input_s;
      } else {
        g.fc1_fprop_s += op.forward_s;
        g.fc1_wgrad_s += op.backward_weight_s;
      }
    }
  }
  g.mlp_overlapped = !moe;
  return g;
}

double tp_overlap_exposed_s(TpOverlapMethod method, double comm_s, double gemm_s, int64_t tp, double sms,
                            const TpOverlapDefaults& defaults) {
  // TE transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp, CommOverlapCore:
  // _math_sms = set_sm_margin ? sm_count − num_comm_sm : sm_count; the GEMM runs on _math_sms.
  const auto comm_sms = static_cast<double>(defaults.comm_sms);
  const double margin_gemm_s = sms > comm_sms ? gemm_s * sms / (sms - comm_sms) : gemm_s;
  switch (method) {
    case TpOverlapMethod::ring_exchange: {
      // CommOverlapP2PBase::split_overlap_ag: tp steps, each a GEMM on one tp-th of the input
      // while the next tp-th arrives from the ring neighbour (tp − 1 exchanges of comm/(tp − 1)).
      if (tp < 2) return 0.0;
      const auto n = static_cast<double>(tp);
      const double total = gemm_s / n + (n - 1) * std::max(gemm_s / n, comm_s / (n - 1));
      return total - gemm_s;
    }
    case TpOverlapMethod::pipeline: {
      // CommOverlapBase::split_overlap_rs: k GEMM chunks; chunk i's reduce-scatter runs under
      // chunk i + 1's GEMM, and the last chunk's after it.
      const auto k = static_cast<double>(std::max<int64_t>(defaults.pipeline_splits, 1));
      const double total = margin_gemm_s / k + (k - 1) * std::max(margin_gemm_s / k, comm_s / k) + comm_s / k;
      return total - gemm_s;
    }
    case TpOverlapMethod::bulk:
      // CommOverlapBase::bulk_overlap: the collective and the GEMM run side by side.
      return std::max(margin_gemm_s, comm_s) - gemm_s;
  }
  return comm_s;
}

TpLayerCost tp_overlapped_layer(const TpOverlapGemms& g, double all_gather_s, double reduce_scatter_s, int64_t tp,
                                double sms) {
  using M = TpOverlapMethod;
  const auto cost = [&](M method, double comm_s, double gemm_s) {
    return tp_overlap_exposed_s(method, comm_s, gemm_s, tp, sms);
  };
  TpLayerCost c;
  c.forward_s =
      cost(M::ring_exchange, all_gather_s, g.qkv_fprop_s) + cost(M::pipeline, reduce_scatter_s, g.proj_fprop_s);
  c.backward_s = cost(M::ring_exchange, all_gather_s, g.proj_dgrad_s) + cost(M::bulk, reduce_scatter_s, g.qkv_wgrad_s);
  if (g.mlp_overlapped) {
    c.forward_s +=
        cost(M::ring_exchange, all_gather_s, g.fc1_fprop_s) + cost(M::pipeline, reduce_scatter_s, g.fc2_fprop_s);
    c.backward_s +=
        cost(M::ring_exchange, all_gather_s, g.fc2_dgrad_s) + cost(M::bulk, reduce_scatter_s, g.fc1_wgrad_s);
  } else {
    c.forward_s += all_gather_s + reduce_scatter_s;
    c.backward_s += all_gather_s + reduce_scatter_s;
  }
  return c;
}

double streaming_multiprocessors(const GpuSpec& gpu) {
  return gpu.streaming_multiprocessors;  // the catalogue's "sms", with its source (resources/gpus.json)
}

double nccl_sm_slowdown_s(double hidden_s, int64_t channels, double sms) {
  if (sms <= 0 || hidden_s <= 0 || channels <= 0) return 0.0;
  return hidden_s * std::min(1.0, static_cast<double>(channels) / sms);
}

int64_t ep_kernel_sms(const TrainingWorkload& workload) {
  return workload.moe_dispatcher == MoeDispatcher::flex ? 20 : workload.runtime.nccl_channels;
}

CpExposed cp_exposed(CpComm impl, int64_t cp, double forward_s, double backward_s, double exchange_s,
                     const WorkTime& layer) {
  const auto steps = static_cast<double>(cp);
  switch (impl) {
    case CpComm::torch: {
      const double step_backward = layer.attention_backward_s / steps;
      return {std::max(0.0, forward_s - layer.attention_forward_s / steps),
              std::max(0.0, backward_s - step_backward) + (steps - 1) * std::max(0.0, exchange_s - step_backward) +
                  exchange_s};
    }
    case CpComm::all_to_all:
      // Ulysses: Q, K and V are exchanged before the attention core and its output after it, and
      // the same in backward; nothing of the layer is left to run beside them (Transformer Engine
      // flash_attn_a2a_communicate waits for each all-to-all before the attention; DeepSpeed-
      // Ulysses, Jacobs et al. 2023 §3): all of it is exposed.
      return {forward_s, backward_s};
    case CpComm::automatic:
    case CpComm::p2p:
      break;
  }
  // Transformer Engine's ring (AttnFuncWithCPAndKVP2P): at step i the rank posts the send/recv of
  // the K/V chunk step i + 1 needs, then runs step i's attention, and waits for the chunk before
  // step i + 1. So each of the cp − 1 exchanges hides only under one step's share of the attention
  // core — 1/cp of it: with the load-balancing split every step computes the same area of the
  // causal mask — and never under the layer's GEMMs, which need the attention's input or output.
  // Backward the same with K/V and dK/dV together. `forward_s` / `backward_s` are the layer's
  // cp − 1 exchanges of each pass.
  const double exchanges = steps - 1;
  if (exchanges <= 0) return {};
  return {exchanges * std::max(0.0, forward_s / exchanges - layer.attention_forward_s / steps),
          exchanges * std::max(0.0, backward_s / exchanges - layer.attention_backward_s / steps)};
}

EpExposed ep_exposed(double each_s, double forward_compute_s, double backward_compute_s, double paired_share,
                     int64_t kernel_sms, double sms) {
  const double forward = paired_share * std::max(0.0, each_s - backward_compute_s) + (1 - paired_share) * each_s;
  const double backward = paired_share * std::max(0.0, each_s - forward_compute_s) + (1 - paired_share) * each_s;
  return {forward + nccl_sm_slowdown_s(each_s - forward, kernel_sms, sms),
          backward + nccl_sm_slowdown_s(each_s - backward, kernel_sms, sms)};
}

double bucketed_exposed_s(double total_s, double edge_bucket_s, double window_s) {
  return std::min(total_s, std::max(edge_bucket_s, total_s - window_s));
}

double fsdp2_copy_bytes(double gathers, double gathered_bytes, double reduce_bytes, double param_over_reduce) {
  return gathers * 2.0 * gathered_bytes + reduce_bytes * (1.0 + param_over_reduce);
}

double fsdp2_copy_s(const TrainingWorkload& w, double gathers, double gathered_bytes, double reduce_bytes,
                    double memory_bytes_per_s) {
  if (resolved_framework({}, w) != MemoryFramework::fsdp2) return 0.0;
  return fsdp2_copy_bytes(gathers, gathered_bytes, reduce_bytes,
                          dtype_bytes(w.param_dtype) / dtype_bytes(w.grad_dtype)) /
         memory_bytes_per_s;
}

double fsdp_exposed_s(const FsdpBlock& b, double blocks_per_step, bool prefetch) {
  const double forward_comm = b.forward_gathers * b.all_gather_s;
  const double backward_gather = b.backward_gathers * b.all_gather_s;
  if (!prefetch) {
    // Every all-gather waits; the reduce-scatters still run under the next block's backward.
    return blocks_per_step *
               (forward_comm + backward_gather + std::max(0.0, b.reduce_scatter_s - b.backward_compute_s)) +
           b.reduce_scatter_s;
  }
  const double forward = std::max(0.0, forward_comm - b.forward_compute_s);
  const double backward = std::max(0.0, backward_gather + b.reduce_scatter_s - b.backward_compute_s);
  return blocks_per_step * (forward + backward) + b.all_gather_s + b.reduce_scatter_s;
}

double ep_overlap_paired_share(int64_t pp, int64_t vpp, int64_t micro_batches) {
  const auto p = static_cast<double>(std::max<int64_t>(pp, 1)), v = static_cast<double>(std::max<int64_t>(vpp, 1));
  const double passes = static_cast<double>(std::max<int64_t>(micro_batches, 1)) * v;
  const double unpaired = pp <= 1 ? 1.0 : (vpp > 1 ? 2 * (p - 1) + (v - 1) * p + 1 : p);
  return std::max(0.0, 1.0 - unpaired / passes);
}

}  // namespace meshscope
