// The validation set's rows as the core's inputs (validation_rows.hpp): what each source states,
// and what it does not, chosen once per source and written next to the choice.
#include "validation_rows.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/model/catalogue.hpp"
#include "core/model/model.hpp"
#include "core/topology/generators.hpp"
#include "gpt_style.hpp"

namespace meshscope::validation_rows {

std::vector<test::CsvRow> read_validation_set() {
  const std::string path = std::string(MESHSCOPE_SOURCE_DIR) + "/tests/data/validation/training_throughput.csv";
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto records = test::parse_csv_records(buffer.str());
  std::vector<test::CsvRow> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    REQUIRE(records[r].size() == records[0].size());
    test::CsvRow row;
    for (size_t c = 0; c < records[0].size(); ++c) row[records[0][c]] = records[r][c];
    rows.push_back(std::move(row));
  }
  return rows;
}

bool has(const test::CsvRow& row, const std::string& column) {
  return !row.at(column).empty();
}
int64_t integer(const test::CsvRow& row, const std::string& column) {
  return std::stoll(row.at(column));
}
int64_t integer_or(const test::CsvRow& row, const std::string& column, int64_t fallback) {
  return has(row, column) ? integer(row, column) : fallback;
}
bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Which family of sources a row comes from; the per-source choices below key on it.
enum class Family {
  torchtitan,
  megatron_bridge,
  dgxc,
  megascale,
  mtnlg,
  bloom,
  opt,
  log_megatron,
  log_torchtitan,
  other
};

Family family_of(const test::CsvRow& row) {
  const std::string& id = row.at("id");
  if (starts_with(id, "tt_")) return Family::torchtitan;
  if (starts_with(id, "mb2509_") || starts_with(id, "mb2511_") || starts_with(id, "mb2602_") ||
      starts_with(id, "mbapi_"))
    return Family::megatron_bridge;
  if (starts_with(id, "dgxc_")) return Family::dgxc;
  if (starts_with(id, "megascale_")) return Family::megascale;
  if (starts_with(id, "mtnlg_")) return Family::mtnlg;
  if (starts_with(id, "bloom_")) return Family::bloom;
  if (starts_with(id, "opt_")) return Family::opt;
  if (starts_with(id, "log_megatron_mi300x")) return Family::log_megatron;
  if (starts_with(id, "log_torchtitan")) return Family::log_torchtitan;
  return Family::other;
}

// The dimensions a row gives, on top of a preset of the same family (Llama: SwiGLU, RMSNorm, RoPE,
// untied head, no biases).
ModelSpec llama_like(const test::CsvRow& row, int64_t head_dim, int64_t positions) {
  ModelSpec m = *model_preset("llama3-8b");
  m.name = row.at("model");
  m.num_layers = integer(row, "layers");
  m.hidden_size = integer(row, "hidden");
  m.num_heads = integer(row, "heads");
  m.num_kv_heads = integer(row, "kv_heads");
  m.head_dim = head_dim;
  m.ffn_hidden_size = integer(row, "ffn");
  m.vocab_size = integer(row, "vocab");
  m.max_position_embeddings = positions;
  return m;
}

// The virtual pipeline degree a row gives: 1 where it is empty or printed "NA" (unsupported() skips an "NA"
// beside PP > 1).
int64_t vpp_of(const test::CsvRow& row) {
  return row.at("vpp") == "NA" ? 1 : integer_or(row, "vpp", 1);
}

std::string generator_of(const test::CsvRow& row);

std::optional<Skip> unsupported(const test::CsvRow& row) {
  if (!has(row, "value")) return Skip{"the published row is malformed (see notes)"};
  if (family_of(row) == Family::opt)
    return Skip{"the paper gives neither the TP degree nor how its TFLOP/s are counted"};
  // DGX Cloud Benchmarking's NeMo 2 (25.02) Nemotron-4 340B table prints VP as "NA" beside PP 8 (a later
  // version lists VP 12 for the same scales, but not for that measurement); with PP 1, "NA" is VP 1.
  if (row.at("vpp") == "NA" && integer(row, "pp") > 1)
    return Skip{"the source prints the virtual pipeline degree as NA beside PP " + row.at("pp")};
  const std::string& model = row.at("model");
  const std::string& gpu = row.at("gpu");
  if (gpu.empty()) return Skip{"the GPU model is not in the log"};
  if (model == "deepseek-v3") {
    const int64_t pp = integer(row, "pp"), vpp = vpp_of(row);
    const bool sourced = (pp == 4 && vpp == 4) || (pp == 16 && vpp == 1) || (pp == 2 && vpp == 8);
    if (!sourced)
      return Skip{"no source gives the pipeline layout of the 61 layers on PP " + std::to_string(pp) + " × VP " +
                  std::to_string(vpp)};
  }
  if (starts_with(gpu, "V100")) return Skip{"no generator for Jean Zay's 4-GPU V100 NVLink nodes"};
  if (generator_of(row).empty()) return Skip{gpu + " is not in the GPU catalogue"};
  return std::nullopt;
}

Result<ModelSpec> model_of(const test::CsvRow& row) {
  const std::string& model = row.at("model");
  switch (family_of(row)) {
    case Family::megascale:
    case Family::mtnlg:
      return test::gpt_style(integer(row, "layers"), integer(row, "hidden"), integer(row, "heads"),
                             integer(row, "vocab"), integer(row, "seq_len"));
    case Family::bloom: {
      // ALiBi: no position table (its bias add is an element-wise pass, like RoPE's).
      ModelSpec m = test::gpt_style(integer(row, "layers"), integer(row, "hidden"), integer(row, "heads"),
                                    integer(row, "vocab"), integer(row, "seq_len"));
      m.position = PositionKind::rotary;
      return m;
    }
    case Family::log_megatron:  // kv_channels 64 from the log's argument dump
      return llama_like(row, 64, integer(row, "seq_len"));
    default:
      break;
  }
  if (starts_with(model, "llama2-"))
    return llama_like(row, integer(row, "hidden") / integer(row, "heads"), integer(row, "seq_len"));
  auto preset = model_preset(model);
  // DGX Cloud Benchmarking's proxy configurations: the model with fewer layers (the row's).
  if (preset && family_of(row) == Family::dgxc) preset->num_layers = integer(row, "layers");
  return preset;
}

std::string generator_of(const test::CsvRow& row) {
  const std::string& gpu = row.at("gpu");
  const int64_t gpus = integer(row, "num_gpus");
  const auto nodes = std::to_string((gpus + 7) / 8);
  // BLOOM's Jean Zay nodes: 4×100 Gb/s Omni-Path per 8 GPUs, as eight 50 Gb/s NICs.
  if (family_of(row) == Family::bloom) return "dgx-a100:nodes=" + nodes + ",nic_gbps=50";
  if (starts_with(gpu, "A100") || starts_with(gpu, "NVIDIA Ampere")) return "dgx-a100:nodes=" + nodes;
  if (gpu == "H100-SXM-80GB") return "dgx-h100:nodes=" + nodes;
  if (gpu == "H200") return "hgx-h200:nodes=" + nodes;
  // torchtitan's Grand Teton hosts: 8 NVLink-connected H100 (96 GB HBM2e, 500 W) and 400 Gb/s of
  // RDMA per GPU, a DGX H100's shape.
  if (gpu == "H100-96GB-HBM2e (500 W)") return "dgx-h100:nodes=" + nodes + ",gpu=h100-sxm-96gb-500w";
  if (gpu == "B200") return "dgx-b200:nodes=" + nodes;
  if (gpu == "B300") return "dgx-b300:nodes=" + nodes;
  // NVL72 racks; a job of 128 GPUs or more in Slurm segments of 16 trays, 64 GPUs of each rack (NVIDIA's
  // recommendation for such jobs, "Unlock exascale performance on GB200 NVL72 with Slurm topology-
  // aware job scheduling"; the tables' 128 and 256 GPUs are whole segments). GB300 NVL72: the same
  // rack with Blackwell Ultra GPUs and ConnectX-8 (800 Gb/s) NICs.
  if (gpu == "GB200" || gpu == "GB300") {
    const std::string kind = gpu == "GB300" ? ",gpu=gb300" : "";
    if (gpus >= 128) return "gb200-nvl72:racks=" + std::to_string((gpus + 63) / 64) + ",trays=16" + kind;
    return "gb200-nvl72:racks=" + std::to_string((gpus + 71) / 72) + kind;
  }
  if (gpu == "MI300X") return "mi300x:nodes=" + nodes;
  return {};
}

DType compute_dtype_of(const test::CsvRow& row) {
  const std::string& p = row.at("precision");
  if (starts_with(p, "fp8")) return DType::fp8;  // FP8-CS and MXFP8 alike: the fp8 tensor-core peak
  if (contains(p, "float8") || contains(row.at("optimizations"), "float8"))
    return DType::fp8;  // torchtitan's float8 (torchao) linears
  if (p == "nvfp4") return DType::fp4;
  if (p == "fp16") return DType::fp16;
  return DType::bf16;  // bf16, and where a source does not say (same A100 peak as fp16)
}

RecomputeMode recompute_of(const test::CsvRow& row) {
  const std::string& r = row.at("recompute");
  if (r == "full") return RecomputeMode::full;
  if (r == "selective") return RecomputeMode::selective;
  if (r == "selective_layer") return RecomputeMode::layers;
  if (r == "selective_op") return RecomputeMode::op;  // torchtitan's op-level SAC
  if (r == "none") return RecomputeMode::none;
  // Not stated. Megatron-Bridge's table, MegaScale's baseline: none (Megatron-LM's default);
  // MT-NLG and BLOOM (2021-22, no FlashAttention, 80 GB): full, as Megatron-LM ran then.
  const Family f = family_of(row);
  return f == Family::mtnlg || f == Family::bloom ? RecomputeMode::full : RecomputeMode::none;
}

Setup setup_of(const test::CsvRow& row, const ModelSpec& model) {
  Setup s;
  s.model = model;
  s.generator = generator_of(row);
  const Family f = family_of(row);
  TrainingWorkload& w = s.workload;
  const bool pre_flash = f == Family::mtnlg || f == Family::bloom;
  if (pre_flash) {
    // Megatron of 2021-22: the full s×s scores stored and masked (docs/estimate.md §4).
    w = test::korthikanti_workload(integer(row, "seq_len"), integer(row, "global_batch"), recompute_of(row));
    w.causal = false;
  } else {
    w.seq_len = integer(row, "seq_len");
    w.global_batch = integer(row, "global_batch");
    w.recompute = recompute_of(row);
  }
  w.compute_dtype = compute_dtype_of(row);
  // The FP8 recipe as the precision names it: FP8-CS current scaling, FP8-MX MXFP8; the 26.02
  // tables' unqualified "FP8" is "current scaling or blockwise" by their own note: current scaling,
  // Megatron-Bridge's Hopper recipe; torchtitan's float8 is torchao's tensorwise (auto under FSDP2).
  if (row.at("precision") == "fp8-cs" || row.at("precision") == "fp8") w.fp8_recipe = Fp8Recipe::current;
  if (row.at("precision") == "fp8-mx") w.fp8_recipe = Fp8Recipe::mxfp8;
  // FSDP2 keeps fp32 sharded parameters and reduces in fp32 (torchtitan's default mixed precision):
  // fp32 grads as Megatron's; BF16Optimizer/DeepSpeed as Megatron's without the distributed optimizer.
  const bool fsdp = has(row, "zero_stage") && integer(row, "zero_stage") == 3;
  const bool distopt =
      f == Family::megatron_bridge || f == Family::dgxc || f == Family::megascale || f == Family::log_megatron;
  REQUIRE(apply_training_convention(w, distopt && !fsdp ? "megatron-distopt" : "megatron"));
  w.zero_stage = fsdp ? 3 : (distopt ? 1 : static_cast<int>(integer_or(row, "zero_stage", 0)));
  Layout& l = s.layout;
  l.tp = integer(row, "tp");
  l.pp = integer(row, "pp");
  l.dp = integer(row, "dp");
  l.cp = integer_or(row, "cp", 1);  // not stated (DGX Cloud Benchmarking's GPT-3 tables): no CP
  l.ep = integer_or(row, "ep", 1);
  l.vpp = vpp_of(row);
  l.micro_batch = integer_or(row, "micro_batch", 1);  // not stated (MegaScale, MT-NLG): 1
  // torchtitan's pipeline tables give the local batch, not the micro-batches: its defaults of the time
  // (torchtitan/parallelisms/pipelining_utils.py with the `experimental.pipeline_parallel_*` keys:
  // n_microbatches = pipeline_parallel_degree when not given; generate_split_points: 2 stages per
  // rank for a looped schedule such as Interleaved 1F1B, 1 otherwise).
  if (f == Family::torchtitan && l.pp > 1 && !has(row, "micro_batch")) {
    l.micro_batch = integer(row, "global_batch") / l.dp / l.pp;
    if (contains(row.at("optimizations"), "Interleaved")) l.vpp = 2;
  }
  // SP with TP wherever a source does not say otherwise (Megatron-Core's recipes, torchtitan's TP plan).
  l.sp = row.at("seq_parallel") == "yes" || (row.at("seq_parallel").empty() && l.tp > 1 && !pre_flash);
  // Layers that do not divide over the pp·v model chunks: the tables do not state the split. Where
  // two chunks' worth is missing, the embedding and the loss count as a layer each, as Megatron-
  // Bridge's large-model recipes set account_for_embedding/loss_in_pipeline_split (Megatron-Core
  // then builds one layer fewer into the first and into the last model chunk; Llama 3 split its
  // 126 layers so, Dubey et al. 2024 §3.3.2): written as a pipeline layout, which may leave those
  // two chunks without a transformer layer (126 layers on 16 × 8 chunks).
  const int64_t chunks = l.pp * l.vpp;
  const int64_t per_chunk = (model.num_layers + chunks - 1) / chunks;
  if (l.pp > 1 && model.num_layers % chunks != 0 && chunks * per_chunk - model.num_layers == 2) {
    const std::string lighter = per_chunk > 1 ? "t*" + std::to_string(per_chunk - 1) : "";
    l.pipeline_layout = "E" + lighter + "|";
    if (chunks > 2) l.pipeline_layout += "(t*" + std::to_string(per_chunk) + "|)*" + std::to_string(chunks - 2);
    l.pipeline_layout += lighter + "L";
  }
  // DeepSeek-V3's 61 layers, as Megatron-Bridge lays them out for (PP, VP) = (4, 4) and (16, 1)
  // (src/megatron/bridge/recipes/deepseek/deepseek_v3.py, layout_map) and for GB300's (2, 8)
  // (scripts/performance/configs/deepseek/deepseek_workload_base_configs.py, pp_layout): the
  // embedding and four layers, fourteen chunks of four, then one layer, the MTP layer and the loss.
  // The 25.11 GB300/GB200 rows ran without MTP (their label "w/o MTP"); the others with the recipes'
  // mtp_num_layers = 1. Their token dispatcher is the flex one (HybridEP) in those recipes.
  if (row.at("model") == "deepseek-v3") {
    const bool mtp = !(starts_with(row.at("id"), "mb2511_gb"));
    l.pipeline_layout = mtp ? "Et*4|(t*4|)*14tmL" : "Et*4|(t*4|)*14tL";
  }
  if (w.recompute == RecomputeMode::layers)  // torchtitan's ac_freq 2: every second block
    w.recompute_layers = model.num_layers / l.pp / 2;
  EstimateOptions& o = s.options;
  if (f == Family::torchtitan || f == Family::log_torchtitan) {
    o.order = AxisOrder::torchtitan;
    // torchtitan runs eager PyTorch unless its rows say torch.compile (which fuses the norms,
    // RoPE and activations as Transformer Engine's kernels do).
    w.eager_kernels = !contains(row.at("optimizations"), "torch.compile");
    // The attention kernel follows the PyTorch release: after the cuDNN bugs of 2.5, PyTorch made
    // SDPA's cuDNN backend opt-in (pytorch/pytorch#138522), so SDPA ran its flash backend
    // (FlashAttention-2) first until sdp_utils.cpp check_prefer_cudnn_attention put cuDNN first on
    // sm90/sm100 for a bundled cuDNN above 9.15 — the wheels of 2.11 (as traced in
    // huggingface/transformers#48163). Every torchtitan row here predates that: the Grand Teton H100
    // tables (torch 1963fc8, 2024-12-23), the H200 log (2025-02-13, the 2.6 releases) and the trainy
    // rows (torch 2.8.0a0, 2025-06); the A100 rows run flash2 on Ampere in any case.
    w.attention_kernel = AttentionKernel::flash2;
    // Async TP (torch's SymmetricMemory micro-pipelined all-gather-matmul and matmul-reduce-scatter,
    // torchtitan's enable_async_tensor_parallel): the TP collectives in chunks under their GEMMs.
    w.tp_comm_overlap = contains(row.at("optimizations"), "async TP");
  }
  // Megatron's overlaps are off unless given (the MI300X log: off; MegaScale's baseline: its Table 3
  // adds TP/PP/DP overlap on top of it; MT-NLG and BLOOM reduced after the backward). Megatron-
  // Bridge's performance recipes turn them on (CommOverlapConfig: TP overlap when TP > 1, and the
  // distributed optimizer's bucketed reduce-scatter and all-gather), as at Megatron-Bridge 2a0d46e2
  // scripts/performance/configs/llama/llama3_llm_pretrain.py (a later version than 25.11's).
  // Asynchronous interleaved pipeline sends: Megatron-LM of 2023 (MegaScale's baseline @ 285068c8)
  // had them behind `--overlap-p2p-communication`, store_true and off by default, and MegaScale's
  // Table 3 lists PP overlap among the optimisations it adds to that baseline; Megatron-Core's
  // later default is on (`--no-overlap-p2p-communication`), and Megatron-Bridge sets it with VP > 1.
  if (f == Family::megascale) w.overlap_p2p_comm = false;
  // DGX Cloud Benchmarking ran NeMo-Launcher's training recipes (24.09–24.12) and NeMo 2's performance
  // scripts (25.02, 25.04); the tables state the layout only. The launcher's recipes
  // (NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/llama/llama3_1_405b.yaml,
  // llama3_1_8b.yaml, gpt3/175b.yaml): the distributed optimizer with overlap_grad_sync and
  // overlap_param_sync, Userbuffers TP overlap (ub_tp_comm_overlap) with TP, overlap_p2p_comm, no
  // activation recompute; FP8 is Transformer Engine's delayed scaling (fp8_hybrid; the later
  // Nemotron READMEs: "per-tensor delayed scaling", NeMo 2's perf scripts' default fp8_recipe "ds").
  if (f == Family::dgxc) {
    w.tp_comm_overlap = l.tp > 1 && l.sp;
    w.overlap_grad_reduce = true;
    w.overlap_param_gather = true;
    if (w.compute_dtype == DType::fp8) w.fp8_recipe = Fp8Recipe::delayed;
    // Grok-1's experts: the expert TP degree its configuration table states (25.04: ETP 4 beside TP 4
    // on GB200, ETP 1 beside TP 4 on H100); the 24.12 tables state none, and Megatron-Core's expert
    // tensor parallelism then followed TP (the experts split over TP as the dense layers are).
    if (row.at("model") == "grok1-314b") {
      const std::string& notes = row.at("notes");
      const std::size_t at = notes.find(", ETP ");
      l.etp = at == std::string::npos ? l.tp : std::stoll(notes.substr(at + 6));
    }
    // Nemotron-4 340B's recipe reduces its gradients in BF16 (nemotron_340b.yaml: grad_sync_dtype bf16).
    if (row.at("model") == "nemotron4-340b") w.grad_dtype = DType::bf16;
  }
  if (f == Family::megatron_bridge) {
    w.tp_comm_overlap = l.tp > 1;
    w.overlap_grad_reduce = true;
    w.overlap_param_gather = true;
    // Every family's performance script reduces and accumulates the gradients in BF16: the Llama 3,
    // Qwen3, DeepSeek-V3 and GPT-OSS scripts' common settings (scripts/performance/configs/*/
    // *_llm_pretrain.py, set_*_common_configs) set cfg.mixed_precision.grad_reduce_in_fp32 = False
    // and cfg.ddp.grad_reduce_in_fp32 = False, so Megatron-Core's gradient buffer holds the
    // parameters' dtype (param_and_grad_buffer.py) and the reduce-scatter moves 2 bytes a value.
    w.grad_dtype = DType::bf16;
    // The FSDP rows run Megatron-FSDP (megatron/core/distributed/fsdp), not PyTorch's FSDP2: its
    // parameters and gradients live in contiguous buffers that the collectives gather into and
    // reduce-scatter from, with none of FSDP2's copy-out / copy-in.
    if (w.zero_stage == 3) w.memory_framework = MemoryFramework::megatron;
    // The tables do not name the token dispatcher. Megatron-Bridge's Qwen3-30B-A3B recipes for
    // GB200, GB300 and B300 run the flex dispatcher over HybridEP at the tables' micro-batches 4 and 8
    // (scripts/performance/configs/qwen/qwen3_llm_pretrain.py, qwen3_workload_base_configs.py, a
    // later version than the tables'); the B200 and H100 rows ran other layouts (micro-batch 1–2,
    // PP 2) than today's recipes and keep the all-to-all dispatcher.
    if (row.at("model") == "qwen3-30b-a3b" &&
        (row.at("gpu") == "GB200" || row.at("gpu") == "GB300" || row.at("gpu") == "B300"))
      w.moe_dispatcher = MoeDispatcher::flex;
    // The 25.09 Qwen3-30B-A3B rows ("tokendrop"): the recipes of that time
    // (scripts/performance/configs/qwen3/qwen3_30b_a3b_llm_pretrain.py @ 4054233ae08b) apply
    // apply_moe_token_drop by default (capacity factor 1.0, experts padded to capacity) with the
    // all-to-all dispatcher, and on GB200 and B200 local CUDA graphs of the full iteration (H100:
    // none).
    if (row.at("model") == "qwen3-30b-a3b" && starts_with(row.at("id"), "mb2509_")) {
      w.moe_dispatcher = MoeDispatcher::alltoall;
      w.moe_capacity_factor = 1.0;
      w.cuda_graphs = row.at("gpu") == "GB200" || row.at("gpu") == "B200";
    }
    // Qwen3-235B-A22B (the same file's *_V2 presets: 256 GPUs, GBS 8192, the 26.02 tables' layouts):
    // GB200 and GB300 run the flex dispatcher over HybridEP with Transformer Engine's CUDA graphs of
    // the attention, the router and the dispatch preprocessing (cuda_graph_scope: cuda_graphs=1 with
    // cuda_graph_moe_router=1); B200 and B300 the all-to-all one
    // without cross-micro-batch overlap; H100 the all-to-all one with moe_a2a_overlap=True.
    if (row.at("model") == "qwen3-235b-a22b") {
      if (row.at("gpu") == "GB200" || row.at("gpu") == "GB300") {
        w.moe_dispatcher = MoeDispatcher::flex;
        w.cuda_graphs = true;
        w.cuda_graph_moe_router = true;
      }
      w.ep_comm_overlap = starts_with(row.at("gpu"), "H100");
    }
    // GPT-OSS-120B (scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py @ 1e7adfa90b18,
    // the version whose V2 presets are the 26.02 tables' layouts: each V1 preset with GBS 1280, EP 64
    // at micro-batch 4 on GB300, GB200, B300 and B200, PP 4 at micro-batch 1 on H100; and
    // gpt_oss_llm_pretrain.py): the provider's all-to-all dispatcher, no cross-micro-batch EP overlap
    // (a later version adds moe_a2a_overlap to GB200's V2 together with EP 8 on B200/B300, which the
    // tables do not show); GB300 and B300 with Transformer Engine's CUDA graphs of the attention, the
    // router and the dispatch preprocessing. The GB200, B200 and H100 presets recompute the layernorms
    // and the expert activation, recompute_modules=["layernorm", "moe_act"], which replaces
    // Megatron-Core's default core_attn; the 25.11 layouts have no preset of their own.
    if (row.at("model") == "gpt-oss-120b") {
      w.cuda_graphs = row.at("gpu") == "GB300" || row.at("gpu") == "B300";
      w.cuda_graph_moe_router = w.cuda_graphs;
      if (starts_with(row.at("id"), "mb2602_") &&
          (row.at("gpu") == "GB200" || row.at("gpu") == "B200" || starts_with(row.at("gpu"), "H100"))) {
        w.recompute = RecomputeMode::selective;
        w.recompute_modules = recompute_bit(RecomputeModule::layernorm) | recompute_bit(RecomputeModule::moe_act);
      }
    }
    // A recipe that states it (the API reference's 64-GPU GB200 Llama 3.1 405B MXFP8 recipe): the
    // gradients accumulate in BF16; the master weights and Adam moments stay FP32.
    if (contains(row.at("optimizations"), "BF16 gradient accumulation")) w.grad_dtype = DType::bf16;
    if (row.at("model") == "deepseek-v3") {
      w.moe_dispatcher = MoeDispatcher::flex;
      // deepseek_v3.py: the precision-aware optimizer with BF16 main gradients and BF16 Adam moments
      // (main_grads_dtype, exp_avg_dtype, exp_avg_sq_dtype), gradients reduced in BF16
      // (grad_reduce_in_fp32 = False).
      w.grad_dtype = DType::bf16;
      w.optimizer_state_dtype = DType::bf16;
      // The MXFP8 recipes of GB300 and GB200 overlap the EP all-to-alls across micro-batches
      // (deepseek_workload_base_configs.py *_FP8_MX_V1: moe_a2a_overlap=True); the others do not.
      w.ep_comm_overlap = row.at("precision") == "fp8-mx" && (row.at("gpu") == "GB200" || row.at("gpu") == "GB300") &&
                          starts_with(row.at("id"), "mb2602_");
    }
  }
  return s;
}

// The published step time, from the source's own metric.
double published_step_s(const test::CsvRow& row, const ModelSpec& model) {
  const double value = std::stod(row.at("value"));
  const auto gpus = static_cast<double>(integer(row, "num_gpus"));
  const auto tokens = static_cast<double>(integer(row, "global_batch") * integer(row, "seq_len"));
  const std::string& metric = row.at("metric");
  if (metric == "iteration_time_s") return value;
  if (metric == "tokens_per_s_per_gpu") return tokens / (value * gpus);
  REQUIRE(metric == "tflops_per_gpu");
  // BLOOM: Megatron-DeepSpeed's logged TFLOPs, SC21 Eq. 3 (96·B·s·l·h²·(1 + s/6h + V/16lh), recompute counted).
  const auto B = static_cast<double>(integer(row, "global_batch")), s = static_cast<double>(integer(row, "seq_len"));
  const auto L = static_cast<double>(model.num_layers), h = static_cast<double>(model.hidden_size);
  const auto V = static_cast<double>(model.vocab_size);
  const double flops = 96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
  return flops / (value * 1e12 * gpus);
}

// The predicted value in the published metric's unit.
double in_published_metric(const test::CsvRow& row, double step_s, double published_step, double published_value) {
  const std::string& metric = row.at("metric");
  if (metric == "iteration_time_s") return step_s;
  return published_value * published_step / step_s;  // throughput scales as 1/step
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace meshscope::validation_rows
