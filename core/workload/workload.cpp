#include "core/workload/workload.hpp"

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

std::string recompute_modules_text(uint32_t modules) {
  std::string text;
  for (const auto& [module, name] : EnumNames<RecomputeModule>::table) {
    if ((modules & recompute_bit(module)) == 0) continue;
    if (!text.empty()) text += '+';
    text += name;
  }
  return text.empty() ? "none" : text;
}

std::optional<uint32_t> parse_recompute_modules(std::string_view text, std::string* bad) {
  if (text == "none") return 0U;
  uint32_t modules = 0;
  while (true) {
    const size_t plus = text.find('+');
    const std::string_view name = text.substr(0, plus);
    const auto module = parse_enum<RecomputeModule>(name);
    if (!module) {
      if (bad != nullptr) *bad = std::string(name);
      return std::nullopt;
    }
    modules |= recompute_bit(*module);
    if (plus == std::string_view::npos) return modules;
    text.remove_prefix(plus + 1);
  }
}

bool recomputes_module(const TrainingWorkload& workload, RecomputeModule module) {
  return workload.recompute == RecomputeMode::selective && (workload.recompute_modules & recompute_bit(module)) != 0;
}

bool recomputes_layer_mlp(const TrainingWorkload& workload, bool moe_layer) {
  return recomputes_module(workload, moe_layer ? RecomputeModule::moe : RecomputeModule::mlp);
}

double moe_routed_rows_factor(const TrainingWorkload& workload) {
  return workload.moe_capacity_factor > 0 ? workload.moe_capacity_factor : 1.0;
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

// Whether the layer's linear projections run as FP8 GEMMs: Transformer Engine's fp8_autocast
// covers the Linear/LayerNormLinear/LayerNormMLP modules of each transformer layer; attention
// (DotProductAttention without fp8_dpa), the MoE router and the output layer (LM head, outside the
// autocast in Megatron-LM's GPTModel) stay in BF16 (TE docs, "Using FP8 with Transformer Engine";
// Megatron-LM megatron/core/models/gpt/gpt_model.py). The same holds for NVFP4 (TE's
// NVFP4BlockScaling recipe: the linear layers' forward, input- and weight-gradient GEMMs in FP4;
// attention and the LM head in BF16).
bool fp8_linears(const TrainingWorkload& w) {
  return w.compute_dtype == DType::fp8 || w.compute_dtype == DType::fp4;
}

// FP8 with per-tensor scales: 1 byte; MXFP8 one E8M0 scale byte per 32 elements (OCP Microscaling
// Formats v1.0, §5: block size 32, 8-bit shared scale); blockwise FP8 one fp32 scale per 128 (the
// 1×128 activation tiles of DeepSeek-V3 §3.3.1, Transformer Engine's Float8BlockScaling); NVFP4 half
// a byte and one E4M3 scale per 16 elements (NVIDIA, "Pretraining Large Language Models with NVFP4",
// 2025, §2).
double low_precision_operand_bytes(DType type, Fp8Recipe recipe) {
  if (type == DType::fp4) return 0.5 + 1.0 / 16.0;
  if (type == DType::fp8 && recipe == Fp8Recipe::mxfp8) return 1.0 + 1.0 / 32.0;
  if (type == DType::fp8 && recipe == Fp8Recipe::blockwise) return 1.0 + 4.0 / 128.0;
  return dtype_bytes(type);
}

// Transformer Engine casts a linear layer's input before its sequence-parallel all-gather and
// gathers the quantised tensor (module/layernorm_linear.py and linear.py, "Cast to expected dtype
// and perform tensor-parallel communication": gather_along_first_dim(..., quantizer=...), and
// Userbuffers' FP8 buffers under tp_comm_overlap); in backward the output gradient likewise
// (base.py grad_output_preprocess: "gathered grad_output in FP8"). torchao's float8 tensor
// parallelism (Float8ColwiseParallel, what torchtitan applies) casts before the gather too. The
// reduce-scatters carry the GEMMs' 16-bit outputs.
double tp_gather_element_bytes(const TrainingWorkload& workload) {
  if (fp8_linears(workload)) return low_precision_operand_bytes(workload.compute_dtype, workload.fp8_recipe);
  return dtype_bytes(workload.activation_dtype);
}

}  // namespace meshscope
