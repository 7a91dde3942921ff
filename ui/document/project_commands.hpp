#pragma once
// The project's undoable edits (Qt's undo framework example): each command holds the part of the
// project it changes, before and after, and applies it through ProjectDocument::modify(). Repeated
// edits of one key (a spin box dragged, a field typed into) merge into one step via
// id()/mergeWith(); every command has a name a user reads in Edit → Undo.
#include <QUndoCommand>

#include <optional>
#include <utility>

#include "core/project/project.hpp"
#include "ui/document/project_document.hpp"

namespace meshscope::ui {

// Merge ids (QUndoCommand::id()); the topology editor's commands use 0x70d1, 0x70d2.
enum ProjectCommandId : int {
  kSetModelId = 0x5001,
  kSetTrainingKeyId,
  kSetServingKeyId,
  kSetLayoutId,
  kSetServingLayoutId,
  kSetServingTargetId,
  kReplaceClusterId,
};

// One part of the project, read and written as a value.
template <typename Part>
class SetPartCommand : public QUndoCommand {
 public:
  using Value = typename Part::Value;
  // `merge_key`: consecutive commands of this class with the same non-empty key merge.
  SetPartCommand(ProjectDocument* document, Value after, const QString& text, QString merge_key = {})
      : QUndoCommand(text),
        document_(document),
        before_(Part::get(document->project())),
        after_(std::move(after)),
        merge_key_(std::move(merge_key)) {}
  void redo() override { apply(after_); }
  void undo() override { apply(before_); }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* edit = static_cast<const SetPartCommand*>(other);  // same id(): same class
    if (merge_key_.isEmpty() || edit->merge_key_ != merge_key_) return false;
    after_ = edit->after_;
    setText(edit->text());
    return true;
  }

 private:
  void apply(const Value& value) {
    document_->modify(Part::kChange, [&value](Project& project) { Part::set(project, value); });
  }

  ProjectDocument* document_;
  Value before_, after_;
  QString merge_key_;
};

// ---- The parts ------------------------------------------------------------------------------------

struct ModelPart {
  struct Value {
    ModelSpec model;
    std::string model_ref;
  };
  static constexpr auto kChange = ProjectDocument::Change::project;
  static Value get(const Project& p) { return {p.model, p.model_ref}; }
  static void set(Project& p, const Value& v) {
    p.model = v.model;
    p.model_ref = v.model_ref;
  }
};

template <auto Member, ProjectDocument::Change C = ProjectDocument::Change::project>
struct MemberPart;
template <typename T, T Project::*Member, ProjectDocument::Change C>
struct MemberPart<Member, C> {
  using Value = T;
  static constexpr auto kChange = C;
  static Value get(const Project& p) { return p.*Member; }
  static void set(Project& p, const Value& v) { p.*Member = v; }
};

// The pipeline schedule: the workload's one field (TrainingWorkload::schedule).
struct SchedulePart {
  using Value = PipelineSchedule;
  static constexpr auto kChange = ProjectDocument::Change::project;
  static Value get(const Project& p) { return p.training.schedule; }
  static void set(Project& p, const Value& v) { p.training.schedule = v; }
};

// A value in the project's view state (the comparison schedule, the serving target); none: absent.
struct ViewKeyValue {
  std::string key;
  std::optional<nlohmann::json> value;
};

// The cluster and what follows from it (the GPU count, and the GPU model for an import).
struct ClusterPart {
  struct Value {
    std::string cluster;
    std::optional<Cluster> cluster_inline;
    int64_t gpu_count = 0;
    GpuSpec gpu;
  };
  static constexpr auto kChange = ProjectDocument::Change::cluster;
  static Value get(const Project& p) { return {p.cluster, p.cluster_inline, p.gpu_count, p.gpu}; }
  static void set(Project& p, const Value& v) {
    p.cluster = v.cluster;
    p.cluster_inline = v.cluster_inline;
    p.gpu_count = v.gpu_count;
    p.gpu = v.gpu;
  }
};

// A ranked training layout: the mesh and the choices the search made with it.
struct RankedChoicePart {
  struct Value {
    Layout layout;
    RecomputeMode recompute = RecomputeMode::selective;
    int zero_stage = 1;
    PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
    AxisOrder order = AxisOrder::megatron;
    bool tp_comm_overlap = false;  // the search's TP-overlap dimension (Megatron --tp-comm-overlap)
  };
  static constexpr auto kChange = ProjectDocument::Change::project;
  static Value get(const Project& p) {
    return {p.layout, p.training.recompute,      p.training.zero_stage, p.training.schedule,
            p.order,  p.training.tp_comm_overlap};
  }
  static void set(Project& p, const Value& v) {
    p.layout = v.layout;
    p.training.recompute = v.recompute;
    p.training.zero_stage = v.zero_stage;
    p.training.schedule = v.schedule;
    p.order = v.order;
    p.training.tp_comm_overlap = v.tp_comm_overlap;
  }
};

struct CalibrationPart {
  struct Value {
    KeyValues comm_keys, efficiency_keys;
  };
  static constexpr auto kChange = ProjectDocument::Change::project;
  static Value get(const Project& p) { return {p.comm_keys, p.efficiency_keys}; }
  static void set(Project& p, const Value& v) {
    p.comm_keys = v.comm_keys;
    p.efficiency_keys = v.efficiency_keys;
  }
};

template <const char* Key, ProjectDocument::Change C>
struct ViewPart {
  using Value = std::optional<nlohmann::json>;
  static constexpr auto kChange = C;
  static Value get(const Project& p) {
    const auto it = p.view.find(Key);
    return it == p.view.end() ? Value() : Value(*it);
  }
  static void set(Project& p, const Value& v) {
    if (v)
      p.view[Key] = *v;
    else
      p.view.erase(Key);
  }
};
inline constexpr char kCompareScheduleKey[] = "compare_schedule";
inline constexpr char kServingTargetKey[] = "serving_target";

// ---- The commands ---------------------------------------------------------------------------------

// A model preset, a Hugging Face config.json, or one field of the model form (`field`, merged).
class SetModel final : public SetPartCommand<ModelPart> {
 public:
  SetModel(ProjectDocument* document, const ModelSpec& model, std::string model_ref, const QString& field = {});
  [[nodiscard]] int id() const override { return kSetModelId; }
};

// One key of the training form (`key` = `value`, as the CLI's --train); the whole workload is kept.
class SetTrainingKey final : public SetPartCommand<MemberPart<&Project::training>> {
 public:
  SetTrainingKey(ProjectDocument* document, TrainingWorkload training, const QString& key, const QString& value);
  [[nodiscard]] int id() const override { return kSetTrainingKeyId; }
};

class SetServingKey final : public SetPartCommand<MemberPart<&Project::serving>> {
 public:
  SetServingKey(ProjectDocument* document, ServingWorkload serving, const QString& key, const QString& value);
  [[nodiscard]] int id() const override { return kSetServingKeyId; }
};

// One degree of the training layout (`key` = `value`, as --layout), from the workload panel or
// the pipeline view's spin boxes.
class SetLayout final : public SetPartCommand<MemberPart<&Project::layout>> {
 public:
  SetLayout(ProjectDocument* document, Layout layout, const QString& key, const QString& value);
  [[nodiscard]] int id() const override { return kSetLayoutId; }
};

// The serving deployment: one key of the form, or a ranked serving layout (`key` empty).
class SetServingLayout final : public SetPartCommand<MemberPart<&Project::serving_layout>> {
 public:
  SetServingLayout(ProjectDocument* document, ServingLayout layout, const QString& key, const QString& value);
  [[nodiscard]] int id() const override { return kSetServingLayoutId; }
};

class SetMode final : public SetPartCommand<MemberPart<&Project::mode>> {
 public:
  SetMode(ProjectDocument* document, Mode mode);
};

// The pipeline schedule (the workload's "schedule" key).
class SetSchedule final : public SetPartCommand<SchedulePart> {
 public:
  SetSchedule(ProjectDocument* document, PipelineSchedule schedule);
};

class SetAxisOrder final : public SetPartCommand<MemberPart<&Project::order>> {
 public:
  SetAxisOrder(ProjectDocument* document, AxisOrder order);
};

// The second schedule the pipeline view compares with; none: no comparison.
class SetCompareSchedule final
    : public SetPartCommand<ViewPart<kCompareScheduleKey, ProjectDocument::Change::project>> {
 public:
  SetCompareSchedule(ProjectDocument* document, const QString& schedule);
};

// The serving latency target (0: none), as the serving view's spin boxes set it.
class SetServingTarget final
    : public SetPartCommand<ViewPart<kServingTargetKey, ProjectDocument::Change::serving_target>> {
 public:
  SetServingTarget(ProjectDocument* document, int ttft_ms, int itl_ms);
  [[nodiscard]] int id() const override { return kSetServingTargetId; }
};

// A ranked training layout made the current one.
class ApplyRankedLayout final : public SetPartCommand<RankedChoicePart> {
 public:
  ApplyRankedLayout(ProjectDocument* document, RankedChoicePart::Value choice, const QString& description);
};

// A fit from nccl-tests logs or a trace: the calibration keys after it.
class ApplyCalibration final : public SetPartCommand<CalibrationPart> {
 public:
  ApplyCalibration(ProjectDocument* document, KeyValues comm_keys, KeyValues efficiency_keys, const QString& text);
};

// Another cluster: a generator string (`gpu_count` its GPUs) or an imported one (inline, with its
// GPU model). `merge_key` "generator": the node count's spin box stepped is one step.
// Everything a project file holds but its name and view state (opening a sweep's point).
struct ProjectContentPart {
  using Value = Project;
  static constexpr auto kChange = ProjectDocument::Change::cluster;
  static Value get(const Project& p) { return p; }
  static void set(Project& p, const Value& v) {
    nlohmann::json view = p.view;
    std::string name = p.name;
    p = v;
    p.view = std::move(view);
    p.name = std::move(name);
  }
};

class OpenSweepPoint final : public SetPartCommand<ProjectContentPart> {
 public:
  OpenSweepPoint(ProjectDocument* document, Project project, const QString& text)
      : SetPartCommand(document, std::move(project), text) {}
};

// A point of the scaling view: its cluster (the family at its GPU count), global batch and best layout.
class ApplyScalingPoint final : public SetPartCommand<ProjectContentPart> {
 public:
  ApplyScalingPoint(ProjectDocument* document, Project project, const QString& text)
      : SetPartCommand(document, std::move(project), text) {}
};

class ReplaceCluster final : public SetPartCommand<ClusterPart> {
 public:
  ReplaceCluster(ProjectDocument* document, ClusterPart::Value cluster, const QString& text, QString merge_key = {});
  [[nodiscard]] int id() const override { return kReplaceClusterId; }
};

}  // namespace meshscope::ui
