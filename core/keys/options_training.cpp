// The --train keys: one row per key of the training workload (the table's machinery:
// options_rows.hpp). docs/cli.md's --train table is printed from these rows.
#include <type_traits>
#include <utility>

#include "core/keys/options_rows.hpp"

namespace meshscope::key_rows {
namespace {

// A boolean field of the training workload.
template <bool TrainingWorkload::*Field>
TrainingRow training_bool(KeyInfo info, bool shown = true) {
  info.type = KeyType::boolean;
  return {std::move(info),
          0,
          0,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = p.boolean;
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return fmt_bool(w.*Field); },
          shown};
}

// A dtype field of the training workload.
template <DType TrainingWorkload::*Field>
TrainingRow training_dtype(KeyInfo info, bool shown = true) {
  info.type = KeyType::dtype;
  info.choices = {"fp32", "bf16", "fp16", "fp8"};  // what training stores; parse_dtype reads int8/int4 too
  return {std::move(info),
          0,
          0,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = p.dtype;
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return dtype_text(w.*Field); },
          shown};
}

// An integer field (int64_t or int) of at least `min`, and at most `max` when max > min.
template <auto Field>
TrainingRow training_integer(KeyInfo info, double min, double max = 0, std::string_view expected = "") {
  using Value = std::remove_reference_t<decltype(std::declval<TrainingWorkload&>().*Field)>;
  info.type = KeyType::integer;
  return {std::move(info),
          min,
          max,
          expected,
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = static_cast<Value>(p.integer);
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return std::to_string(w.*Field); }};
}

// A number field in [min, max].
template <double TrainingWorkload::*Field>
TrainingRow training_number(KeyInfo info, double min, double max) {
  info.type = KeyType::number;
  return {std::move(info),
          min,
          max,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = p.number;
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return fmt_double(w.*Field); }};
}

// An enum field, its choices and names from its EnumNames table.
template <auto Field>
TrainingRow training_choice(KeyInfo info, bool shown = true) {
  using Value = std::remove_cvref_t<decltype(std::declval<TrainingWorkload&>().*Field)>;
  info.type = KeyType::choice;
  info.choices = names_of<Value>();
  return {std::move(info),
          0,
          0,
          "",
          [](TrainingWorkload& w, const Parsed& p) {
            w.*Field = *parse_enum<Value>(p.text);  // apply_row checked it against the choices
            return ok();
          },
          [](const TrainingWorkload& w) -> Get { return std::string(enum_name(w.*Field)); },
          shown};
}

// convention=: sets the dtypes of the named convention (workload.hpp apply_training_convention).
Result<bool> apply_convention(TrainingWorkload& w, const Parsed& p) {
  if (!apply_training_convention(w, p.text))
    return p.bad("zero, megatron, megatron-distopt, playbook-fp32 or playbook-bf16");
  return ok();
}
// The convention last applied, by name.
Get convention_text(const TrainingWorkload& w) {
  return w.convention;
}

// What a step trains on: the dtype convention, the sequence and the batch.
void add_step_rows(std::vector<TrainingRow>& rows) {
  rows.push_back({{"convention",
                   "",
                   KeyType::choice,
                   {"zero", "megatron", "megatron-distopt", "playbook-fp32", "playbook-bf16"},
                   "",
                   "",
                   "`megatron-distopt`",
                   "sets the dtypes below (see [conventions](conventions.md)); applied before every other key",
                   "ZeRO (Rajbhandari et al. SC20 §3.1), Megatron-LM's fp32 main grads and distributed optimizer, the "
                   "Ultra-Scale Playbook"},
                  0,
                  0,
                  "",
                  apply_convention,
                  convention_text});
  rows.push_back(training_integer<&TrainingWorkload::seq_len>(
      {"seq", "seq_len", {}, {}, "", "tokens", "4096", "sequence length", ""}, 1));
  rows.push_back(training_integer<&TrainingWorkload::global_batch>({"global_batch",
                                                                    "gbs",
                                                                    {},
                                                                    {},
                                                                    "",
                                                                    "sequences",
                                                                    "512",
                                                                    "sequences per optimizer step",
                                                                    "Megatron-LM `--global-batch-size`"},
                                                                   1));
}

// precision=: the GEMM precision, and the parameter (and a 16-bit gradient) dtype to match.
Result<bool> apply_precision(TrainingWorkload& w, const Parsed& p) {
  const DType v = p.text == "nvfp4" ? DType::fp4 : *parse_dtype(p.text);
  w.compute_dtype = v;
  w.param_dtype = v == DType::fp16 ? DType::fp16 : DType::bf16;
  if (w.grad_dtype != DType::fp32) w.grad_dtype = w.param_dtype;
  return ok();
}
// nvfp4 for FP4, otherwise the dtype's name.
Get precision_text(const TrainingWorkload& w) {
  return w.compute_dtype == DType::fp4 ? std::string("nvfp4") : dtype_text(w.compute_dtype);
}

// master=: a dtype, or none (the optimizer updates the weights in place).
Result<bool> apply_master(TrainingWorkload& w, const Parsed& p) {
  if (p.text == "none") {
    w.master_dtype = std::nullopt;
    return ok();
  }
  const auto type = parse_dtype(p.text);
  if (!type) return p.bad("fp32, bf16, fp16, fp8, int8 or int4");
  w.master_dtype = *type;
  return ok();
}
// The master copy's dtype, or none.
Get master_text(const TrainingWorkload& w) {
  return w.master_dtype ? dtype_text(*w.master_dtype) : std::string("none");
}

// Precision: the GEMMs' and the storage dtypes of weights, gradients and the master copy (docs/conventions.md).
void add_precision_rows(std::vector<TrainingRow>& rows) {
  rows.push_back({{"precision",
                   "",
                   KeyType::choice,
                   {"bf16", "fp16", "fp8", "nvfp4"},
                   "",
                   "",
                   "`bf16`",
                   "GEMM precision of the transformer layers' linear layers (fp8, nvfp4: mixed, weights stay "
                   "16-bit; attention, router and LM head in BF16); sets the parameter dtype (and a 16-bit gradient "
                   "dtype) to match. fp8 needs FP8 tensor cores (Hopper, Ada, Blackwell, MI300), nvfp4 FP4 ones "
                   "(Blackwell)",
                   "Transformer Engine FP8 recipes (Micikevicius et al. 2022); NVFP4: TE NVFP4BlockScaling, Megatron "
                   "--fp4-format e2m1 (NVIDIA, Pretraining LLMs with NVFP4, 2025)"},
                  0,
                  0,
                  "bf16, fp16, fp8 or nvfp4 (mixed precision)",
                  apply_precision,
                  precision_text});
  rows.push_back(training_dtype<&TrainingWorkload::param_dtype>(
      {"param_dtype", "", {}, {}, "", "", "from the convention", "storage of the weights", "docs/conventions.md"}));
  rows.push_back(training_dtype<&TrainingWorkload::grad_dtype>(
      {"grad_dtype",
       "",
       {},
       {},
       "",
       "",
       "from the convention",
       "storage of the gradient buffer (Megatron-LM's fp32 main grads: fp32)",
       "docs/conventions.md"}));
  rows.push_back({{"master",
                   "",
                   KeyType::text,
                   {"fp32", "none"},
                   "a dtype, or `none`",
                   "",
                   "from the convention",
                   "the optimizer's master copy of the weights (`none`: the optimizer updates the weights in place)",
                   "docs/conventions.md"},
                  0,
                  0,
                  "",
                  apply_master,
                  master_text});
}

// optimizer=: adam and adamw keep two moments, sgd one.
Result<bool> apply_optimizer(TrainingWorkload& w, const Parsed& p) {
  w.optimizer = p.text == "sgd" ? Optimizer::sgd_momentum : Optimizer::adam;
  return ok();
}
// The optimizer, by name.
Get optimizer_text(const TrainingWorkload& w) {
  return std::string(optimizer_name(w.optimizer));
}

// The optimizer and how ZeRO shards its state.
void add_optimizer_rows(std::vector<TrainingRow>& rows) {
  rows.push_back({{"optimizer",
                   "",
                   KeyType::choice,
                   {"adam", "adamw", "sgd"},
                   "",
                   "",
                   "`adam`",
                   "Adam keeps 2 moments per parameter, SGD with momentum 1",
                   "Kingma & Ba 2015"},
                  0,
                  0,
                  "adam, adamw or sgd (with momentum)",
                  apply_optimizer,
                  optimizer_text});
  rows.push_back(training_integer<&TrainingWorkload::zero_stage>(
      {"zero",
       "",
       {},
       {"0", "1", "2", "3"},
       "0–3",
       "",
       "1",
       "ZeRO stage: 1 shards optimizer state, 2 also gradients, 3 also parameters (FSDP)",
       "Rajbhandari et al. SC20 §5"},
      0, 3, "0, 1, 2 or 3"));
}

// recompute=: the mode, and for RecomputeMode::layers how many.
Result<bool> apply_recompute(TrainingWorkload& w, const Parsed& p) {
  // A name (none, selective, full, op), or n: the first n layers of each chunk ("layers").
  if (const auto mode = parse_enum<RecomputeMode>(p.text); mode && *mode != RecomputeMode::layers) {
    w.recompute = *mode;
    return ok();
  }
  int64_t layers = 0;
  const auto [end, ec] = std::from_chars(p.text.data(), p.text.data() + p.text.size(), layers);
  if (ec != std::errc() || end != p.text.data() + p.text.size() || layers < 0) return p.bad("an integer ≥ 0");
  w.recompute = RecomputeMode::layers;
  w.recompute_layers = layers;
  return ok();
}
// The mode, or the number of recomputed layers.
Get recompute_text(const TrainingWorkload& w) {
  return w.recompute == RecomputeMode::layers ? std::to_string(w.recompute_layers)
                                              : std::string(recompute_name(w.recompute));
}

// recompute_modules=: Megatron-Core's module names joined by +, or none.
Result<bool> apply_recompute_modules(TrainingWorkload& w, const Parsed& p) {
  std::string bad;
  const auto modules = parse_recompute_modules(p.text, &bad);
  if (!modules)
    return p.bad(
        "modules joined by '+' from core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, "
        "shared_experts (not '" +
        bad + "'), or none");
  w.recompute_modules = *modules;
  return ok();
}
// The modules joined by +.
Get recompute_modules_of(const TrainingWorkload& w) {
  return recompute_modules_text(w.recompute_modules);
}

// What the backward recomputes instead of keeping, and FlashAttention's scores not kept.
void add_recompute_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(
      {{"recompute",
        "",
        KeyType::text,
        {"none", "selective", "full", "op"},
        "`none`, `selective`, `full`, `op`, or a number *n*",
        "",
        "`selective`",
        "activation recomputation. `selective`: Korthikanti et al.'s (the attention core; Megatron "
        "`--recompute-granularity selective`); `op`: torchtitan's op-level selective AC (`selective_ac_option = "
        "\"op\"`: every second matmul of a block — wk, wo, w3 — and the element-wise ops recomputed, the other "
        "matmuls and the attention output saved); *n*: the first *n* layers of each stage chunk fully recomputed",
        "Korthikanti et al. 2022 §5; torchtitan/distributed/activation_checkpoint.py"},
       0,
       0,
       "",
       apply_recompute,
       recompute_text});
  rows.push_back(
      {{"recompute_modules",
        "",
        KeyType::text,
        {},
        "`core_attn`, `moe_act`, `layernorm`, `mla_up_proj`, `mlp`, `moe`, `shared_experts` joined by `+`, or `none`",
        "",
        "`core_attn`",
        "with `recompute=selective`, the submodules whose forward runs again in backward, as Megatron-Core's "
        "`--recompute-modules`: `core_attn` the attention core; `moe_act` the experts' activation (its output "
        "discarded); `layernorm` the norms that are modules of their own — an MoE layer's pre-MLP norm and MLA's "
        "input norm (their outputs discarded; norms fused into the next linear have none to discard); "
        "`mla_up_proj` MLA's up-projections and RoPE (Q, K and V discarded); `mlp` a dense layer's MLP; `moe` the "
        "whole MoE layer, its dispatch and combine all-to-alls included; `shared_experts` an MoE layer's shared "
        "experts. Each frees its saved tensors and adds its forward work to the backward; modules the model lacks "
        "change nothing, and with another `recompute` mode the key has no effect (`assumptions` says so)",
        "megatron/core/transformer/transformer_config.py (recompute_modules), transformer_layer.py, "
        "moe/experts.py, multi_latent_attention.py"},
       0,
       0,
       "",
       apply_recompute_modules,
       recompute_modules_of});
  rows.push_back(training_bool<&TrainingWorkload::flash_attention>(
      {"flash", "", {}, {}, "", "", "true", "FlashAttention (no s×s scores stored)", "Dao et al. 2022"}));
}

// How the parallelisms run: the pipeline schedule and context parallelism's implementation.
void add_parallelism_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_choice<&TrainingWorkload::schedule>(
      {"schedule",
       "",
       {},
       {},
       "",
       "",
       "`1f1b`",
       "pipeline schedule: the activations in flight (ZB-H2 2(p − s) − 1, DualPipe p + 1 chunks and both ends' "
       "parameters) and, in `estimate`, the simulated timeline (one field: `1f1b` with `vpp > 1` is interleaved, "
       "`interleaved` with `vpp = 1` is 1F1B, any other schedule with `vpp > 1` is an error; `estimate --schedule "
       "S` is `--train schedule=S`; the app's schedule boxes set this key, and project files of version 2 that "
       "kept a top-level `\"schedule\"` still set it)",
       "docs/schedules.md (Narayanan et al. SC21, Qi et al. 2024, DeepSeek-V3 §3.2.1)"}));
  rows.push_back(training_choice<&TrainingWorkload::cp_comm>(
      {"cp_comm",
       "",
       {},
       {},
       "",
       "",
       "`auto` (`torch` under FSDP2, `zero=3`; `p2p` otherwise)",
       "context parallelism's implementation: `p2p` ring attention as Megatron-Core/Transformer Engine run "
       "it (K/V chunks passed around the CP ring under the attention they feed), `a2a` Ulysses (all-to-alls "
       "of the heads), `torch` PyTorch's context_parallel as torchtitan applies it (K/V, repeated to the "
       "query heads, all-gathered once per pass; one SDPA call per ring step merged into fp32 outputs; fp32 "
       "dK/dV passed around the ring)",
       "Megatron-LM `--cp-comm-type p2p|a2a`; Jacobs et al. 2023 (DeepSpeed-Ulysses); PyTorch "
       "torch/distributed/tensor/experimental/_attention.py"}));
}

// Communication under compute: Megatron-LM's overlap flags (TP, DP gradients and parameters, EP, PP).
void add_overlap_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_bool<&TrainingWorkload::tp_comm_overlap>(
      {"tp_comm_overlap",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--tp-comm-overlap`)",
       "Megatron `--tp-comm-overlap`, Transformer Engine userbuffers: each sequence-parallel all-gather and "
       "reduce-scatter runs in chunks under its GEMM (ring-exchange all-gathers in TP steps, reduce-scatters "
       "pipelined over 4 GEMM chunks, bulk ones beside the weight-gradient GEMMs — TE `initialize_ub` defaults); "
       "hidden up to the GEMM time, and the GEMMs under the pipelined and bulk kernels run on the SMs those 16 do not "
       "take (`num_sm`, `set_sm_margin`), which is charged to TP. Needs `sp=true` (Megatron asserts it): without SP "
       "it is not applied and `assumptions` says so. MoE experts' collectives stay exposed",
       "transformer_engine/pytorch/module/base.py initialize_ub; megatron/training/arguments.py"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_grad_reduce>(
      {"overlap_grad_reduce",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--overlap-grad-reduce`)",
       "Megatron `--overlap-grad-reduce`: the bucketed (max(40 M, 1 M × DP) parameters) gradient all-reduce or "
       "reduce-scatter starts bucket by bucket under the last micro-batch's backward; exposed: what that backward "
       "cannot hide, and at least the last bucket. Off: all of it after the backward. Not applied under FSDP "
       "(`zero=3`), whose reduce-scatters always overlap",
       "megatron/core/distributed/distributed_data_parallel.py (bucket_size)"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_param_gather>(
      {"overlap_param_gather",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--overlap-param-gather`)",
       "Megatron `--overlap-param-gather`: the distributed optimizer's parameter all-gather, dispatched after the "
       "optimizer step and waited for bucket by bucket in the next step's forward; exposed: what the first "
       "micro-batch's forward cannot hide, and at least the first bucket. Off: all of it after the optimizer step. "
       "Refused without `overlap_grad_reduce` (as Megatron refuses it); with `zero=0` (no distributed optimizer) or "
       "`zero=3` not applied, and `assumptions` says so",
       "megatron/core/optimizer/distrib_optimizer.py; megatron/training/arguments.py validate_args"}));
  rows.push_back(training_bool<&TrainingWorkload::ep_comm_overlap>(
      {"ep_comm_overlap",
       "overlap_moe_expert_parallel_comm",
       {},
       {},
       "",
       "",
       "false (Megatron-LM: off unless `--overlap-moe-expert-parallel-comm`)",
       "Megatron `--overlap-moe-expert-parallel-comm` (combined 1F1B): in the steady state one micro-batch's forward "
       "runs beside another's backward, each one's EP dispatch and combine all-to-alls under the other's compute; "
       "exposed: what exceeds that compute, and all of it in the passes the warm-up and cool-down leave unpaired "
       "(2(p − 1) + (v − 1)p + 1 of the first rank's m·v interleaved, p under 1F1B, 1 without a pipeline). Under "
       "DualPipe every pass is paired anyway",
       "megatron/core/pipeline_parallel/combined_1f1b.py; schedules.py"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_p2p_comm>(
      {"overlap_p2p_comm",
       "",
       {},
       {},
       "",
       "",
       "true (Megatron-Core `ModelParallelConfig.overlap_p2p_comm`; `--no-overlap-p2p-communication` clears it)",
       "Interleaved schedule (`vpp` > 1) only: the steady state's pipeline sends and receives are asynchronous "
       "(`isend`/`irecv`, each receive waited for where its tensor is used, each send before the next one), so a "
       "rank computes while its activations and gradients travel; the transfer still delays the receiving rank. The "
       "warm-up forwards and cool-down backwards send synchronously unless `overlap_p2p_comm_warmup_flush`. Off: "
       "every send keeps its rank busy, as 1F1B's always do",
       "megatron/core/model_parallel_config.py; megatron/core/pipeline_parallel/schedules.py "
       "forward_backward_pipelining_with_interleaving"}));
  rows.push_back(training_bool<&TrainingWorkload::overlap_p2p_comm_warmup_flush>(
      {"overlap_p2p_comm_warmup_flush",
       "",
       {},
       {},
       "",
       "",
       "false (Megatron-Core `overlap_p2p_comm_warmup_flush`; `--overlap-p2p-communication-warmup-flush` sets it)",
       "With `overlap_p2p_comm`: the warm-up and cool-down sends are asynchronous too (their receives prefetched)",
       "megatron/core/model_parallel_config.py; megatron/core/pipeline_parallel/schedules.py"}));
}

// reshard_after_forward=: the FSDP policy.
Result<bool> apply_reshard_after_forward(TrainingWorkload& w, const Parsed& p) {
  // torchtitan's policy names, and FSDP2's booleans for always/never.
  if (const auto policy = parse_enum<ReshardAfterForward>(p.text)) {
    w.reshard_after_forward = *policy;
    return ok();
  }
  const bool yes = p.text == "true" || p.text == "1" || p.text == "on" || p.text == "yes";
  const bool no = p.text == "false" || p.text == "0" || p.text == "off" || p.text == "no";
  if (!yes && !no) return p.bad("default, always (true) or never (false)");
  w.reshard_after_forward = yes ? ReshardAfterForward::always : ReshardAfterForward::never;
  return ok();
}
// The policy, by name.
Get reshard_after_forward_text(const TrainingWorkload& w) {
  return std::string(reshard_after_forward_name(w.reshard_after_forward));
}

// FSDP (zero=3): prefetching and resharding after forward.
void add_fsdp_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_bool<&TrainingWorkload::fsdp_prefetch>(
      {"fsdp_prefetch",
       "",
       {},
       {},
       "",
       "",
       "true (PyTorch FSDP2: one block ahead)",
       "FSDP (`zero=3`): the next block's all-gather issued under this block's compute (FSDP2's implicit forward "
       "and default backward prefetch); per block only the communication beyond its compute is exposed, plus the "
       "step's first all-gather and last reduce-scatter. false: every all-gather waits",
       "torch/distributed/fsdp/_fully_shard (FSDP2 prefetching)"}));
  rows.push_back(
      {{"reshard_after_forward", "", KeyType::text, names_of<ReshardAfterForward>(),
        "`default`, `always` (`true`), `never` (`false`)", "", "`default` (torchtitan's `fsdp_reshard_after_forward`)",
        "FSDP (`zero=3`): whether a block's gathered parameters are freed after its forward and gathered again for "
        "its backward. `default` is torchtitan's: every block but the last without PP, none with PP. Ignored unless "
        "`zero=3`. Time only: the memory budget still holds one gathered block, not the blocks kept unsharded "
        "between forward and backward",
        "torchtitan/models/llama3/infra/parallelize.py apply_fsdp"},
       0,
       0,
       "",
       apply_reshard_after_forward,
       reshard_after_forward_text});
}

// kernels=: fused (Transformer Engine, torch.compile) or eager (PyTorch composites).
Result<bool> apply_kernels(TrainingWorkload& w, const Parsed& p) {
  w.eager_kernels = p.text == "eager";
  return ok();
}
// fused or eager.
Get kernels_text(const TrainingWorkload& w) {
  return std::string(w.eager_kernels ? "eager" : "fused");
}

// How the framework runs a layer: CUDA graphs, element-wise and attention kernels, its allocations and FP8 scaling.
void add_framework_kernel_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_bool<&TrainingWorkload::cuda_graphs>(
      {"cuda_graphs",
       "",
       {},
       {},
       "",
       "",
       "false (eager PyTorch)",
       "Megatron-LM `--cuda-graph-impl` / `--external-cuda-graph`, TE `make_graphed_callables`, torch.compile "
       "`mode=\"reduce-overhead\"`: captured kernels replay without host dispatch — whole dense layers, and of a "
       "dropless MoE layer the attention part only. Off: every pass over a layer takes the longer of its GPU time "
       "and its host dispatch ([host dispatch](estimate.md#fixed-costs-that-dominate-small-models))",
       "CUDA programming guide, CUDA graphs; megatron/core/token_dispatcher.py (the host sync)"}));
  rows.push_back(training_bool<&TrainingWorkload::cuda_graph_moe_router>(
      {"cuda_graph_moe_router",
       "",
       {},
       {},
       "",
       "",
       "false",
       "with `cuda_graphs`, the MoE layers' router (its GEMM, softmax, top-k and load-balancing loss) and the "
       "token dispatcher's preprocessing (the per-expert token counts, their all-gather and the splits) replay "
       "from graphs too, as Megatron-Core's `--cuda-graph-scope attn moe_router moe_preprocess` (Megatron-Bridge's "
       "MoE recipes on Blackwell); the permutations, all-to-alls and experts stay eager. No effect without "
       "`cuda_graphs` or on a dense model",
       "megatron/core/transformer/cuda_graphs.py (CudaGraphScope); megatron/core/transformer/moe/token_dispatcher.py "
       "(preprocess)"}));
  rows.push_back(
      {{"kernels",
        "",
        KeyType::choice,
        {"fused", "eager"},
        "",
        "",
        "`fused`",
        "the element-wise kernels: `fused` as Megatron-LM/Transformer Engine (fused RMSNorm, RoPE, activations) or "
        "torch.compile run them; `eager`: PyTorch's composites as torchtitan runs them without compile — RMSNorm's "
        "upcast, pow, mean and products (28 + 4e bytes per element forward, 56 + 8e backward, against 2e and 3e "
        "fused), RoPE through fp32 complex numbers, SwiGLU's backward in two kernels, and their host dispatch "
        "([estimate.md](estimate.md#1-work-per-layer-and-micro-batch))",
        "torchtitan/models/llama3/model (RMSNorm, apply_rotary_emb); Transformer Engine fused kernels"},
       0,
       0,
       "fused (Transformer Engine, torch.compile) or eager (PyTorch composites)",
       apply_kernels,
       kernels_text});
  rows.push_back(training_choice<&TrainingWorkload::memory_framework>(
      {"memory_framework",
       "",
       {},
       {},
       "",
       "",
       "`auto` (FSDP2 for `zero=3`, Megatron-LM otherwise)",
       "whose allocations the memory budget follows beyond the model states and saved activations: the loss "
       "kernel's buffers, FSDP2's unsharded root and kept blocks and its side-stream pools, Megatron's main-grad "
       "buffer and Transformer Engine's FP8 weight caches; `generic`: the framework-neutral budget ([estimate.md "
       "§6](estimate.md#6-peak-memory-against-what-frameworks-allocate))",
       "torch/distributed/fsdp/_fully_shard; megatron/core/distributed/param_and_grad_buffer.py"}));
  rows.push_back(training_choice<&TrainingWorkload::attention_kernel>(
      {"attention_kernel",
       "",
       {},
       {},
       "",
       "",
       "`auto` (cuDNN's fused attention on Hopper and newer, FlashAttention-2 before)",
       "which fused kernels run the attention core, at the rates measured for the GPU (the catalogue's "
       "`attention` block): `flash2` FlashAttention-2 (PyTorch SDPA's flash backend, its default on Hopper "
       "before PyTorch 2.11: set it for torchtitan and other SDPA runs on older PyTorch), `cudnn` cuDNN's fused "
       "attention (Transformer Engine's FusedAttention; SDPA's cuDNN "
       "backend), `flash3` FlashAttention-3; a GPU without a measurement for the kernel takes the generic "
       "shares `--efficiency attention_forward`/`attention_backward` "
       "([estimate.md](estimate.md#the-attention-kernels))",
       "transformer_engine/pytorch/attention/dot_product_attention/utils.py get_attention_backend; "
       "aten/src/ATen/native/transformers/cuda/sdp_utils.cpp priority_order; Shah et al. 2024 (FlashAttention-3) "
       "Figures 5-7"}));
  rows.push_back(training_choice<&TrainingWorkload::fp8_recipe>(
      {"fp8_recipe",
       "",
       {},
       {},
       "",
       "",
       "`auto` (`current` under FSDP2, torchao's tensorwise float8; `delayed` otherwise, Megatron-LM's default)",
       "how FP8 operands are scaled (with `precision=fp8`): `delayed` (amax history: the amax comes out of the "
       "cast itself), `current` (tensorwise: an amax pass over each tensor before its cast), `mxfp8` / "
       "`blockwise` (each block's scale inside the cast); NVFP4 always computes its tensor amax first. "
       "Transformer Engine caches a weight's FP8 copy across micro-batches, so under Megatron the weight casts "
       "are once per step ([estimate.md](estimate.md#fp8-training-is-not-2-bf16))",
       "Megatron-LM --fp8-recipe; transformer_engine/pytorch/csrc/quantizer.cpp (Float8CurrentScalingQuantizer: "
       "nvte_compute_amax, then the cast); TE module get_weight_workspace(is_first_microbatch)"}));
}

// MoE: the token dispatcher and token dropping.
void add_moe_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_choice<&TrainingWorkload::moe_dispatcher>(
      {"moe_dispatcher",
       "",
       {},
       {},
       "",
       "",
       "`alltoall` (Megatron-Core's all-to-all token dispatcher)",
       "how MoE tokens reach their experts' ranks: `alltoall` (one all-to-all row per token and selected "
       "expert), `flex` (DeepEP / HybridEP: a token goes once to each rank holding any of its experts, so "
       "top-8 of 128 experts over EP 8 sends 5.3 rows per token instead of 8) "
       "([estimate.md](estimate.md#2-communication-exposed-on-the-critical-path))",
       "Megatron-LM --moe-token-dispatcher-type alltoall|flex, --moe-flex-dispatcher-backend deepep|hybridep; "
       "DeepEP get_dispatch_layout (is_token_in_rank)"}));
  rows.push_back(training_number<&TrainingWorkload::moe_capacity_factor>(
      {"moe_capacity_factor",
       "",
       {},
       {},
       "0–64",
       "",
       "0 (dropless)",
       "token dropping with padded experts: each expert's input padded to this factor × its balanced share of "
       "the routed tokens, the tokens past it dropped; the experts, the permutations and the all-to-alls move "
       "factor × the balanced rows, with static shapes (no device-to-host sync of the splits; with "
       "`cuda_graphs` the whole MoE layer replays from graphs). Needs `moe_dispatcher=alltoall`. 0: dropless",
       "Megatron-LM --moe-expert-capacity-factor, --moe-pad-expert-input-to-capacity "
       "(megatron/core/transformer/moe/token_dispatcher.py, drop_and_pad); Megatron-Bridge apply_moe_token_drop"},
      0, 64));
}

// The target framework (core/framework): what `rank` proposes.
void add_target_framework_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_choice<&TrainingWorkload::framework>(
      {"framework",
       "",
       {},
       {},
       "",
       "",
       "`any`",
       "the training framework the layout is for: `rank` proposes only the schedules, parallelisms and options "
       "it runs (at the version its table names), and its defaults resolve the `auto` keys (memory_framework, "
       "cp_comm, fp8_recipe); `any` is every option the model has, each ranked layout marked with the frameworks "
       "that run it ([estimate.md](estimate.md#the-target-framework))",
       "core/framework/framework.cpp: Megatron-Core schedules.py, Megatron-Bridge config.py, torchtitan "
       "job_config.py, DeepSpeed runtime/pipe/schedule.py"},
      false));
}

// dropout=: overrides the model's dropout.
Result<bool> apply_dropout(TrainingWorkload& w, const Parsed& p) {
  w.dropout = p.boolean;
  return ok();
}
// Nothing unless set.
Get dropout_text(const TrainingWorkload& w) {
  return w.dropout ? std::optional<std::string>(fmt_bool(*w.dropout)) : std::nullopt;
}

// Details of the saved activations and the FLOPs, written only when they differ from their default.
void add_activation_detail_rows(std::vector<TrainingRow>& rows) {
  rows.push_back(training_dtype<&TrainingWorkload::optimizer_state_dtype>(
      {"optimizer_dtype", "", {}, {}, "", "", "`fp32`", "storage of the optimizer's moments", "docs/conventions.md"},
      false));
  rows.push_back(
      training_dtype<&TrainingWorkload::activation_dtype>({"activation_dtype",
                                                           "",
                                                           {},
                                                           {},
                                                           "",
                                                           "",
                                                           "`bf16`",
                                                           "storage of the saved activations (16-bit also under FP8)",
                                                           "Korthikanti et al. 2022 §4"},
                                                          false));
  rows.push_back({{"dropout",
                   "",
                   KeyType::boolean,
                   {},
                   "",
                   "",
                   "the model's",
                   "1-byte dropout masks",
                   "Korthikanti et al. 2022 §4.1"},
                  0,
                  0,
                  "",
                  apply_dropout,
                  dropout_text,
                  false});
  rows.push_back(training_bool<&TrainingWorkload::output_layer_activations>(
      {"output_activations",
       "",
       {},
       {},
       "",
       "",
       "true",
       "count final-norm input, head input and logits on the last stage",
       "Korthikanti et al. 2022 §4.3"},
      false));
  rows.push_back(training_bool<&TrainingWorkload::fp32_logits>({"fp32_logits",
                                                                "",
                                                                {},
                                                                {},
                                                                "",
                                                                "",
                                                                "true",
                                                                "logits stored in fp32 for the cross-entropy",
                                                                "Korthikanti et al. 2022 §4.3"},
                                                               false));
  rows.push_back(training_bool<&TrainingWorkload::causal>({"causal",
                                                           "",
                                                           {},
                                                           {},
                                                           "",
                                                           "",
                                                           "true",
                                                           "causal attention FLOPs (half the scores)",
                                                           "FlashAttention's FLOP convention (Dao 2023)"},
                                                          false));
}

// The --train table, in the order of docs/cli.md; the keys after the runtime ones are written only
// when they differ from their default.
std::vector<TrainingRow> make_training_rows() {
  std::vector<TrainingRow> rows;
  add_step_rows(rows);
  add_precision_rows(rows);
  add_optimizer_rows(rows);
  add_recompute_rows(rows);
  add_parallelism_rows(rows);
  add_overlap_rows(rows);
  add_fsdp_rows(rows);
  add_framework_kernel_rows(rows);
  add_moe_rows(rows);
  add_target_framework_rows(rows);
  add_runtime_rows(rows, true);
  add_activation_detail_rows(rows);
  return rows;
}

}  // namespace

const std::vector<TrainingRow>& training_rows() {
  static const std::vector<TrainingRow> rows = make_training_rows();
  return rows;
}

}  // namespace meshscope::key_rows
