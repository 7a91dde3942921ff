// The figures a lesson's text quotes ({placeholders}, core/session/lesson.hpp), each computed from
// evaluate_project or search_project of the step's project, never typed into a lesson. Units:
// memory budgets in GiB (2^30 bytes, as the app's memory view), weights and traffic in GB (10^9
// bytes, as model cards and TEACHING.md quote "140 GB of BF16 weights"), times in ms.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>

#include "core/hardware/dtype.hpp"
#include "core/session/lesson.hpp"

namespace meshscope {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;

const std::vector<std::string_view>& axis_suffixes() {
  static const std::vector<std::string_view> axes = {
      "dp", "tp", "pp", "cp", "ep", "etp", "edp", "fsdp_shard", "fsdp_replicate"};
  return axes;
}

// Three significant figures, at most two decimals, thousands grouped: 61.2, 0.01, 12,345.
std::string number(double value) {
  char buffer[64];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (magnitude < 10000) return text;
  const size_t digits_begin = text[0] == '-' ? 1 : 0;
  for (size_t i = text.size(); i > digits_begin + 3; i -= 3) text.insert(i - 3, ",");
  return text;
}
std::string with_unit(double value, std::string_view unit) {
  return number(value) + (unit.empty() ? "" : (unit == "%" ? "" : " ") + std::string(unit));
}

std::string training_layout_text(const Layout& l) {
  std::string text = "TP " + std::to_string(l.tp) + " × PP " + std::to_string(l.pp) + " × DP " + std::to_string(l.dp);
  if (l.cp > 1) text += " × CP " + std::to_string(l.cp);
  if (l.ep > 1) text += " (EP " + std::to_string(l.ep) + ")";
  if (l.vpp > 1) text += ", VPP " + std::to_string(l.vpp);
  return text + ", micro-batch " + std::to_string(l.micro_batch);
}
std::string ranked_text(const RankedLayout& r) {
  return training_layout_text(r.layout) + ", ZeRO-" + std::to_string(r.zero_stage) + ", " +
         std::string(enum_name(r.schedule));
}
std::string serving_layout_text(const ServingLayout& l) {
  std::string text = std::to_string(l.replicas) + " × (TP " + std::to_string(l.tp) + " × PP " + std::to_string(l.pp);
  if (l.dp > 1) text += " × attention-DP " + std::to_string(l.dp);
  if (l.ep > 1) text += ", EP " + std::to_string(l.ep);
  return text + ")";
}

const RankMemory* busiest_rank(const MemoryBudget& budget) {
  const RankMemory* busiest = nullptr;
  for (const auto& rank : budget.ranks)
    if (!busiest || rank.total_bytes() > busiest->total_bytes()) busiest = &rank;
  return busiest;
}

// What one figure needs, and what it is computed from.
struct FigureContext {
  const Project& project;
  const Evaluation& evaluation;
  const SearchEvaluation* search;  // null unless a figure needs it
};

Error unavailable(const std::string& name, const std::string& why) {
  return Error{ErrorCode::invalid_argument, "{" + name + "} is not available: " + why, "figure " + name};
}

Result<const StepEstimate*> training_estimate(const FigureContext& c, const std::string& name) {
  if (c.project.mode != Mode::training) return tl::unexpected(unavailable(name, "the project is in serving mode"));
  if (!c.evaluation.problems.empty())
    return tl::unexpected(unavailable(name, "the layout is not valid: " + c.evaluation.problems.front().message));
  if (!c.evaluation.estimate) return tl::unexpected(unavailable(name, c.evaluation.estimate_error));
  return c.evaluation.estimate.get();
}
Result<const ServingEstimate*> serving_estimate(const FigureContext& c, const std::string& name) {
  if (c.project.mode != Mode::serving) return tl::unexpected(unavailable(name, "the project is in training mode"));
  if (!c.evaluation.problems.empty())
    return tl::unexpected(unavailable(name, "the layout is not valid: " + c.evaluation.problems.front().message));
  if (!c.evaluation.serving) return tl::unexpected(unavailable(name, c.evaluation.estimate_error));
  return c.evaluation.serving.get();
}
Result<const MemoryBudget*> budget(const FigureContext& c, const std::string& name) {
  if (!c.evaluation.budget || c.evaluation.budget->ranks.empty()) {
    const std::string why = c.evaluation.problems.empty()
                                ? c.evaluation.estimate_error
                                : "the layout is not valid: " + c.evaluation.problems.front().message;
    return tl::unexpected(unavailable(name, why));
  }
  return c.evaluation.budget.get();
}

// exposed_comm_ms.<axis>: the busiest stage's exposed time of that axis (StepBreakdown).
Result<std::string> exposed_comm(const StepEstimate& e, std::string_view axis, const std::string& name) {
  const StepBreakdown& b = e.breakdown;
  double seconds = 0;
  if (axis == "dp" || axis == "fsdp_shard" || axis == "fsdp_replicate" || axis == "edp")
    seconds = b.dp_exposed_s;
  else if (axis == "tp" || axis == "etp")
    seconds = b.tp_exposed_s;
  else if (axis == "pp")
    seconds = b.pp_p2p_s;
  else if (axis == "cp")
    seconds = b.cp_exposed_s;
  else if (axis == "ep")
    seconds = b.ep_exposed_s;
  else
    return tl::unexpected(unavailable(name, "no such axis"));
  return with_unit(seconds * 1e3, "ms");
}

const AxisComm* axis_comm(const StepEstimate& e, std::string_view axis) {
  for (const auto& a : e.comm.axes)
    if (enum_name(a.axis) == axis) return &a;
  return nullptr;
}

Result<std::string> family_figure(const FigureContext& c, std::string_view family, std::string_view suffix,
                                  const std::string& name) {
  if (family == "memory_gib") {
    MS_TRY(b, budget(c, name));
    const auto category = parse_enum<MemoryCategory>(suffix);
    if (!category) return tl::unexpected(unavailable(name, "no such memory category"));
    return with_unit(busiest_rank(*b)->bytes(*category) / kGiB, "GiB");
  }
  MS_TRY(e, training_estimate(c, name));
  if (family == "exposed_comm_ms") return exposed_comm(*e, suffix, name);
  const AxisComm* a = axis_comm(*e, suffix);
  if (family == "bytes_per_step_gb") return with_unit(a ? a->bytes_per_step / kGB : 0.0, "GB");
  if (family == "comm_ms") return with_unit(a ? a->time_per_step_s * 1e3 : 0.0, "ms");
  if (family == "tier") return a ? std::string(path_tier_name(a->tier)) : std::string("none (degree 1)");
  if (family == "group_size") return std::to_string(a ? a->group_size : 1);
  return tl::unexpected(unavailable(name, "unknown figure"));
}

Result<std::string> training_figure(const FigureContext& c, const std::string& name) {
  MS_TRY(e, training_estimate(c, name));
  if (name == "step_time_ms") return with_unit(e->step_time_s * 1e3, "ms");
  if (name == "step_time_s") return with_unit(e->step_time_s, "s");
  if (name == "tokens_per_s_per_gpu") return with_unit(e->tokens_per_s_per_gpu, "tokens/s");
  if (name == "tokens_per_s") return with_unit(e->tokens_per_s, "tokens/s");
  if (name == "mfu_percent") return with_unit(e->mfu * 100, "%");
  if (name == "model_tflops_per_gpu") return with_unit(e->model_tflops_per_gpu, "TFLOP/s");
  if (name == "bubble_percent") return with_unit(e->bubble_fraction * 100, "%");
  if (name == "micro_batches") return std::to_string(e->micro_batches);
  if (name == "gpipe_bubble_percent") {
    // GPipe's idle share of a step, (p − 1)/(m + p − 1) for p stages and m micro-batches
    // (Huang et al. 2019, §2.2; Narayanan et al. SC21 §2.2.1 writes it as (p − 1)/m of the ideal time).
    const double p = static_cast<double>(c.project.layout.pp), m = static_cast<double>(e->micro_batches);
    return with_unit((p - 1) / (m + p - 1) * 100, "%");
  }
  if (name == "local_batch")
    return std::to_string(c.project.training.global_batch / std::max<int64_t>(1, c.project.layout.dp));
  return tl::unexpected(unavailable(name, "unknown figure"));
}

Result<std::string> serving_figure(const FigureContext& c, const std::string& name) {
  MS_TRY(s, serving_estimate(c, name));
  if (name == "ttft_ms") return with_unit(s->point.ttft_s * 1e3, "ms");
  if (name == "tpot_ms") return with_unit(s->point.itl_s * 1e3, "ms");
  if (name == "output_tokens_per_s") return with_unit(s->output_tokens_per_s, "tokens/s");
  if (name == "output_tokens_per_s_per_gpu") return with_unit(s->output_tokens_per_s_per_gpu, "tokens/s");
  if (name == "max_batch") return std::to_string(s->max_batch);
  if (name == "kv_max_batch") return std::to_string(s->kv_max_batch);
  if (name == "running") return std::to_string(s->point.running);
  return tl::unexpected(unavailable(name, "unknown figure"));
}

Result<std::string> search_figure(const FigureContext& c, const std::string& name) {
  const SearchEvaluation& s = *c.search;
  if (!s.error.empty()) return tl::unexpected(unavailable(name, s.error));
  if (c.project.mode == Mode::serving) {
    if (!s.serving || s.serving->layouts.empty())
      return tl::unexpected(unavailable(name, "no serving layout meets the target"));
    const RankedServing& best = s.serving->layouts.front();
    if (name == "best_layout") return serving_layout_text(best.layout);
    if (name == "best_tokens_per_s_per_gpu") return with_unit(best.output_tokens_per_s_per_gpu, "tokens/s");
    return tl::unexpected(unavailable(name, "a training figure (the project is in serving mode)"));
  }
  if (!s.training || s.training->layouts.empty()) return tl::unexpected(unavailable(name, "no training layout fits"));
  const RankedLayout& best = s.training->layouts.front();
  if (name == "best_layout") return ranked_text(best);
  if (name == "best_tokens_per_s_per_gpu") return with_unit(best.tokens_per_s_per_gpu, "tokens/s");
  if (name == "best_mfu_percent") return with_unit(best.mfu * 100, "%");
  if (name == "best_peak_memory_gib") return with_unit(best.peak_memory_bytes / kGiB, "GiB");
  if (name == "valid_layouts") return std::to_string(s.training->valid);
  return tl::unexpected(unavailable(name, "unknown figure"));
}

Result<std::string> project_figure(const FigureContext& c, const std::string& name) {
  const Project& p = c.project;
  if (name == "model") return p.model.name;
  if (name == "gpu") return p.gpu.name;
  if (name == "gpus") return std::to_string(p.gpu_count);
  if (name == "layout")
    return p.mode == Mode::training ? training_layout_text(p.layout) : serving_layout_text(p.serving_layout);
  if (name == "params_billion") return number(count_params(p.model).total_params() / 1e9) + " billion";
  if (name == "weights_gb") {
    // All of the model's weights at the mode's dtype: training's param_dtype, serving's weight dtype (with scales).
    const double bytes_per_param =
        p.mode == Mode::training ? dtype_bytes(p.training.param_dtype) : p.serving.weight_bytes_per_param();
    return with_unit(count_params(p.model).total_params() * bytes_per_param / kGB, "GB");
  }
  if (name == "capacity_gib") return with_unit(p.gpu.memory_bytes / kGiB, "GiB");
  MS_TRY(b, budget(c, name));
  const double peak = b->peak_total_bytes(), usable = b->usable_bytes;
  if (name == "peak_memory_gib") return with_unit(peak / kGiB, "GiB");
  if (name == "usable_gib") return with_unit(usable / kGiB, "GiB");
  if (name == "headroom_gib") return with_unit((usable - peak) / kGiB, "GiB");
  if (name == "fits") return std::string(peak <= usable ? "fits" : "does not fit");
  if (name == "kv_cache_gib") return with_unit(busiest_rank(*b)->bytes(MemoryCategory::kv_cache) / kGiB, "GiB");
  return tl::unexpected(unavailable(name, "unknown figure"));
}

Result<std::string> figure(const FigureContext& c, const std::string& name) {
  const size_t dot = name.find('.');
  if (dot != std::string::npos)
    return family_figure(c, std::string_view(name).substr(0, dot), std::string_view(name).substr(dot + 1), name);
  const auto& figures = lesson_figures();
  const auto it =
      std::find_if(figures.begin(), figures.end(), [&](const LessonFigureInfo& f) { return f.name == name; });
  if (it == figures.end()) return tl::unexpected(unavailable(name, "unknown figure"));
  switch (it->source) {
    case LessonFigureSource::project:
      return project_figure(c, name);
    case LessonFigureSource::training:
      return training_figure(c, name);
    case LessonFigureSource::serving:
      return serving_figure(c, name);
    case LessonFigureSource::search:
      return search_figure(c, name);
  }
  return tl::unexpected(unavailable(name, "unknown figure"));
}

}  // namespace

const std::vector<LessonFigureInfo>& lesson_figures() {
  constexpr auto kProject = LessonFigureSource::project, kTraining = LessonFigureSource::training,
                 kServing = LessonFigureSource::serving, kSearch = LessonFigureSource::search;
  static const std::vector<LessonFigureInfo> figures = {
      {"model", "", "the model's name", kProject},
      {"gpu", "", "the GPU model", kProject},
      {"gpus", "", "GPUs in the cluster", kProject},
      {"layout", "", "the project's layout: training TP × PP × DP (× CP, EP), or serving replicas × (TP × PP)",
       kProject},
      {"params_billion", "billion", "total parameters (embedding and head included)", kProject},
      {"weights_gb", "GB", "all weights at the mode's dtype (training param_dtype, serving weights), decimal GB",
       kProject},
      {"capacity_gib", "GiB", "the GPU's memory (binary GiB, as the memory view)", kProject},
      {"peak_memory_gib", "GiB", "the busiest rank's memory, every category (training budget or serving sizing)",
       kProject},
      {"usable_gib", "GiB", "what the budget may use: the capacity (training), × memory_fraction (serving)", kProject},
      {"headroom_gib", "GiB", "usable − peak (negative: does not fit)", kProject},
      {"fits", "", "\"fits\" or \"does not fit\"", kProject},
      // training (evaluate_project's StepEstimate)
      {"step_time_ms", "ms", "one optimizer step", kTraining},
      {"step_time_s", "s", "one optimizer step, in seconds (for steps of seconds)", kTraining},
      {"tokens_per_s_per_gpu", "tokens/s", "training tokens per second per GPU", kTraining},
      {"tokens_per_s", "tokens/s", "training tokens per second, whole job", kTraining},
      {"mfu_percent", "%", "model FLOPs utilisation (no recompute FLOPs) over the dense peak", kTraining},
      {"model_tflops_per_gpu", "TFLOP/s", "model FLOPs per second per GPU", kTraining},
      {"bubble_percent", "%", "the simulated schedule's idle share of the busiest stage", kTraining},
      {"micro_batches", "", "micro-batches per step per pipeline", kTraining},
      {"gpipe_bubble_percent", "%", "(p − 1)/(m + p − 1), GPipe (Huang et al. 2019), for the layout's p and m",
       kTraining},
      {"local_batch", "", "sequences per DP replica per step (global_batch ÷ dp)", kTraining},
      // serving (evaluate_project's ServingEstimate)
      {"ttft_ms", "ms", "time to first token at the workload's concurrency", kServing},
      {"tpot_ms", "ms", "time per output token (inter-token latency) at that concurrency", kServing},
      {"output_tokens_per_s", "tokens/s", "output tokens per second, whole deployment", kServing},
      {"output_tokens_per_s_per_gpu", "tokens/s", "output tokens per second per GPU", kServing},
      {"max_batch", "", "sequences one replica runs at once (KV cache and engine limit)", kServing},
      {"kv_max_batch", "", "sequences the free memory of one replica could hold in its KV cache", kServing},
      {"running", "", "sequences one replica runs at once at the workload's concurrency", kServing},
      {"kv_cache_gib", "GiB", "the busiest rank's KV cache for the sequences in flight (serving)", kProject},
      // search_project
      {"best_layout", "", "the search's top layout (training: ranked by tokens/s; serving: by tokens/s per GPU)",
       kSearch},
      {"best_tokens_per_s_per_gpu", "tokens/s", "the top layout's tokens per second per GPU", kSearch},
      {"best_mfu_percent", "%", "the top training layout's MFU", kSearch},
      {"best_peak_memory_gib", "GiB", "the top training layout's peak memory", kSearch},
      {"valid_layouts", "", "training layouts that are valid and fit", kSearch},
      // families: name.<suffix>
      {"memory_gib.<category>", "GiB",
       "the busiest rank's category: parameters, gradients, optimizer_state, "
       "activations, kv_cache, temporary, communication, runtime, allocator_headroom",
       kProject},
      {"exposed_comm_ms.<axis>", "ms", "the axis's exposed (not overlapped) time per step: dp, tp, pp, cp, ep",
       kTraining},
      {"comm_ms.<axis>", "ms", "the axis's collective time per step, overlapped or not", kTraining},
      {"bytes_per_step_gb.<axis>", "GB", "bytes per rank per step on the axis, nccl-tests convention, decimal GB",
       kTraining},
      {"tier.<axis>", "", "the slowest link tier a group of the axis crosses (nvlink, same-leaf, spine, ...)",
       kTraining},
      {"group_size.<axis>", "", "ranks in one group of the axis", kTraining},
  };
  return figures;
}

bool is_lesson_figure(std::string_view name) {
  const size_t dot = name.find('.');
  for (const auto& f : lesson_figures()) {
    if (dot == std::string_view::npos) {
      if (f.name == name) return true;
      continue;
    }
    const std::string_view family = name.substr(0, dot + 1), suffix = name.substr(dot + 1);
    if (!f.name.starts_with(family)) continue;
    if (family == "memory_gib.") return parse_enum<MemoryCategory>(suffix).has_value();
    const auto& axes = axis_suffixes();
    return std::find(axes.begin(), axes.end(), suffix) != axes.end();
  }
  return false;
}

std::string lesson_figures_markdown() {
  std::string out = "| placeholder | unit | meaning |\n|---|---|---|\n";
  for (const auto& f : lesson_figures())
    out += "| `{" + std::string(f.name) + "}` | " + std::string(f.unit) + " | " + std::string(f.meaning) +
           (f.source == LessonFigureSource::search ? " (search)" : "") + " |\n";
  return out;
}

Result<LessonFigureValues> compute_lesson_figures(const Project& project, const std::vector<std::string>& names,
                                                  ClusterCache& cache) {
  LessonFigureValues values;
  if (names.empty()) return values;
  const Evaluation evaluation = evaluate_project(project, cache);
  std::optional<SearchEvaluation> search;
  for (const std::string& name : names) {
    const auto& figures = lesson_figures();
    const auto it =
        std::find_if(figures.begin(), figures.end(), [&](const LessonFigureInfo& f) { return f.name == name; });
    if (it != figures.end() && it->source == LessonFigureSource::search && !search) {
      const std::atomic<bool> cancel{false};
      search = search_project(project, ServingTarget{}, cancel);
    }
  }
  const FigureContext context{project, evaluation, search ? &*search : nullptr};
  for (const std::string& name : names) {
    MS_TRY(value, figure(context, name));
    values[name] = std::move(value);
  }
  return values;
}

Result<RenderedLessonStep> render_lesson_step(const Lesson& lesson, int index, ClusterCache& cache) {
  if (index < 1 || index > static_cast<int>(lesson.steps.size()))
    return render_lesson_step_for(lesson, index, {}, cache);
  return render_lesson_step_for(lesson, index, lesson.steps[static_cast<size_t>(index - 1)].project, cache);
}

Result<RenderedLessonStep> render_lesson_step_for(const Lesson& lesson, int index, const Project& current,
                                                  ClusterCache& cache) {
  const std::string where = lesson.origin + ": step " + std::to_string(index);
  if (index < 1 || index > static_cast<int>(lesson.steps.size()))
    return make_error(
        ErrorCode::invalid_argument,
        "the lesson has " + std::to_string(lesson.steps.size()) + " steps; there is no step " + std::to_string(index),
        lesson.origin);
  const LessonStep& step = lesson.steps[static_cast<size_t>(index - 1)];
  const Project& previous = index == 1 ? lesson.base : lesson.steps[static_cast<size_t>(index - 2)].project;
  std::vector<std::string> now, before;
  for (const std::string& name : step.placeholders)
    (std::string_view(name).starts_with("prev.") ? before : now)
        .push_back(name.substr(name.starts_with("prev.") ? 5 : 0));
  auto values = compute_lesson_figures(current, now, cache);
  if (!values) return make_error(values.error().code, values.error().message, where);
  auto previous_values = compute_lesson_figures(previous, before, cache);
  if (!previous_values)
    return make_error(previous_values.error().code, "(the previous step) " + previous_values.error().message, where);
  RenderedLessonStep out;
  out.index = index;
  out.count = static_cast<int>(lesson.steps.size());
  out.view = step.view;
  out.axis = step.axis;
  for (auto& [name, value] : *previous_values) out.figures["prev." + name] = value;
  for (auto& [name, value] : *values) out.figures[name] = value;
  const std::string& text = step.text;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      out.text += text[i];
      continue;
    }
    const size_t close = text.find('}', i);  // balanced: checked when the lesson was loaded
    out.text += out.figures.at(text.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

}  // namespace meshscope
