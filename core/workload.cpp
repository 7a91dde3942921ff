#include "core/workload.hpp"

namespace meshscope {

double ServingWorkload::weight_bytes_per_param() const {
  const double element = dtype_bytes(weight_dtype);
  // Group-wise integer quantisation (GPTQ/AWQ style) stores one fp16 scale per group of weights.
  if ((weight_dtype == DType::int4 || weight_dtype == DType::int8) && weight_group_size > 0)
    return element + 2.0 / static_cast<double>(weight_group_size);
  // NVFP4: one E4M3 scale per 16 elements (NVIDIA, "Pretraining Large Language Models with NVFP4",
  // 2025, §2; the per-tensor FP32 scale is negligible).
  if (weight_dtype == DType::fp4) return element + 1.0 / 16.0;
  return element;
}

bool apply_training_convention(TrainingWorkload& w, const std::string& name) {
  const DType half = w.compute_dtype == DType::fp16 ? DType::fp16 : DType::bf16;
  if (name == "zero") {  // Rajbhandari et al. SC20 §3.1: 2Ψ + 2Ψ + KΨ, K = 12
    w.param_dtype = half;
    w.grad_dtype = half;
    w.master_dtype = DType::fp32;
  } else if (name == "megatron" || name == "megatron-distopt") {
    // Megatron-LM keeps fp32 "main grads" (accumulate_allreduce_grads_in_fp32): 2 + 4 + 12.
    w.param_dtype = half;
    w.grad_dtype = DType::fp32;
    w.master_dtype = DType::fp32;
    // The distributed optimizer shards master weights and Adam state over DP (6 + 12/d bytes).
    w.zero_stage = name == "megatron-distopt" ? 1 : 0;
  } else if (name == "playbook-fp32") {  // Ultra-Scale Playbook: "FP32 or BF16 w/o FP32 grad acc"
    w.param_dtype = DType::fp32;
    w.grad_dtype = DType::fp32;
    w.master_dtype = std::nullopt;
  } else if (name == "playbook-bf16") {  // Ultra-Scale Playbook parallelism charts: 2 + 2 + 8
    w.param_dtype = DType::bf16;
    w.grad_dtype = DType::bf16;
    w.master_dtype = std::nullopt;
  } else {
    return false;
  }
  w.optimizer_state_dtype = DType::fp32;
  w.convention = name;
  return true;
}

std::string_view recompute_name(RecomputeMode mode) {
  return enum_name(mode);
}

std::string_view memory_framework_name(MemoryFramework framework) {
  return enum_name(framework);
}

std::string_view optimizer_name(Optimizer optimizer) {
  return enum_name(optimizer);
}

std::string_view reshard_after_forward_name(ReshardAfterForward policy) {
  return enum_name(policy);
}

bool reshards_after_forward(ReshardAfterForward policy, bool pipeline_parallel, bool last_block) {
  // torchtitan apply_fsdp: "default" is `False` with PP, else `layer_id < len(layers) - 1`.
  switch (policy) {
    case ReshardAfterForward::always:
      return true;
    case ReshardAfterForward::never:
      return false;
    case ReshardAfterForward::torchtitan_default:
      return !pipeline_parallel && !last_block;
  }
  return true;
}

}  // namespace meshscope
