#pragma once
// The cluster being edited in the topology editor, with a position per device, and every edit as
// a small named QUndoCommand on its undo stack (Qt's undo framework example). After each change
// the cluster is re-indexed (index_cluster) and its problems kept, so the view can flag them.
//
// Device and link indices are the cluster's vector indices; structural edits (delete, paste,
// replicate, fabric) remove and insert at fixed indices so that undo restores the vectors exactly.
#include <QObject>
#include <QPointF>
#include <QString>
#include <QUndoStack>

#include <cstdint>
#include <string>
#include <vector>

#include "core/topology/cluster.hpp"
#include "core/topology/generators.hpp"

namespace meshscope::ui {

// Geometry of the automatic layout, in scene units (pixels at zoom 1).
inline constexpr double kDeviceWidth = 72;
inline constexpr double kDeviceHeight = 44;
inline constexpr double kCellWidth = 84;   // horizontal pitch of devices in a row
inline constexpr double kCellHeight = 64;  // vertical pitch of rows
inline constexpr double kNodeMargin = 14;  // between a node's box and its devices
inline constexpr double kNodeTitle = 22;   // title band of a node's box

struct PlacedDevice {
  size_t index = 0;  // where it sits in Cluster::devices
  Device device;
  QPointF position;
};

struct PlacedLink {
  size_t index = 0;  // where it sits in Cluster::links
  Link link;
};

// Devices and the links among them, with positions: what copy puts on the clipboard.
struct ClusterFragment {
  std::vector<Device> devices;
  std::vector<QPointF> positions;
  std::vector<Link> links;  // endpoints index `devices`
  [[nodiscard]] bool empty() const { return devices.empty(); }
};

// One structural edit: links and devices removed (ascending indices, values as they were), then
// devices and links appended, and the node names before and after. Undo runs it backwards.
struct StructureEdit {
  std::vector<PlacedLink> removed_links;
  std::vector<PlacedDevice> removed_devices;
  std::vector<PlacedDevice> added_devices;  // indices after the removal
  std::vector<PlacedLink> added_links;
  std::vector<std::string> node_names_before, node_names_after;
};

enum class DeviceField { id, name, kind, node, numa, local_index, gpu_model, chips };
enum class LinkField {
  id,
  kind,
  bandwidth,
  latency,
  nvlink_generation,
  nvlink_count,
  pcie_generation,
  pcie_lanes,
  gbits
};

// Positions for every device: nodes on a grid (inside a node: NVSwitch fabrics, then GPUs, PCIe
// switches, CPUs and NICs in rows), fabric switches above (spines on top, then leaves, then any
// other device outside the hosts), rows wrapped to the width of the node grid.
[[nodiscard]] std::vector<QPointF> auto_layout(const Cluster& cluster);

class TopologyDocument : public QObject {
  Q_OBJECT

 public:
  explicit TopologyDocument(QObject* parent = nullptr);
  // Edits go on `shared_undo` (the project's history, ui/document/) instead of a stack of its own.
  explicit TopologyDocument(QUndoStack* shared_undo, QObject* parent = nullptr);

  // Replaces the cluster (clears the undo stack unless it is shared). `positions` by device index;
  // empty: laid out.
  void setCluster(Cluster cluster, std::vector<QPointF> positions = {});
  // Indexed after every change (its derived fields are valid even when problems() is not empty,
  // as far as index_cluster can build them).
  [[nodiscard]] const Cluster& cluster() const { return cluster_; }
  [[nodiscard]] const std::vector<QPointF>& positions() const { return positions_; }
  [[nodiscard]] const std::vector<ClusterProblem>& problems() const { return problems_; }
  [[nodiscard]] QUndoStack* undoStack() { return undo_; }
  [[nodiscard]] bool sharesUndoStack() const { return undo_ != &own_undo_; }
  // Nodes that have at least one device, ascending.
  [[nodiscard]] std::vector<int32_t> nodes() const;
  [[nodiscard]] QString nodeTitle(int32_t node) const;  // node_names[node], or "node <n>"

  // ---- Edits: each pushes one command -------------------------------------------------------
  DeviceId addDevice(Device device, QPointF position);
  LinkId addLink(Link link);
  void deleteItems(const std::vector<DeviceId>& devices, const std::vector<LinkId>& links);
  // One drag: devices and where they were before it (their current positions are where they are).
  void moveDevices(const std::vector<DeviceId>& devices, const std::vector<QPointF>& from,
                   const std::vector<QPointF>& to);
  // `edited` is the device with `field` changed; consecutive edits of one field of one device
  // merge into one undo step.
  void editDevice(DeviceId device, DeviceField field, const Device& edited);
  void editLink(LinkId link, LinkField field, const Link& edited);
  [[nodiscard]] ClusterFragment copy(const std::vector<DeviceId>& devices) const;
  void paste(const ClusterFragment& fragment, QPointF offset);
  // Copies node `node` (its devices, their links, and its links to devices outside any host such as
  // leaf switches) `copies` times as new nodes "n<k>.…", placed to the right of the cluster.
  void replicateNode(int32_t node, int32_t copies);
  // Replaces the leaf/spine fabric (removing existing leaf and spine switches and their links) by
  // the generators' rail-optimised one (connect_to_fabric).
  void connectToFabric(const FabricOptions& options);

  // ---- For the commands ------------------------------------------------------------------------
  void applyStructure(const StructureEdit& edit, bool forward);
  void setPositions(const std::vector<DeviceId>& devices, const std::vector<QPointF>& positions);
  void replaceDevice(DeviceId device, const Device& value);
  void replaceLink(LinkId link, const Link& value);
  // Moves a device while it is dragged, without an undo step (moveDevices records the drag).
  void previewPosition(DeviceId device, QPointF position);

 signals:
  // After every edit, undo and redo. `structure`: devices or links were added or removed.
  void changed(bool structure);
  // Only positions changed (a move, its undo or redo, or a drag preview).
  void positionsChanged();

 private:
  void reindex();
  [[nodiscard]] std::string uniqueDeviceId(const std::string& wanted) const;

  Cluster cluster_;
  std::vector<QPointF> positions_;
  std::vector<ClusterProblem> problems_;
  QUndoStack own_undo_;
  QUndoStack* undo_;  // own_undo_ or a shared one
};

// A link id in the generators' style: "n3.gpu5" + "n3.nvsw" → "n3.gpu5-nvsw".
[[nodiscard]] std::string link_id_for(const std::string& a, const std::string& b);

}  // namespace meshscope::ui
