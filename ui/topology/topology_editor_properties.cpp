#include "ui/topology/topology_editor.hpp"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDrag>
#include <QFormLayout>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/topology/link_defaults.hpp"
#include "core/topology/routing.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/topology/topology_items.hpp"

#include "ui/topology/topology_editor_shared.hpp"

// The topology editor's problems line, link tooltips and the property editor of the selection.
namespace meshscope::ui {

using namespace editor_detail;

// ---- Problems and properties ---------------------------------------------------------------------

void TopologyEditor::updateProblemsLine() {
  const Cluster& c = cluster();
  const auto& list = problems();
  if (list.empty()) {
    problems_line_->setStyleSheet(QStringLiteral("color: #2b6a2b;"));
    problems_line_->setText(QStringLiteral("No problems: %1 GPUs in %2 nodes, %3 devices, %4 links")
                                .arg(c.gpus.size())
                                .arg(document_->nodes().size())
                                .arg(c.devices.size())
                                .arg(c.links.size()));
    problems_line_->setToolTip({});
    return;
  }
  QStringList messages;
  for (const ClusterProblem& p : list) messages << QString::fromStdString(p.message);
  QStringList shown = messages.mid(0, 3);
  problems_line_->setStyleSheet(QStringLiteral("color: #c01c28;"));
  problems_line_->setText(QStringLiteral("%1 problem%2: %3%4")
                              .arg(list.size())
                              .arg(list.size() == 1 ? "" : "s")
                              .arg(shown.join(QStringLiteral("; ")))
                              .arg(messages.size() > 3 ? QStringLiteral("; …") : QString()));
  problems_line_->setToolTip(messages.join('\n'));
}

QString TopologyEditor::linkToolTip(int32_t link) const {
  const Cluster& c = cluster();
  if (link < 0 || static_cast<size_t>(link) >= c.links.size()) return {};
  const Link& l = c.link(LinkId{link});
  QString tip =
      QStringLiteral("<b>%1</b> — %2<br>%3 per direction, latency %4<br>%5 ↔ %6")
          .arg(QString::fromStdString(l.id).toHtmlEscaped(), link_spec_text(l), gbytes_text(l.bandwidth_bytes_per_s),
               duration_text(l.latency_s), QString::fromStdString(c.device(l.a).id).toHtmlEscaped(),
               QString::fromStdString(c.device(l.b).id).toHtmlEscaped());
  if (!loads_.empty()) {
    AxisLinkTraffic summed;
    if (const AxisLinkTraffic* shown = shownLoads(summed))
      for (const LinkTraffic& t : shown->links)
        if (t.link.value == link) {
          tip += QStringLiteral("<br>%1: %2 → %3 per step (%4 flows), %5 ← (%6 flows); busy %7 per step")
                     .arg(axis_label(axis_), binary_bytes_text(t.bytes_per_step[0]),
                          QString::fromStdString(c.device(l.b).id).toHtmlEscaped())
                     .arg(t.flows[0])
                     .arg(binary_bytes_text(t.bytes_per_step[1]))
                     .arg(t.flows[1])
                     .arg(duration_text(std::max(t.bytes_per_step[0], t.bytes_per_step[1]) /
                                        std::max(l.bandwidth_bytes_per_s, 1.0)));
        }
  }
  if (const auto p = problem_by_id_.find(l.id); p != problem_by_id_.end())
    tip += QStringLiteral("<br><span style='color:#c01c28'>%1</span>").arg(p->second.toHtmlEscaped());
  return tip;
}

void TopologyEditor::scheduleProperties() {
  // Rebuilt later, never from inside a signal of one of the form's own widgets.
  if (form_pending_) return;
  form_pending_ = true;
  QMetaObject::invokeMethod(
      this, [this] { showProperties(); }, Qt::QueuedConnection);
}

void TopologyEditor::onSelectionChanged() {
  selected_ids_.clear();
  for (const DeviceId d : selectedDevices()) selected_ids_.push_back(cluster().device(d).id);
  restyleLinks();
  scheduleProperties();
  emit selectionChanged();
}

// The property form's rows: each shows a value read from the document and writes an edit back through a
// command; its refresher sets the value again after an undo, a redo or a merged edit.
class PropertyRows {
 public:
  PropertyRows(QObject* context, QWidget* parent, QFormLayout* form, std::vector<std::function<void()>>& refreshers)
      : context_(context), parent_(parent), form_(form), refreshers_(refreshers) {}

  void lineEdit(const QString& label, std::function<std::string()> get, std::function<void(std::string)> set) {
    auto* edit = new QLineEdit(parent_);
    form_->addRow(label, edit);
    add_refresher([edit, get] {
      if (!edit->hasFocus()) edit->setText(QString::fromStdString(get()));
    });
    QObject::connect(edit, &QLineEdit::editingFinished, context_, [edit, get, set] {
      if (edit->text().toStdString() != get()) set(edit->text().toStdString());
    });
  }
  void spin(const QString& label, int low, int high, const QString& none, std::function<int()> get,
            std::function<void(int)> set) {
    auto* box = new QSpinBox(parent_);
    box->setRange(low, high);
    box->setSpecialValueText(none);
    form_->addRow(label, box);
    add_refresher([box, get] {
      const QSignalBlocker block(box);
      box->setValue(get());
    });
    QObject::connect(box, &QSpinBox::valueChanged, context_, [set](int v) { set(v); });
  }
  void number(const QString& label, double high, int decimals, const QString& suffix, std::function<double()> get,
              std::function<void(double)> set) {
    auto* box = new QDoubleSpinBox(parent_);
    box->setRange(0, high);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    form_->addRow(label, box);
    add_refresher([box, get] {
      const QSignalBlocker block(box);
      box->setValue(get());
    });
    QObject::connect(box, &QDoubleSpinBox::valueChanged, context_, [set](double v) { set(v); });
  }
  void info(const QString& label, std::function<QString()> get) {
    auto* text = new QLabel(parent_);
    text->setWordWrap(true);
    form_->addRow(label, text);
    add_refresher([text, get] { text->setText(get()); });
  }
  // A combo box of `kinds` (labelled by `label_of`) showing `current`; `set` takes the chosen one.
  template <typename Kind, size_t N, typename LabelOf>
  void kinds(const std::array<Kind, N>& kinds, LabelOf label_of, Kind current, std::function<void(Kind)> set) {
    auto* combo = new QComboBox(parent_);
    for (const Kind k : kinds) combo->addItem(label_of(k), static_cast<int>(k));
    combo->setCurrentIndex(combo->findData(static_cast<int>(current)));
    form_->addRow(QStringLiteral("Kind"), combo);
    QObject::connect(combo, &QComboBox::currentIndexChanged, context_,
                     [combo, set] { set(static_cast<Kind>(combo->currentData().toInt())); });
  }

 private:
  void add_refresher(std::function<void()> refresh) {
    refresh();
    refreshers_.push_back(std::move(refresh));
  }

  QObject* context_;
  QWidget* parent_;
  QFormLayout* form_;
  std::vector<std::function<void()>>& refreshers_;
};

// Rebuilds the form for the one selected device or link (or says what is selected), unless it already shows that
// item: then only its values are refreshed.
void TopologyEditor::showProperties() {
  form_pending_ = false;
  const Cluster& c = cluster();
  const auto devices = selectedDevices();
  const auto links = selectedLinks();
  int32_t device = devices.size() == 1 && links.empty() ? devices.front().value : -1;
  int32_t link = links.size() == 1 && devices.empty() ? links.front().value : -1;
  if (device >= 0 && static_cast<size_t>(device) >= c.devices.size()) device = -1;
  if (link >= 0 && static_cast<size_t>(link) >= c.links.size()) link = -1;
  const int kind = device >= 0 ? static_cast<int>(c.devices[static_cast<size_t>(device)].kind)
                               : (link >= 0 ? 100 + static_cast<int>(c.links[static_cast<size_t>(link)].kind) : -1);
  if (device == form_device_ && link == form_link_ && kind == form_kind_ && (device >= 0 || link >= 0)) {
    for (const auto& refresh : form_refreshers_) refresh();
    return;
  }
  form_device_ = device;
  form_link_ = link;
  form_kind_ = kind;
  form_refreshers_.clear();
  while (form_->rowCount() > 0) form_->removeRow(0);

  PropertyRows rows(this, properties_, form_, form_refreshers_);
  if (device >= 0) return showDeviceProperties(DeviceId{device}, rows);
  if (link >= 0) return showLinkProperties(LinkId{link}, rows);
  properties_title_->setText(
      devices.empty() && links.empty()
          ? QStringLiteral("Nothing selected")
          : QStringLiteral("%1 devices and %2 links selected").arg(devices.size()).arg(links.size()));
  rows.info(QString(), [] {
    return QStringLiteral(
        "Drag a device from the palette, Shift-drag between devices to link them, "
        "select one device or link to edit it here.");
  });
}

// A device's fields (those of its kind), its link count and its problem.
void TopologyEditor::showDeviceProperties(DeviceId id, PropertyRows& rows) {
  const Cluster& c = cluster();
  auto current = [this, id] { return cluster().device(id); };
  auto edit = [this, id, current](DeviceField field, auto change) {
    Device d = current();
    change(d);
    document_->editDevice(id, field, d);
  };
  properties_title_->setText(device_kind_label(c.device(id).kind));
  rows.lineEdit(
      QStringLiteral("Id"), [current] { return current().id; },
      [edit](std::string v) { edit(DeviceField::id, [&](Device& d) { d.id = v; }); });
  rows.lineEdit(
      QStringLiteral("Name"), [current] { return current().name; },
      [edit](std::string v) { edit(DeviceField::name, [&](Device& d) { d.name = v; }); });
  rows.kinds<DeviceKind>(kPaletteKinds, device_kind_label, c.device(id).kind,
                         [edit](DeviceKind k) { edit(DeviceField::kind, [&](Device& d) { d.kind = k; }); });
  rows.spin(
      QStringLiteral("Node"), -1, 1 << 20, QStringLiteral("none (fabric)"), [current] { return current().node; },
      [edit](int v) { edit(DeviceField::node, [&](Device& d) { d.node = v; }); });
  rows.spin(
      QStringLiteral("NUMA domain"), -1, 256, QStringLiteral("none"), [current] { return current().numa; },
      [edit](int v) { edit(DeviceField::numa, [&](Device& d) { d.numa = v; }); });
  if (c.device(id).kind == DeviceKind::gpu || c.device(id).kind == DeviceKind::nic)
    rows.spin(
        QStringLiteral("Local index"), -1, 1024, QStringLiteral("none"), [current] { return current().local_index; },
        [edit](int v) { edit(DeviceField::local_index, [&](Device& d) { d.local_index = v; }); });
  if (c.device(id).kind == DeviceKind::gpu)
    rows.lineEdit(
        QStringLiteral("GPU model"), [current] { return current().gpu_model; },
        [edit](std::string v) { edit(DeviceField::gpu_model, [&](Device& d) { d.gpu_model = v; }); });
  if (c.device(id).kind == DeviceKind::nvswitch)
    rows.spin(
        QStringLiteral("Switch chips"), 1, 64, QString(), [current] { return current().chips; },
        [edit](int v) { edit(DeviceField::chips, [&](Device& d) { d.chips = v; }); });
  rows.info(QStringLiteral("Links"), [this, id] {
    const Cluster& cl = cluster();
    int count = 0;
    for (const Link& l : cl.links) count += (l.a == id || l.b == id) ? 1 : 0;
    return QString::number(count);
  });
  rows.info(QStringLiteral("Problem"), [this, id] {
    const auto p = problem_by_id_.find(cluster().device(id).id);
    return p == problem_by_id_.end() ? QStringLiteral("none") : p->second;
  });
}

// A link's id, ends, kind, bandwidth and latency, the specification of its kind, and its problem.
void TopologyEditor::showLinkProperties(LinkId id, PropertyRows& rows) {
  auto current = [this, id] { return cluster().link(id); };
  auto edit = [this, id, current](LinkField field, auto change) {
    Link l = current();
    change(l);
    document_->editLink(id, field, l);
  };
  const Link& l = cluster().link(id);
  properties_title_->setText(QStringLiteral("%1 link").arg(link_kind_label(l.kind)));
  rows.lineEdit(
      QStringLiteral("Id"), [current] { return current().id; },
      [edit](std::string v) { edit(LinkField::id, [&](Link& x) { x.id = v; }); });
  rows.info(QStringLiteral("Ends"), [this, current] {
    const Link& x = current();
    const Cluster& cl = cluster();
    auto name = [&](DeviceId d) {
      return d.valid() && d.index() < cl.devices.size() ? QString::fromStdString(cl.device(d).id)
                                                        : QStringLiteral("(missing)");
    };
    return name(x.a) + QStringLiteral(" ↔ ") + name(x.b);
  });
  rows.kinds<LinkKind>(kLinkKinds, link_kind_label, l.kind,
                       [edit](LinkKind k) { edit(LinkField::kind, [&](Link& x) { x.kind = k; }); });
  rows.number(
      QStringLiteral("Bandwidth"), 1e5, 2, QStringLiteral(" GB/s"),
      [current] { return current().bandwidth_bytes_per_s / 1e9; },
      [edit](double v) {
        edit(LinkField::bandwidth, [&](Link& x) {
          // Given directly: the specification no longer says where it came from.
          x.bandwidth_bytes_per_s = v * 1e9;
          x.nvlink_generation = x.nvlink_count = x.pcie_generation = x.pcie_lanes = 0;
          x.gbits_per_s = 0;
        });
      });
  rows.number(
      QStringLiteral("Latency"), 1e6, 3, QStringLiteral(" µs"), [current] { return current().latency_s * 1e6; },
      [edit](double v) { edit(LinkField::latency, [&](Link& x) { x.latency_s = v * 1e-6; }); });
  showLinkSpecRows(id, l.kind, rows);
  rows.info(QStringLiteral("Problem"), [this, id] {
    const auto p = problem_by_id_.find(cluster().link(id).id);
    return p == problem_by_id_.end() ? QStringLiteral("none") : p->second;
  });
}

// The specification a link's bandwidth comes from: NVLink generation and count, PCIe generation and lanes, or a
// network line rate (core/topology/link_defaults.hpp turns each into bytes per second).
void TopologyEditor::showLinkSpecRows(LinkId id, LinkKind kind, PropertyRows& rows) {
  auto current = [this, id] { return cluster().link(id); };
  auto edit = [this, id, current](LinkField field, auto change) {
    Link l = current();
    change(l);
    document_->editLink(id, field, l);
  };
  if (kind == LinkKind::nvlink) {
    rows.spin(
        QStringLiteral("NVLink generation"), 0, 5, QStringLiteral("—"),
        [current] { return current().nvlink_generation; },
        [edit](int v) {
          edit(LinkField::nvlink_generation, [&](Link& x) {
            x.nvlink_generation = v;
            if (x.nvlink_count > 0) x.bandwidth_bytes_per_s = nvlink_bandwidth(v, x.nvlink_count);
          });
        });
    rows.spin(
        QStringLiteral("NVLinks"), 0, 36, QStringLiteral("—"), [current] { return current().nvlink_count; },
        [edit](int v) {
          edit(LinkField::nvlink_count, [&](Link& x) {
            x.nvlink_count = v;
            x.nvlink_generation = std::max(x.nvlink_generation, 2);
            x.bandwidth_bytes_per_s = nvlink_bandwidth(x.nvlink_generation, v);
          });
        });
  } else if (kind == LinkKind::pcie) {
    rows.spin(
        QStringLiteral("PCIe generation"), 0, 6, QStringLiteral("—"), [current] { return current().pcie_generation; },
        [edit](int v) {
          edit(LinkField::pcie_generation, [&](Link& x) {
            x.pcie_generation = v;
            if (x.pcie_lanes > 0) x.bandwidth_bytes_per_s = pcie_bandwidth(v, x.pcie_lanes);
          });
        });
    rows.spin(
        QStringLiteral("PCIe lanes"), 0, 32, QStringLiteral("—"), [current] { return current().pcie_lanes; },
        [edit](int v) {
          edit(LinkField::pcie_lanes, [&](Link& x) {
            x.pcie_lanes = v;
            x.pcie_generation = std::max(x.pcie_generation, 1);
            x.bandwidth_bytes_per_s = pcie_bandwidth(x.pcie_generation, v);
          });
        });
  } else if (is_network_link(kind)) {
    rows.number(
        QStringLiteral("Line rate"), 1e5, 1, QStringLiteral(" Gb/s"), [current] { return current().gbits_per_s; },
        [edit](double v) {
          edit(LinkField::gbits, [&](Link& x) {
            x.gbits_per_s = v;
            x.bandwidth_bytes_per_s = network_bandwidth(v);
          });
        });
  }
}

}  // namespace meshscope::ui
