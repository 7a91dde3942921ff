#include "ui/topology/topology_commands.hpp"

#include <utility>

namespace meshscope::ui {

StructureCommand::StructureCommand(TopologyDocument* document, StructureEdit edit, const QString& text)
    : document_(document), edit_(std::move(edit)) {
  setText(text);
}

void StructureCommand::redo() {
  document_->applyStructure(edit_, true);
}
void StructureCommand::undo() {
  document_->applyStructure(edit_, false);
}

MoveCommand::MoveCommand(TopologyDocument* document, std::vector<DeviceId> devices, std::vector<QPointF> from,
                         std::vector<QPointF> to)
    : document_(document), devices_(std::move(devices)), from_(std::move(from)), to_(std::move(to)) {
  setText(devices_.size() == 1
              ? QStringLiteral("Move %1").arg(QString::fromStdString(document_->cluster().device(devices_.front()).id))
              : QStringLiteral("Move %1 devices").arg(devices_.size()));
}

void MoveCommand::redo() {
  document_->setPositions(devices_, to_);
}
void MoveCommand::undo() {
  document_->setPositions(devices_, from_);
}

DeviceEditCommand::DeviceEditCommand(TopologyDocument* document, DeviceId device, DeviceField field, Device before,
                                     Device after)
    : document_(document), device_(device), field_(field), before_(std::move(before)), after_(std::move(after)) {
  setText(QStringLiteral("Edit %1 of %2").arg(device_field_label(field), QString::fromStdString(before_.id)));
}

void DeviceEditCommand::redo() {
  document_->replaceDevice(device_, after_);
}
void DeviceEditCommand::undo() {
  document_->replaceDevice(device_, before_);
}

bool DeviceEditCommand::mergeWith(const QUndoCommand* other) {
  const auto* edit = static_cast<const DeviceEditCommand*>(other);  // same id(): same class
  if (edit->device_ != device_ || edit->field_ != field_) return false;
  after_ = edit->after_;
  return true;
}

LinkEditCommand::LinkEditCommand(TopologyDocument* document, LinkId link, LinkField field, Link before, Link after)
    : document_(document), link_(link), field_(field), before_(std::move(before)), after_(std::move(after)) {
  setText(QStringLiteral("Edit %1 of %2").arg(link_field_label(field), QString::fromStdString(before_.id)));
}

void LinkEditCommand::redo() {
  document_->replaceLink(link_, after_);
}
void LinkEditCommand::undo() {
  document_->replaceLink(link_, before_);
}

bool LinkEditCommand::mergeWith(const QUndoCommand* other) {
  const auto* edit = static_cast<const LinkEditCommand*>(other);
  if (edit->link_ != link_ || edit->field_ != field_) return false;
  after_ = edit->after_;
  return true;
}

QString device_field_label(DeviceField field) {
  switch (field) {
    case DeviceField::id:
      return QStringLiteral("id");
    case DeviceField::name:
      return QStringLiteral("name");
    case DeviceField::kind:
      return QStringLiteral("kind");
    case DeviceField::node:
      return QStringLiteral("node");
    case DeviceField::numa:
      return QStringLiteral("NUMA domain");
    case DeviceField::local_index:
      return QStringLiteral("local index");
    case DeviceField::gpu_model:
      return QStringLiteral("GPU model");
    case DeviceField::chips:
      return QStringLiteral("switch chips");
  }
  return {};
}

QString link_field_label(LinkField field) {
  switch (field) {
    case LinkField::id:
      return QStringLiteral("id");
    case LinkField::kind:
      return QStringLiteral("kind");
    case LinkField::bandwidth:
      return QStringLiteral("bandwidth");
    case LinkField::latency:
      return QStringLiteral("latency");
    case LinkField::nvlink_generation:
      return QStringLiteral("NVLink generation");
    case LinkField::nvlink_count:
      return QStringLiteral("NVLink count");
    case LinkField::pcie_generation:
      return QStringLiteral("PCIe generation");
    case LinkField::pcie_lanes:
      return QStringLiteral("PCIe lanes");
    case LinkField::gbits:
      return QStringLiteral("line rate");
  }
  return {};
}

}  // namespace meshscope::ui
