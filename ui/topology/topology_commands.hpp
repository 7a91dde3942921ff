#pragma once
// The undoable edits of the topology editor (Qt undo framework example): each command holds just
// what it changes and applies it through the TopologyDocument. Repeated edits of one field of
// one device or link merge into one step via id()/mergeWith().
#include <QPointF>
#include <QUndoCommand>

#include <vector>

#include "ui/topology/topology_document.hpp"

namespace meshscope::ui {

// Adds, deletes, pastes, replicates, connects a fabric: any StructureEdit.
class StructureCommand : public QUndoCommand {
 public:
  StructureCommand(TopologyDocument* document, StructureEdit edit, const QString& text);
  void redo() override;
  void undo() override;

 private:
  TopologyDocument* document_;
  StructureEdit edit_;
};

class MoveCommand : public QUndoCommand {
 public:
  MoveCommand(TopologyDocument* document, std::vector<DeviceId> devices, std::vector<QPointF> from,
              std::vector<QPointF> to);
  void redo() override;
  void undo() override;

 private:
  TopologyDocument* document_;
  std::vector<DeviceId> devices_;
  std::vector<QPointF> from_, to_;
};

class DeviceEditCommand : public QUndoCommand {
 public:
  static constexpr int kId = 0x70d1;
  DeviceEditCommand(TopologyDocument* document, DeviceId device, DeviceField field, Device before, Device after);
  void redo() override;
  void undo() override;
  [[nodiscard]] int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  TopologyDocument* document_;
  DeviceId device_;
  DeviceField field_;
  Device before_, after_;
};

class LinkEditCommand : public QUndoCommand {
 public:
  static constexpr int kId = 0x70d2;
  LinkEditCommand(TopologyDocument* document, LinkId link, LinkField field, Link before, Link after);
  void redo() override;
  void undo() override;
  [[nodiscard]] int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  TopologyDocument* document_;
  LinkId link_;
  LinkField field_;
  Link before_, after_;
};

[[nodiscard]] QString device_field_label(DeviceField field);  // "bandwidth", "NVLink count", ...
[[nodiscard]] QString link_field_label(LinkField field);

}  // namespace meshscope::ui
