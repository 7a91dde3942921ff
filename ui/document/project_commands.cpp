#include "ui/document/project_commands.hpp"

#include <string>

#include "core/schedule/schedule.hpp"
#include "core/topology/placement.hpp"

namespace meshscope::ui {

namespace {

QString name_of(std::string_view name) {
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString set_text(const QString& key, const QString& value) {
  return QObject::tr("Set %1 to %2").arg(key, value);
}

}  // namespace

SetModel::SetModel(ProjectDocument* document, const ModelSpec& model, std::string model_ref, const QString& field)
    : SetPartCommand(document, {model, std::move(model_ref)},
                     field.isEmpty() ? QObject::tr("Use the model %1").arg(QString::fromStdString(model.name))
                                     : QObject::tr("Edit the model's %1").arg(field),
                     field) {}

SetTrainingKey::SetTrainingKey(ProjectDocument* document, TrainingWorkload training, const QString& key,
                               const QString& value)
    : SetPartCommand(document, std::move(training), set_text(key, value), key) {}

SetServingKey::SetServingKey(ProjectDocument* document, ServingWorkload serving, const QString& key,
                             const QString& value)
    : SetPartCommand(document, std::move(serving), set_text(key, value), key) {}

SetLayout::SetLayout(ProjectDocument* document, Layout layout, const QString& key, const QString& value)
    : SetPartCommand(document, layout, set_text(key, value), key) {}

SetServingLayout::SetServingLayout(ProjectDocument* document, ServingLayout layout, const QString& key,
                                   const QString& value)
    : SetPartCommand(document, layout,
                     key.isEmpty() ? QObject::tr("Use the ranked serving layout") : set_text(key, value), key) {}

SetMode::SetMode(ProjectDocument* document, Mode mode)
    : SetPartCommand(document, mode,
                     mode == Mode::training ? QObject::tr("Switch to training") : QObject::tr("Switch to serving")) {}

SetSchedule::SetSchedule(ProjectDocument* document, PipelineSchedule schedule)
    : SetPartCommand(document, schedule, set_text(QObject::tr("the schedule"), name_of(enum_name(schedule)))) {}

SetAxisOrder::SetAxisOrder(ProjectDocument* document, AxisOrder order)
    : SetPartCommand(document, order, set_text(QObject::tr("the rank order"), name_of(axis_order_name(order)))) {}

SetCompareSchedule::SetCompareSchedule(ProjectDocument* document, const QString& schedule)
    : SetPartCommand(
          document, schedule.isEmpty() ? std::nullopt : std::optional<nlohmann::json>(schedule.toStdString()),
          schedule.isEmpty() ? QObject::tr("Compare with no schedule") : QObject::tr("Compare with %1").arg(schedule)) {
}

SetServingTarget::SetServingTarget(ProjectDocument* document, int ttft_ms, int itl_ms)
    : SetPartCommand(document, nlohmann::json{{"ttft_ms", ttft_ms}, {"itl_ms", itl_ms}},
                     QObject::tr("Set the serving target to TTFT %1 ms, ITL %2 ms").arg(ttft_ms).arg(itl_ms),
                     QStringLiteral("target")) {}

ApplyRankedLayout::ApplyRankedLayout(ProjectDocument* document, RankedChoicePart::Value choice,
                                     const QString& description)
    : SetPartCommand(document, std::move(choice), QObject::tr("Use the ranked layout %1").arg(description)) {}

ApplyCalibration::ApplyCalibration(ProjectDocument* document, KeyValues comm_keys, KeyValues efficiency_keys,
                                   const QString& text)
    : SetPartCommand(document, {std::move(comm_keys), std::move(efficiency_keys)}, text) {}

ReplaceCluster::ReplaceCluster(ProjectDocument* document, ClusterPart::Value cluster, const QString& text,
                               QString merge_key)
    : SetPartCommand(document, std::move(cluster), text, std::move(merge_key)) {}

}  // namespace meshscope::ui
