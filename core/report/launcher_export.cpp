// Launcher configs out (launcher_export.hpp). Every flag written is one the importers read back
// (core/importers/launcher_*.cpp), so that import → export → import gives the same project.
#include "core/report/launcher_export.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include "core/memory/memory.hpp"

namespace meshscope {
namespace {

// GPUs per node of the project's cluster: gpu_count / nodes of a `nodes=K` generator string, else 8
// where it divides the count, else all on one node.
int64_t gpus_per_node(const Project& project) {
  static const std::regex nodes_key(R"((^|[:,])nodes=([0-9]{1,9})(?![0-9]))");
  std::smatch match;
  const std::string cluster = project.cluster;
  const int64_t gpus = std::max<int64_t>(1, project.gpu_count);
  if (!project.cluster_inline && std::regex_search(cluster, match, nodes_key)) {
    const int64_t nodes = std::stoll(match[2].str());
    if (nodes > 0 && gpus % nodes == 0) return gpus / nodes;
  }
  if (project.cluster_inline && project.cluster_inline->num_nodes() > 0 &&
      gpus % project.cluster_inline->num_nodes() == 0)
    return gpus / project.cluster_inline->num_nodes();
  return gpus % 8 == 0 ? 8 : gpus;
}

int64_t layers_per_chunk(const Project& project) {
  const Layout& l = project.layout;
  return project.model.num_layers / std::max<int64_t>(1, l.pp * std::max<int64_t>(1, l.vpp));
}

std::string placeholder(LauncherExport& out, const std::string& name, const std::string& what) {
  std::string marked = "<" + name + ">";
  out.placeholders.push_back(marked + ": " + what);
  return marked;
}

// In bash a bare < is a redirection: the placeholder is quoted.
std::string quoted_placeholder(LauncherExport& out, const std::string& name, const std::string& what) {
  return "\"" + placeholder(out, name, what) + "\"";
}

}  // namespace

LauncherExport export_torchtitan_toml(const Project& project) {
  LauncherExport out;
  const Layout& layout = project.layout;
  const TrainingWorkload& w = project.training;
  toml::table root;
  root.insert("job", toml::table{{"description", project.name},
                                 {"dump_folder", placeholder(out, "DUMP_FOLDER", "where torchtitan writes outputs")}});
  toml::table model;
  if (const auto tt = torchtitan_model_for_preset(project.model_ref)) {
    model.insert("name", tt->first);
    model.insert("flavor", tt->second);
  } else {
    model.insert("name", placeholder(out, "MODEL_NAME", "torchtitan's model name for " + project.model.name));
    model.insert("flavor", placeholder(out, "MODEL_FLAVOR", "torchtitan's flavor for " + project.model.name));
    out.warnings.push_back(project.model.name + " has no torchtitan name and flavor meshscope knows");
  }
  model.insert("hf_assets_path", placeholder(out, "HF_ASSETS_PATH", "the tokenizer and config files"));
  if (w.compute_dtype == DType::fp8) model.insert("converters", toml::array{"float8"});
  if (w.compute_dtype == DType::fp4)
    out.warnings.emplace_back("NVFP4 training is not a torchtitan converter meshscope writes: bf16 written");
  root.insert("model", std::move(model));

  // ZeRO-3 is FSDP (shard over the ZeRO group, replicate over the rest: HSDP); ZeRO 0 is replication.
  int64_t shard = 1;
  int64_t replicate = layout.dp;
  if (w.zero_stage == 3) {
    shard = layout.shard_group();
    replicate = layout.dp / std::max<int64_t>(1, shard);
  } else if (w.zero_stage != 0) {
    out.warnings.push_back("ZeRO stage " + std::to_string(w.zero_stage) +
                           " is not a torchtitan option: written as data-parallel replication (ZeRO 0); use "
                           "data_parallel_shard_degree for FSDP");
  }
  toml::table parallelism{
      {"data_parallel_replicate_degree", replicate},
      {"data_parallel_shard_degree", shard},
      {"tensor_parallel_degree", layout.tp},
      {"enable_async_tensor_parallel", w.tp_comm_overlap},
      {"pipeline_parallel_degree", layout.pp},
      {"context_parallel_degree", layout.cp},
      {"expert_parallel_degree", layout.ep},
      {"expert_tensor_parallel_degree", layout.etp},
      {"fsdp_reshard_after_forward", std::string(reshard_after_forward_name(w.reshard_after_forward))}};
  if (layout.pp > 1) {
    const bool interleaved = layout.vpp > 1;
    std::string schedule = interleaved ? "Interleaved1F1B" : "1F1B";
    if (w.schedule == PipelineSchedule::gpipe)
      schedule = "GPipe";
    else if (w.schedule != PipelineSchedule::one_f_one_b && w.schedule != PipelineSchedule::interleaved)
      out.warnings.push_back("the " + std::string(enum_name(w.schedule)) + " schedule is written as " + schedule);
    parallelism.insert("pipeline_parallel_schedule", schedule);
    parallelism.insert("pipeline_parallel_microbatch_size", layout.micro_batch);
    if (interleaved) parallelism.insert("pipeline_parallel_layers_per_stage", layers_per_chunk(project));
    if (!layout.pipeline_layout.empty())
      out.warnings.emplace_back("the pipeline layout (pp_layout) is not written: torchtitan splits the layers evenly");
  }
  if (!layout.sp && layout.tp > 1)
    out.warnings.emplace_back("torchtitan's tensor parallelism always shards the norms over the sequence (SP)");
  root.insert("parallelism", std::move(parallelism));

  const int64_t local = layout.pp > 1 ? w.global_batch / std::max<int64_t>(1, layout.dp) : layout.micro_batch;
  toml::table training{{"local_batch_size", local},
                       {"global_batch_size", w.global_batch},
                       {"seq_len", w.seq_len},
                       {"mixed_precision_param", w.param_dtype == DType::fp16 ? "float16" : "bfloat16"},
                       {"dataset", placeholder(out, "DATASET", "the dataset name")}};
  root.insert("training", std::move(training));

  toml::table ac;
  switch (w.recompute) {
    case RecomputeMode::none:
      ac.insert("mode", "none");
      break;
    case RecomputeMode::full:
      ac.insert("mode", "full");
      break;
    case RecomputeMode::op:
      ac.insert("mode", "selective");
      ac.insert("selective_ac_option", "op");
      break;
    case RecomputeMode::selective:
      ac.insert("mode", "selective");
      ac.insert("selective_ac_option", "op");
      out.warnings.emplace_back(
          "Korthikanti's selective recomputation is not a torchtitan option: written as op-level "
          "selective AC");
      break;
    case RecomputeMode::layers: {
      const int64_t every = std::max<int64_t>(1, layers_per_chunk(project) / std::max<int64_t>(1, w.recompute_layers));
      ac.insert("mode", "selective");
      ac.insert("selective_ac_option", std::to_string(every));
      out.warnings.push_back(std::to_string(w.recompute_layers) + " recomputed layers per stage are written as every " +
                             std::to_string(every) + "th block");
      break;
    }
  }
  root.insert("activation_checkpoint", std::move(ac));
  root.insert("compile", toml::table{{"enable", !w.eager_kernels}, {"components", toml::array{"model", "loss"}}});

  std::ostringstream text;
  text << "# torchtitan job config exported by meshscope: " << project.name << "\n"
       << "# Values in <angle brackets> are yours to fill in. Run with: torchrun --nproc_per_node "
       << gpus_per_node(project) << " --nnodes " << std::max<int64_t>(1, project.gpu_count / gpus_per_node(project))
       << " -m torchtitan.train --job.config_file THIS_FILE\n\n"
       << root << "\n";
  out.text = text.str();
  return out;
}

namespace {

// `NAME=(\n    line\n    …\n)`: one bash array of the script, a flag per line.
void write_bash_array(std::ostringstream& s, const std::string& name, const std::vector<std::string>& lines) {
  s << name << "=(\n";
  for (const auto& line : lines) s << "    " << line << "\n";
  s << ")\n\n";
}

// The script's head: the environment, the torchrun rendezvous and the paths left to the user.
void write_megatron_header(std::ostringstream& s, LauncherExport& out, const Project& project) {
  const int64_t per_node = gpus_per_node(project);
  const int64_t nodes = std::max<int64_t>(1, project.gpu_count / per_node);
  s << "#!/bin/bash\n# Megatron-LM arguments exported by meshscope: " << project.name << "\n"
    << "# Values in <angle brackets> are yours to fill in; run from the root of a Megatron-LM checkout.\n\n"
    << "export CUDA_DEVICE_MAX_CONNECTIONS=1\n\n"
    << "GPUS_PER_NODE=" << per_node << "\nNUM_NODES=" << nodes << "\n"
    << "MASTER_ADDR=" << quoted_placeholder(out, "MASTER_ADDR", "the first node's address") << "\nMASTER_PORT=29500\n"
    << "DATA_PATH=" << quoted_placeholder(out, "DATA_PATH", "the dataset prefix (--data-path)") << "\n"
    << "TOKENIZER_MODEL=" << quoted_placeholder(out, "TOKENIZER_MODEL", "the tokenizer (--tokenizer-model)") << "\n"
    << "CHECKPOINT_PATH=" << quoted_placeholder(out, "CHECKPOINT_PATH", "where checkpoints are saved and loaded")
    << "\n\n";
}

// GPT_MODEL_ARGS: the architecture, its MoE layers included.
std::vector<std::string> megatron_model_args(const ModelSpec& m, const TrainingWorkload& w, LauncherExport& out) {
  std::vector<std::string> model{
      "--num-layers " + std::to_string(m.num_layers), "--hidden-size " + std::to_string(m.hidden_size),
      "--ffn-hidden-size " + std::to_string(m.ffn_hidden_size), "--num-attention-heads " + std::to_string(m.num_heads)};
  if (m.num_kv_heads != m.num_heads) {
    model.emplace_back("--group-query-attention");
    model.push_back("--num-query-groups " + std::to_string(m.num_kv_heads));
  }
  model.push_back("--kv-channels " + std::to_string(m.head_dim > 0 ? m.head_dim : m.hidden_size / m.num_heads));
  model.push_back("--seq-length " + std::to_string(w.seq_len));
  model.push_back("--max-position-embeddings " +
                  std::to_string(m.max_position_embeddings > 0 ? m.max_position_embeddings : w.seq_len));
  model.push_back(std::string("--position-embedding-type ") +
                  (m.position == PositionKind::rotary ? "rope" : "learned_absolute"));
  model.push_back(std::string("--normalization ") + (m.norm == NormKind::rmsnorm ? "RMSNorm" : "LayerNorm"));
  if (m.mlp == MlpKind::gated) model.emplace_back("--swiglu");
  if (!m.tied_embeddings) model.emplace_back("--untie-embeddings-and-output-weights");
  const bool bias = m.attn_out_bias || m.mlp_bias;
  if (!bias) model.emplace_back("--disable-bias-linear");
  if (!bias && m.qkv_bias) model.emplace_back("--add-qkv-bias");
  if (bias && (!m.attn_out_bias || !m.mlp_bias || !m.qkv_bias))
    out.warnings.emplace_back("Megatron-LM biases all linear layers or none (--disable-bias-linear): all are written");
  if (m.qk_norm) model.emplace_back("--qk-layernorm");
  model.emplace_back(m.dropout ? "--attention-dropout 0.1" : "--attention-dropout 0.0");
  model.emplace_back(m.dropout ? "--hidden-dropout 0.1" : "--hidden-dropout 0.0");
  if (m.is_moe()) {
    model.push_back("--num-experts " + std::to_string(m.moe.num_experts));
    model.push_back("--moe-router-topk " + std::to_string(m.moe.top_k));
    model.push_back("--moe-ffn-hidden-size " + std::to_string(m.moe.expert_ffn_hidden_size));
    if (m.moe.num_shared_experts > 0)
      model.push_back("--moe-shared-expert-intermediate-size " +
                      std::to_string(m.moe.num_shared_experts * m.moe.shared_expert_ffn_hidden_size));
    if (m.moe.layer_frequency != 1) model.push_back("--moe-layer-freq " + std::to_string(m.moe.layer_frequency));
    model.push_back("--moe-token-dispatcher-type " + std::string(enum_name(w.moe_dispatcher)));
    if (m.moe.first_dense_layers > 0)
      out.warnings.emplace_back("the leading dense layers are not written (give --moe-layer-freq as a list)");
  }
  if (m.mla.enabled()) out.warnings.emplace_back("multi-latent attention (--multi-latent-attention) is not written");
  return model;
}

// The recomputation flags of TRAINING_ARGS (--recompute-granularity, -method, -num-layers, -modules).
void add_megatron_recompute_args(const TrainingWorkload& w, std::vector<std::string>& training, LauncherExport& out) {
  switch (w.recompute) {
    case RecomputeMode::none:
      break;
    case RecomputeMode::selective: {
      training.emplace_back("--recompute-granularity selective");
      // --recompute-modules (nargs='*', default core_attn): the modules, space-separated.
      if (w.recompute_modules != recompute_bit(RecomputeModule::core_attn)) {
        std::string modules = recompute_modules_text(w.recompute_modules);
        std::replace(modules.begin(), modules.end(), '+', ' ');
        training.push_back("--recompute-modules" + (w.recompute_modules == 0 ? std::string() : " " + modules));
      }
      break;
    }
    case RecomputeMode::op:
      training.emplace_back("--recompute-granularity selective");
      out.warnings.emplace_back("torchtitan's op-level AC is written as Megatron-LM's selective recomputation");
      break;
    case RecomputeMode::full:
      training.emplace_back("--recompute-granularity full");
      training.emplace_back("--recompute-method uniform");
      training.emplace_back("--recompute-num-layers 1");
      break;
    case RecomputeMode::layers:
      training.emplace_back("--recompute-granularity full");
      training.emplace_back("--recompute-method block");
      training.push_back("--recompute-num-layers " + std::to_string(w.recompute_layers));
      break;
  }
}

// TRAINING_ARGS: batch, precision, optimizer sharding, overlaps, recomputation, MoE capacity, CUDA graphs.
std::vector<std::string> megatron_training_args(const Layout& layout, const TrainingWorkload& w, LauncherExport& out) {
  std::vector<std::string> training{"--micro-batch-size " + std::to_string(layout.micro_batch),
                                    "--global-batch-size " + std::to_string(w.global_batch),
                                    "--train-iters " + quoted_placeholder(out, "TRAIN_ITERS", "the number of steps"),
                                    "--lr " + quoted_placeholder(out, "LR", "the learning rate")};
  const bool fp16 = w.compute_dtype == DType::fp16 || (w.compute_dtype == DType::fp8 && w.param_dtype == DType::fp16);
  training.emplace_back(fp16 ? "--fp16" : "--bf16");
  if (w.compute_dtype == DType::fp8) {
    training.emplace_back("--fp8-format hybrid");
    // Megatron-LM's --fp8-recipe names current scaling "tensorwise"; without it, delayed (as auto).
    if (w.fp8_recipe == Fp8Recipe::current)
      training.emplace_back("--fp8-recipe tensorwise");
    else if (w.fp8_recipe != Fp8Recipe::automatic)
      training.push_back("--fp8-recipe " + std::string(enum_name(w.fp8_recipe)));
  }
  if (w.compute_dtype == DType::fp4) training.emplace_back("--fp4-format e2m1 --fp4-recipe nvfp4");
  if (w.grad_dtype == DType::bf16) training.emplace_back("--grad-reduce-in-bf16");
  if (w.zero_stage >= 1) training.emplace_back("--use-distributed-optimizer");
  if (w.zero_stage >= 2)
    out.warnings.push_back("ZeRO stage " + std::to_string(w.zero_stage) +
                           " is written as Megatron-LM's distributed optimizer (ZeRO-1)");
  if (w.overlap_grad_reduce) training.emplace_back("--overlap-grad-reduce");
  if (w.overlap_param_gather) training.emplace_back("--overlap-param-gather");
  if (w.ep_comm_overlap) training.emplace_back("--overlap-moe-expert-parallel-comm");
  if (w.tp_comm_overlap) training.emplace_back("--tp-comm-overlap");
  if (!w.overlap_p2p_comm) training.emplace_back("--no-overlap-p2p-communication");
  if (w.overlap_p2p_comm_warmup_flush) training.emplace_back("--overlap-p2p-communication-warmup-flush");
  add_megatron_recompute_args(w, training, out);
  if (w.moe_capacity_factor > 0) {
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", w.moe_capacity_factor);
    training.push_back(std::string("--moe-expert-capacity-factor ") + factor);
    training.emplace_back("--moe-pad-expert-input-to-capacity");
  }
  if (w.cuda_graphs) training.emplace_back("--cuda-graph-impl local");
  if (w.cuda_graphs && w.cuda_graph_moe_router)
    training.emplace_back("--cuda-graph-scope attn moe_router moe_preprocess");
  if (!w.flash_attention) training.emplace_back("--attention-backend unfused");
  if (w.eager_kernels) out.warnings.emplace_back("eager element-wise kernels are not a Megatron-LM option");
  return training;
}

// MODEL_PARALLEL_ARGS: the TP, PP (virtual stages or a layout), CP and expert degrees.
std::vector<std::string> megatron_parallel_args(const Project& project, LauncherExport& out) {
  const ModelSpec& m = project.model;
  const Layout& layout = project.layout;
  const TrainingWorkload& w = project.training;
  std::vector<std::string> parallel{"--tensor-model-parallel-size " + std::to_string(layout.tp),
                                    "--pipeline-model-parallel-size " + std::to_string(layout.pp),
                                    "--context-parallel-size " + std::to_string(layout.cp)};
  if (!layout.pipeline_layout.empty())  // its chunks give the virtual stages
    parallel.push_back("--pipeline-model-parallel-layout \"" + layout.pipeline_layout + "\"");
  else if (layout.vpp > 1)
    parallel.push_back("--num-layers-per-virtual-pipeline-stage " + std::to_string(layers_per_chunk(project)));
  if (layout.sp && layout.tp > 1) parallel.emplace_back("--sequence-parallel");
  if (resolved_cp_comm(w) == CpComm::all_to_all) parallel.emplace_back("--cp-comm-type a2a");
  if (layout.cp > 1 && resolved_cp_comm(w) == CpComm::torch)
    out.warnings.emplace_back(
        "PyTorch's context parallelism (cp_comm=torch) is torchtitan's: written as Megatron's p2p ring");
  if (m.is_moe()) {
    parallel.push_back("--expert-model-parallel-size " + std::to_string(layout.ep));
    parallel.push_back("--expert-tensor-parallel-size " + std::to_string(layout.etp));
  }
  if (!layout.stage_layers.empty()) out.warnings.emplace_back("the uneven stage split is not written");
  return parallel;
}

}  // namespace

LauncherExport export_megatron_args(const Project& project) {
  LauncherExport out;
  std::ostringstream s;
  write_megatron_header(s, out, project);
  write_bash_array(s, "DISTRIBUTED_ARGS",
                   {"--nproc_per_node $GPUS_PER_NODE", "--nnodes $NUM_NODES", "--master_addr \"$MASTER_ADDR\"",
                    "--master_port $MASTER_PORT"});
  write_bash_array(s, "GPT_MODEL_ARGS", megatron_model_args(project.model, project.training, out));
  write_bash_array(s, "TRAINING_ARGS", megatron_training_args(project.layout, project.training, out));
  write_bash_array(s, "MODEL_PARALLEL_ARGS", megatron_parallel_args(project, out));
  // --vocab-size is what the embedding is sized by (NullTokenizer); a Hugging Face tokenizer brings its own.
  write_bash_array(
      s, "DATA_ARGS",
      {"--data-path \"$DATA_PATH\"", "--tokenizer-type HuggingFaceTokenizer", "--tokenizer-model \"$TOKENIZER_MODEL\"",
       "--vocab-size " + std::to_string(project.model.vocab_size), "--split 949,50,1"});
  write_bash_array(s, "EVAL_AND_LOGGING_ARGS",
                   {"--log-interval 10", "--save \"$CHECKPOINT_PATH\"", "--load \"$CHECKPOINT_PATH\""});
  s << "torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \\\n"
    << "    ${GPT_MODEL_ARGS[@]} \\\n    ${TRAINING_ARGS[@]} \\\n    ${MODEL_PARALLEL_ARGS[@]} \\\n"
    << "    ${DATA_ARGS[@]} \\\n    ${EVAL_AND_LOGGING_ARGS[@]}\n";
  out.text = s.str();
  return out;
}

LauncherExport export_deepspeed_json(const Project& project) {
  LauncherExport out;
  const Layout& layout = project.layout;
  const TrainingWorkload& w = project.training;
  if (layout.tp > 1 || layout.pp > 1 || layout.cp > 1 || layout.ep > 1)
    out.warnings.emplace_back(
        "a DeepSpeed config holds data parallelism only: TP, PP, CP and EP are the training "
        "script's (Megatron-DeepSpeed arguments)");
  const int64_t per_step = layout.micro_batch * layout.dp;
  nlohmann::ordered_json doc;
  doc["train_batch_size"] = w.global_batch;
  doc["train_micro_batch_size_per_gpu"] = layout.micro_batch;
  doc["gradient_accumulation_steps"] = per_step > 0 ? w.global_batch / per_step : 1;
  const bool fp16 = w.compute_dtype == DType::fp16 || w.param_dtype == DType::fp16;
  if (w.compute_dtype == DType::fp8 || w.compute_dtype == DType::fp4)
    out.warnings.push_back(std::string(w.compute_dtype == DType::fp8 ? "FP8" : "NVFP4") +
                           " is not a DeepSpeed config option: bf16 written");
  doc["fp16"] = {{"enabled", fp16}};
  doc["bf16"] = {{"enabled", !fp16}};
  nlohmann::ordered_json zero;
  zero["stage"] = w.zero_stage;
  zero["overlap_comm"] = w.overlap_grad_reduce;
  if (w.zero_stage == 3 && !w.fsdp_prefetch) zero["stage3_prefetch_bucket_size"] = 0;
  doc["zero_optimization"] = zero;
  doc["optimizer"] = {{"type", w.optimizer == Optimizer::adam ? "AdamW" : "SGD"},
                      {"params", {{"lr", placeholder(out, "LR", "the learning rate")}}}};
  doc["gradient_clipping"] = 1.0;
  out.text = doc.dump(4) + "\n";
  return out;
}

Result<LauncherExport> export_launcher_config(const Project& project, LauncherFormat format) {
  if (project.mode != Mode::training)
    return make_error(ErrorCode::unsupported, "a launcher config is of a training run: the project is in serving mode",
                      "project " + project.name + ": mode");
  switch (format) {
    case LauncherFormat::torchtitan:
      return export_torchtitan_toml(project);
    case LauncherFormat::deepspeed:
      return export_deepspeed_json(project);
    case LauncherFormat::megatron:
      break;
  }
  return export_megatron_args(project);
}

Project project_with_ranked_layout(Project project, const RankedLayout& ranked) {
  project.layout = ranked.layout;
  project.training.recompute = ranked.recompute;
  project.training.zero_stage = ranked.zero_stage;
  project.training.schedule = ranked.schedule;
  project.training.tp_comm_overlap = ranked.tp_comm_overlap;
  project.order = ranked.order;
  return project;
}

}  // namespace meshscope
