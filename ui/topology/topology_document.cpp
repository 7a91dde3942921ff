#include "ui/topology/topology_document.hpp"

#include <QRectF>

#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <cmath>
#include <map>
#include <numbers>
#include <unordered_set>
#include <utility>

#include "ui/topology/topology_commands.hpp"

namespace meshscope::ui {
namespace {

// ---- Index-stable insertion and removal ------------------------------------------------------

void remap_endpoint(DeviceId& end, const std::vector<int32_t>& old_to_new) {
  if (end.valid() && end.index() < old_to_new.size()) end.value = old_to_new[end.index()];
}

// Inserts devices at their (ascending) indices; links keep pointing at the same devices.
void insert_devices(Cluster& c, std::vector<QPointF>& positions, const std::vector<PlacedDevice>& items) {
  if (items.empty()) return;
  const size_t old_size = c.devices.size();
  const size_t new_size = old_size + items.size();
  std::vector<int32_t> old_to_new(old_size);
  std::vector<Device> devices;
  std::vector<QPointF> points;
  devices.reserve(new_size);
  points.reserve(new_size);
  size_t inserted = 0, kept = 0;
  for (size_t n = 0; n < new_size; ++n) {
    if (inserted < items.size() && items[inserted].index == n) {
      devices.push_back(items[inserted].device);
      points.push_back(items[inserted].position);
      ++inserted;
    } else {
      assert(kept < old_size);
      old_to_new[kept] = static_cast<int32_t>(n);
      devices.push_back(std::move(c.devices[kept]));
      points.push_back(positions[kept]);
      ++kept;
    }
  }
  c.devices = std::move(devices);
  positions = std::move(points);
  for (Link& l : c.links) {
    remap_endpoint(l.a, old_to_new);
    remap_endpoint(l.b, old_to_new);
  }
}

// Removes devices at ascending indices (their links must be gone already) and returns them.
std::vector<PlacedDevice> remove_devices(Cluster& c, std::vector<QPointF>& positions,
                                         const std::vector<size_t>& indices) {
  std::vector<PlacedDevice> removed;
  if (indices.empty()) return removed;
  std::vector<int32_t> old_to_new(c.devices.size(), -1);
  std::vector<Device> devices;
  std::vector<QPointF> points;
  devices.reserve(c.devices.size() - indices.size());
  points.reserve(c.devices.size() - indices.size());
  size_t next = 0;
  for (size_t i = 0; i < c.devices.size(); ++i) {
    if (next < indices.size() && indices[next] == i) {
      removed.push_back({i, std::move(c.devices[i]), positions[i]});
      ++next;
      continue;
    }
    old_to_new[i] = static_cast<int32_t>(devices.size());
    devices.push_back(std::move(c.devices[i]));
    points.push_back(positions[i]);
  }
  c.devices = std::move(devices);
  positions = std::move(points);
  for (Link& l : c.links) {
    remap_endpoint(l.a, old_to_new);
    remap_endpoint(l.b, old_to_new);
  }
  return removed;
}

void insert_links(Cluster& c, const std::vector<PlacedLink>& items) {
  if (items.empty()) return;
  std::vector<Link> links;
  links.reserve(c.links.size() + items.size());
  size_t inserted = 0, kept = 0;
  for (size_t n = 0; n < c.links.size() + items.size(); ++n) {
    if (inserted < items.size() && items[inserted].index == n)
      links.push_back(items[inserted++].link);
    else
      links.push_back(std::move(c.links[kept++]));
  }
  c.links = std::move(links);
}

std::vector<PlacedLink> remove_links(Cluster& c, const std::vector<size_t>& indices) {
  std::vector<PlacedLink> removed;
  if (indices.empty()) return removed;
  std::vector<Link> links;
  links.reserve(c.links.size() - indices.size());
  size_t next = 0;
  for (size_t i = 0; i < c.links.size(); ++i) {
    if (next < indices.size() && indices[next] == i) {
      removed.push_back({i, std::move(c.links[i])});
      ++next;
    } else {
      links.push_back(std::move(c.links[i]));
    }
  }
  c.links = std::move(links);
  return removed;
}

template <typename T>
std::vector<size_t> indices_of(const std::vector<T>& items) {
  std::vector<size_t> indices;
  indices.reserve(items.size());
  for (const auto& item : items) indices.push_back(item.index);
  return indices;
}

// Links to remove with a set of devices: those given plus every link touching one of them.
std::vector<size_t> links_to_remove(const Cluster& c, const std::vector<char>& device_removed,
                                    const std::vector<LinkId>& selected) {
  std::vector<char> remove(c.links.size(), 0);
  for (const LinkId l : selected)
    if (l.valid() && l.index() < c.links.size()) remove[l.index()] = 1;
  auto gone = [&](DeviceId d) { return d.valid() && d.index() < device_removed.size() && device_removed[d.index()]; };
  for (size_t i = 0; i < c.links.size(); ++i)
    if (gone(c.links[i].a) || gone(c.links[i].b)) remove[i] = 1;
  std::vector<size_t> indices;
  for (size_t i = 0; i < remove.size(); ++i)
    if (remove[i]) indices.push_back(i);
  return indices;
}

// ---- Layout ------------------------------------------------------------------------------------

int row_of(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::nvswitch:
      return 0;
    case DeviceKind::gpu:
      return 1;
    case DeviceKind::pcie_switch:
      return 2;
    case DeviceKind::cpu:
      return 3;
    case DeviceKind::nic:
      return 4;
    default:
      return 5;
  }
}
constexpr int kRows = 6;
constexpr double kNodeGap = 60;

// Places `items` in rows of at most `per_row`, centred on `centre_x`, from `top`; returns the
// bottom of the last row.
double place_rows(const std::vector<size_t>& items, size_t per_row, double centre_x, double top,
                  std::vector<QPointF>& positions) {
  per_row = std::max<size_t>(per_row, 1);
  for (size_t start = 0; start < items.size(); start += per_row) {
    const size_t count = std::min(per_row, items.size() - start);
    const double left = centre_x - static_cast<double>(count) * kCellWidth / 2;
    for (size_t i = 0; i < count; ++i)
      positions[items[start + i]] = QPointF(left + (static_cast<double>(i) + 0.5) * kCellWidth, top + kCellHeight / 2);
    top += kCellHeight;
  }
  return top;
}

// GPUs of one node joined by a mesh of direct links (some GPU has direct NVLink or xGMI links to
// two or more others: MI300X's xGMI, DGX-1's cube-mesh). In a row their links would be drawn on
// top of each other along it; on an ellipse no three GPUs are collinear, so every link is its own
// chord that can be seen and picked.
bool is_gpu_mesh(const Cluster& c, const std::vector<size_t>& gpus) {
  if (gpus.size() < 3) return false;
  for (const size_t g : gpus) {
    int direct = 0;
    c.for_each_link(DeviceId{static_cast<int32_t>(g)}, [&](LinkId l) {
      const Link& link = c.link(l);
      if ((link.kind == LinkKind::nvlink || link.kind == LinkKind::xgmi) && c.device(link.a).kind == DeviceKind::gpu &&
          c.device(link.b).kind == DeviceKind::gpu)
        ++direct;
    });
    if (direct >= 2) return true;
  }
  return false;
}
constexpr int kMeshRows = 4;  // rows of height the ellipse of a mesh's GPUs takes

// The mesh's GPUs on an ellipse as wide as `width`, from `top`, GPU 0 at the top and the others
// clockwise in rail order; returns the bottom.
double place_ellipse(const std::vector<size_t>& items, double centre_x, double width, double top,
                     std::vector<QPointF>& positions) {
  const double a = std::max(width / 2 - kCellWidth / 2, kCellWidth);
  const double b = (kMeshRows - 1) * kCellHeight / 2;
  const QPointF centre(centre_x, top + kMeshRows * kCellHeight / 2);
  const double n = static_cast<double>(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    // Half a step off the vertical so that two GPUs sit at the top and two at the bottom of an
    // even count, leaving the middle of the ellipse to the chords.
    const double angle = 2 * std::numbers::pi * (static_cast<double>(i) + 0.5) / n;
    positions[items[i]] = centre + QPointF(a * std::sin(angle), -b * std::cos(angle));
  }
  return top + kMeshRows * kCellHeight;
}

std::string node_name_for(const std::vector<std::string>& names, int32_t source, int32_t node) {
  std::string base = source >= 0 && static_cast<size_t>(source) < names.size() ? names[static_cast<size_t>(source)]
                                                                               : std::string("node");
  size_t digits = 0;
  while (digits < base.size() && std::isdigit(static_cast<unsigned char>(base[base.size() - 1 - digits]))) ++digits;
  std::string number = std::to_string(node);
  if (digits == 0) return base + "-" + number;
  base.resize(base.size() - digits);
  if (number.size() < digits) number.insert(0, digits - number.size(), '0');
  return base + number;
}

}  // namespace

std::string link_id_for(const std::string& a, const std::string& b) {
  const size_t dot = a.find('.');
  if (dot != std::string::npos && b.size() > dot && b.compare(0, dot + 1, a, 0, dot + 1) == 0)
    return a + "-" + b.substr(dot + 1);
  return a + "-" + b;
}

std::vector<QPointF> auto_layout(const Cluster& c) {
  std::vector<QPointF> positions(c.devices.size());
  std::map<int32_t, std::array<std::vector<size_t>, kRows>> nodes;
  std::vector<size_t> spines, leaves, others;
  for (size_t i = 0; i < c.devices.size(); ++i) {
    const Device& d = c.devices[i];
    if (d.node >= 0)
      nodes[d.node][static_cast<size_t>(row_of(d.kind))].push_back(i);
    else if (d.kind == DeviceKind::spine_switch)
      spines.push_back(i);
    else if (d.kind == DeviceKind::leaf_switch)
      leaves.push_back(i);
    else
      others.push_back(i);
  }
  // GPUs and NICs in rail order.
  for (auto& [node, rows] : nodes)
    for (auto& row : rows)
      std::stable_sort(row.begin(), row.end(),
                       [&](size_t a, size_t b) { return c.devices[a].local_index < c.devices[b].local_index; });

  // One pitch for every node, so that the grid lines up.
  size_t widest = 1, tallest = 1;
  std::map<int32_t, bool> mesh;
  for (const auto& [node, rows] : nodes) {
    mesh[node] = is_gpu_mesh(c, rows[static_cast<size_t>(row_of(DeviceKind::gpu))]);
    size_t used = 0;
    for (const auto& row : rows) {
      widest = std::max(widest, row.size());
      used += row.empty() ? 0 : 1;
    }
    if (mesh[node]) {
      used += kMeshRows - 1;
      widest = std::max<size_t>(widest, 5);  // room for the ellipse
    }
    tallest = std::max(tallest, used);
  }
  const double node_width = static_cast<double>(widest) * kCellWidth + 2 * kNodeMargin;
  const double node_height = static_cast<double>(tallest) * kCellHeight + 2 * kNodeMargin + kNodeTitle;
  // About 16:10 overall.
  const auto count = static_cast<double>(std::max<size_t>(nodes.size(), 1));
  const auto columns = static_cast<size_t>(
      std::max(1.0, std::round(std::sqrt(count * (node_height + kNodeGap) / (node_width + kNodeGap) * 1.6))));
  size_t slot = 0;
  for (const auto& [node, rows] : nodes) {
    const double x = static_cast<double>(slot % columns) * (node_width + kNodeGap);
    double y = static_cast<double>(slot / columns) * (node_height + kNodeGap) + kNodeMargin + kNodeTitle;
    for (size_t r = 0; r < rows.size(); ++r) {
      const auto& row = rows[r];
      if (row.empty()) continue;
      if (mesh[node] && r == static_cast<size_t>(row_of(DeviceKind::gpu)))
        y = place_ellipse(row, x + node_width / 2, node_width - 2 * kNodeMargin, y, positions);
      else
        y = place_rows(row, row.size(), x + node_width / 2, y, positions);
    }
    ++slot;
  }
  const double grid_width = std::max(
      static_cast<double>(std::min(columns, nodes.size())) * (node_width + kNodeGap) - kNodeGap, 8 * kCellWidth);
  const auto per_row = static_cast<size_t>(std::max(1.0, std::floor(grid_width / kCellWidth)));
  auto rows_of = [&](size_t n) { return static_cast<double>((n + per_row - 1) / per_row); };
  const double fabric_height =
      (rows_of(spines.size()) + rows_of(leaves.size()) + rows_of(others.size())) * kCellHeight * 1.5;
  double top = -fabric_height - kNodeGap;
  for (const auto* group : {&spines, &leaves, &others}) {
    if (group->empty()) continue;
    place_rows(*group, per_row, grid_width / 2, top, positions);
    top += rows_of(group->size()) * kCellHeight * 1.5;
  }
  return positions;
}

// ---- Document ----------------------------------------------------------------------------------

TopologyDocument::TopologyDocument(QObject* parent) : TopologyDocument(nullptr, parent) {}

TopologyDocument::TopologyDocument(QUndoStack* shared_undo, QObject* parent)
    : QObject(parent), undo_(shared_undo != nullptr ? shared_undo : &own_undo_) {}

void TopologyDocument::setCluster(Cluster cluster, std::vector<QPointF> positions) {
  // A shared history (the project's) goes on: its older steps are not this editor's to drop.
  if (undo_ == &own_undo_) undo_->clear();
  cluster_ = std::move(cluster);
  positions_ = positions.size() == cluster_.devices.size() ? std::move(positions) : auto_layout(cluster_);
  reindex();
  emit changed(true);
}

std::vector<int32_t> TopologyDocument::nodes() const {
  std::vector<char> seen;
  for (const Device& d : cluster_.devices)
    if (d.node >= 0) {
      if (seen.size() <= static_cast<size_t>(d.node)) seen.resize(static_cast<size_t>(d.node) + 1, 0);
      seen[static_cast<size_t>(d.node)] = 1;
    }
  std::vector<int32_t> nodes;
  for (size_t n = 0; n < seen.size(); ++n)
    if (seen[n]) nodes.push_back(static_cast<int32_t>(n));
  return nodes;
}

QString TopologyDocument::nodeTitle(int32_t node) const {
  if (node >= 0 && static_cast<size_t>(node) < cluster_.node_names.size())
    return QString::fromStdString(cluster_.node_names[static_cast<size_t>(node)]);
  return QStringLiteral("node %1").arg(node);
}

void TopologyDocument::reindex() {
  problems_ = index_cluster(cluster_);
}

std::string TopologyDocument::uniqueDeviceId(const std::string& wanted) const {
  if (!cluster_.by_id.contains(wanted)) return wanted;
  for (int suffix = 2;; ++suffix) {
    std::string candidate = wanted + "-" + std::to_string(suffix);
    if (!cluster_.by_id.contains(candidate)) return candidate;
  }
}

void TopologyDocument::applyStructure(const StructureEdit& e, bool forward) {
  if (forward) {
    remove_links(cluster_, indices_of(e.removed_links));
    remove_devices(cluster_, positions_, indices_of(e.removed_devices));
    insert_devices(cluster_, positions_, e.added_devices);
    insert_links(cluster_, e.added_links);
    cluster_.node_names = e.node_names_after;
  } else {
    remove_links(cluster_, indices_of(e.added_links));
    remove_devices(cluster_, positions_, indices_of(e.added_devices));
    insert_devices(cluster_, positions_, e.removed_devices);
    insert_links(cluster_, e.removed_links);
    cluster_.node_names = e.node_names_before;
  }
  reindex();
  emit changed(true);
}

void TopologyDocument::setPositions(const std::vector<DeviceId>& devices, const std::vector<QPointF>& positions) {
  for (size_t i = 0; i < devices.size() && i < positions.size(); ++i)
    if (devices[i].valid() && devices[i].index() < positions_.size()) positions_[devices[i].index()] = positions[i];
  emit positionsChanged();
}

void TopologyDocument::previewPosition(DeviceId device, QPointF position) {
  if (!device.valid() || device.index() >= positions_.size()) return;
  positions_[device.index()] = position;
  emit positionsChanged();
}

void TopologyDocument::replaceDevice(DeviceId device, const Device& value) {
  Device& d = cluster_.devices[device.index()];
  const bool structure = d.node != value.node || d.kind != value.kind;
  d = value;
  reindex();
  emit changed(structure);
}

void TopologyDocument::replaceLink(LinkId link, const Link& value) {
  cluster_.links[link.index()] = value;
  reindex();
  emit changed(false);
}

// ---- Edits ---------------------------------------------------------------------------------------

DeviceId TopologyDocument::addDevice(Device device, QPointF position) {
  device.id = uniqueDeviceId(device.id.empty() ? std::string(device_kind_name(device.kind)) : device.id);
  if (device.name.empty()) device.name = device.id;
  StructureEdit e;
  e.node_names_before = e.node_names_after = cluster_.node_names;
  if (device.node >= 0 && static_cast<size_t>(device.node) >= e.node_names_after.size())
    for (auto n = static_cast<int32_t>(e.node_names_after.size()); n <= device.node; ++n)
      e.node_names_after.push_back(node_name_for(e.node_names_after, -1, n));
  const QString text = QStringLiteral("Add %1").arg(QString::fromStdString(device.id));
  e.added_devices.push_back({cluster_.devices.size(), std::move(device), position});
  undo_->push(new StructureCommand(this, std::move(e), text));
  return DeviceId{static_cast<int32_t>(cluster_.devices.size() - 1)};
}

LinkId TopologyDocument::addLink(Link link) {
  if (link.id.empty() && link.a.valid() && link.b.valid() && link.a.index() < cluster_.devices.size() &&
      link.b.index() < cluster_.devices.size())
    link.id = link_id_for(cluster_.device(link.a).id, cluster_.device(link.b).id);
  std::unordered_set<std::string> ids;
  for (const Link& l : cluster_.links) ids.insert(l.id);
  if (ids.contains(link.id))
    for (int suffix = 2;; ++suffix)
      if (!ids.contains(link.id + "-" + std::to_string(suffix))) {
        link.id += '-';
        link.id += std::to_string(suffix);
        break;
      }
  StructureEdit e;
  e.node_names_before = e.node_names_after = cluster_.node_names;
  const QString text = QStringLiteral("Add link %1").arg(QString::fromStdString(link.id));
  e.added_links.push_back({cluster_.links.size(), std::move(link)});
  undo_->push(new StructureCommand(this, std::move(e), text));
  return LinkId{static_cast<int32_t>(cluster_.links.size() - 1)};
}

void TopologyDocument::deleteItems(const std::vector<DeviceId>& devices, const std::vector<LinkId>& links) {
  std::vector<char> removed(cluster_.devices.size(), 0);
  for (const DeviceId d : devices)
    if (d.valid() && d.index() < removed.size()) removed[d.index()] = 1;
  StructureEdit e;
  e.node_names_before = e.node_names_after = cluster_.node_names;
  for (const size_t l : links_to_remove(cluster_, removed, links)) e.removed_links.push_back({l, cluster_.links[l]});
  for (size_t i = 0; i < removed.size(); ++i)
    if (removed[i]) e.removed_devices.push_back({i, cluster_.devices[i], positions_[i]});
  if (e.removed_links.empty() && e.removed_devices.empty()) return;
  QString text;
  if (e.removed_devices.size() == 1 && e.removed_links.empty())
    text = QStringLiteral("Delete %1").arg(QString::fromStdString(e.removed_devices.front().device.id));
  else if (e.removed_devices.empty() && e.removed_links.size() == 1)
    text = QStringLiteral("Delete link %1").arg(QString::fromStdString(e.removed_links.front().link.id));
  else
    text = QStringLiteral("Delete %1 devices and %2 links").arg(e.removed_devices.size()).arg(e.removed_links.size());
  undo_->push(new StructureCommand(this, std::move(e), text));
}

void TopologyDocument::moveDevices(const std::vector<DeviceId>& devices, const std::vector<QPointF>& from,
                                   const std::vector<QPointF>& to) {
  if (devices.empty() || from == to) return;
  undo_->push(new MoveCommand(this, devices, from, to));
}

void TopologyDocument::editDevice(DeviceId device, DeviceField field, const Device& edited) {
  if (!device.valid() || device.index() >= cluster_.devices.size()) return;
  undo_->push(new DeviceEditCommand(this, device, field, cluster_.device(device), edited));
}

void TopologyDocument::editLink(LinkId link, LinkField field, const Link& edited) {
  if (!link.valid() || link.index() >= cluster_.links.size()) return;
  undo_->push(new LinkEditCommand(this, link, field, cluster_.link(link), edited));
}

ClusterFragment TopologyDocument::copy(const std::vector<DeviceId>& devices) const {
  ClusterFragment f;
  std::unordered_map<int32_t, int32_t> local;
  for (const DeviceId d : devices) {
    if (!d.valid() || d.index() >= cluster_.devices.size() || local.contains(d.value)) continue;
    local.emplace(d.value, static_cast<int32_t>(f.devices.size()));
    f.devices.push_back(cluster_.device(d));
    f.positions.push_back(positions_[d.index()]);
  }
  for (const Link& l : cluster_.links) {
    const auto a = local.find(l.a.value), b = local.find(l.b.value);
    if (a == local.end() || b == local.end()) continue;
    Link copy = l;
    copy.a = DeviceId{a->second};
    copy.b = DeviceId{b->second};
    f.links.push_back(std::move(copy));
  }
  return f;
}

void TopologyDocument::paste(const ClusterFragment& f, QPointF offset) {
  if (f.empty()) return;
  std::unordered_set<std::string> device_ids, link_ids;
  for (const Device& d : cluster_.devices) device_ids.insert(d.id);
  for (const Link& l : cluster_.links) link_ids.insert(l.id);
  auto unique = [](std::unordered_set<std::string>& taken, const std::string& wanted) {
    std::string id = wanted;
    for (int suffix = 2; taken.contains(id); ++suffix) id = wanted + "-" + std::to_string(suffix);
    taken.insert(id);
    return id;
  };
  StructureEdit e;
  e.node_names_before = e.node_names_after = cluster_.node_names;
  const size_t base = cluster_.devices.size();
  for (size_t i = 0; i < f.devices.size(); ++i) {
    Device d = f.devices[i];
    const bool named_by_id = d.name == d.id;
    d.id = unique(device_ids, d.id);
    if (named_by_id) d.name = d.id;
    e.added_devices.push_back({base + i, std::move(d), f.positions[i] + offset});
  }
  for (const Link& l : f.links) {
    Link copy = l;
    copy.a = DeviceId{static_cast<int32_t>(base + l.a.index())};
    copy.b = DeviceId{static_cast<int32_t>(base + l.b.index())};
    copy.id =
        unique(link_ids, link_id_for(e.added_devices[l.a.index()].device.id, e.added_devices[l.b.index()].device.id));
    e.added_links.push_back({cluster_.links.size() + e.added_links.size(), std::move(copy)});
  }
  const QString text = QStringLiteral("Paste %1 devices").arg(f.devices.size());
  undo_->push(new StructureCommand(this, std::move(e), text));
}

void TopologyDocument::replicateNode(int32_t node, int32_t copies) {
  std::vector<size_t> members;
  for (size_t i = 0; i < cluster_.devices.size(); ++i)
    if (cluster_.devices[i].node == node) members.push_back(i);
  if (members.empty() || copies < 1) return;
  std::vector<int32_t> member_slot(cluster_.devices.size(), -1);
  for (size_t m = 0; m < members.size(); ++m) member_slot[members[m]] = static_cast<int32_t>(m);
  auto in_node = [&](DeviceId d) { return d.valid() && d.index() < member_slot.size() && member_slot[d.index()] >= 0; };
  auto outside_hosts = [&](DeviceId d) {
    return d.valid() && d.index() < cluster_.devices.size() && cluster_.device(d).node < 0;
  };
  int32_t first_new = static_cast<int32_t>(cluster_.node_names.size());
  for (const Device& d : cluster_.devices) first_new = std::max(first_new, d.node + 1);

  double node_left = 1e300, node_right = -1e300, cluster_right = -1e300;
  for (const size_t m : members) {
    node_left = std::min(node_left, positions_[m].x());
    node_right = std::max(node_right, positions_[m].x());
  }
  for (const QPointF& p : positions_) cluster_right = std::max(cluster_right, p.x());
  const double pitch = node_right - node_left + 2 * kCellWidth;

  std::unordered_set<std::string> device_ids, link_ids;
  for (const Device& d : cluster_.devices) device_ids.insert(d.id);
  for (const Link& l : cluster_.links) link_ids.insert(l.id);
  const std::string source_prefix = "n" + std::to_string(node) + ".";
  auto renamed = [&](const std::string& id, int32_t new_node, std::unordered_set<std::string>& taken) {
    std::string prefix = std::to_string(new_node);
    prefix.insert(prefix.begin(), 'n');
    prefix += '.';
    std::string wanted = id.starts_with(source_prefix) ? prefix + id.substr(source_prefix.size()) : prefix + id;
    std::string unique = wanted;
    for (int suffix = 2; taken.contains(unique); ++suffix) unique = wanted + "-" + std::to_string(suffix);
    taken.insert(unique);
    return unique;
  };

  StructureEdit e;
  e.node_names_before = cluster_.node_names;
  e.node_names_after = cluster_.node_names;
  for (auto n = static_cast<int32_t>(e.node_names_after.size()); n < first_new + copies; ++n)
    e.node_names_after.push_back(node_name_for(cluster_.node_names, n >= first_new ? node : -1, n));
  size_t next_device = cluster_.devices.size();
  for (int32_t k = 0; k < copies; ++k) {
    const int32_t new_node = first_new + k;
    const QPointF offset(cluster_right - node_left + 2 * kCellWidth + k * pitch, 0);
    const size_t base = next_device;
    for (const size_t m : members) {
      Device d = cluster_.devices[m];
      const bool named_by_id = d.name == d.id;
      d.id = renamed(d.id, new_node, device_ids);
      if (named_by_id) d.name = d.id;
      d.node = new_node;
      e.added_devices.push_back({next_device++, std::move(d), positions_[m] + offset});
    }
    auto mapped = [&](DeviceId d) {
      return in_node(d) ? DeviceId{static_cast<int32_t>(base + static_cast<size_t>(member_slot[d.index()]))} : d;
    };
    for (const Link& l : cluster_.links) {
      const bool internal = in_node(l.a) && in_node(l.b);
      const bool to_fabric = (in_node(l.a) && outside_hosts(l.b)) || (in_node(l.b) && outside_hosts(l.a));
      if (!internal && !to_fabric) continue;
      Link copy = l;
      copy.a = mapped(l.a);
      copy.b = mapped(l.b);
      copy.id = renamed(l.id, new_node, link_ids);
      e.added_links.push_back({cluster_.links.size() + e.added_links.size(), std::move(copy)});
    }
  }
  const QString text = QStringLiteral("Replicate %1 × %2").arg(nodeTitle(node)).arg(copies);
  undo_->push(new StructureCommand(this, std::move(e), text));
}

void TopologyDocument::connectToFabric(const FabricOptions& options) {
  std::vector<char> removed(cluster_.devices.size(), 0);
  for (size_t i = 0; i < cluster_.devices.size(); ++i) {
    const DeviceKind kind = cluster_.devices[i].kind;
    removed[i] = kind == DeviceKind::leaf_switch || kind == DeviceKind::spine_switch;
  }
  StructureEdit e;
  e.node_names_before = e.node_names_after = cluster_.node_names;
  for (const size_t l : links_to_remove(cluster_, removed, {})) e.removed_links.push_back({l, cluster_.links[l]});
  for (size_t i = 0; i < removed.size(); ++i)
    if (removed[i]) e.removed_devices.push_back({i, cluster_.devices[i], positions_[i]});
  Cluster after = cluster_;
  std::vector<QPointF> after_positions = positions_;
  remove_links(after, indices_of(e.removed_links));
  remove_devices(after, after_positions, indices_of(e.removed_devices));
  const size_t kept_devices = after.devices.size(), kept_links = after.links.size();
  connect_to_fabric(after, options);
  if (after.devices.size() == kept_devices && e.removed_devices.empty()) return;
  // Lay the new switches out as auto_layout would, moved to sit above the hosts where they are now.
  const std::vector<QPointF> laid = auto_layout(after);
  QRectF hosts_now, hosts_laid;
  for (size_t i = 0; i < kept_devices; ++i)
    if (after.devices[i].node >= 0) {
      hosts_now |= QRectF(after_positions[i], QSizeF(1, 1));
      hosts_laid |= QRectF(laid[i], QSizeF(1, 1));
    }
  const QPointF shift(hosts_now.center().x() - hosts_laid.center().x(), hosts_now.top() - hosts_laid.top());
  for (size_t i = kept_devices; i < after.devices.size(); ++i)
    e.added_devices.push_back({i, after.devices[i], laid[i] + shift});
  for (size_t i = kept_links; i < after.links.size(); ++i) e.added_links.push_back({i, after.links[i]});
  undo_->push(new StructureCommand(this, std::move(e), QStringLiteral("Connect to fabric")));
}

}  // namespace meshscope::ui
