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

  auto line_edit = [&](const QString& label, std::function<std::string()> get, std::function<void(std::string)> set) {
    auto* edit = new QLineEdit(properties_);
    form_->addRow(label, edit);
    auto refresh = [edit, get] {
      if (!edit->hasFocus()) edit->setText(QString::fromStdString(get()));
    };
    refresh();
    form_refreshers_.push_back(refresh);
    connect(edit, &QLineEdit::editingFinished, this, [edit, get, set] {
      if (edit->text().toStdString() != get()) set(edit->text().toStdString());
    });
  };
  auto spin = [&](const QString& label, int low, int high, const QString& none, std::function<int()> get,
                  std::function<void(int)> set) {
    auto* box = new QSpinBox(properties_);
    box->setRange(low, high);
    box->setSpecialValueText(none);
    form_->addRow(label, box);
    auto refresh = [box, get] {
      const QSignalBlocker block(box);
      box->setValue(get());
    };
    refresh();
    form_refreshers_.push_back(refresh);
    connect(box, &QSpinBox::valueChanged, this, [set](int v) { set(v); });
  };
  auto number = [&](const QString& label, double high, int decimals, const QString& suffix, std::function<double()> get,
                    std::function<void(double)> set) {
    auto* box = new QDoubleSpinBox(properties_);
    box->setRange(0, high);
    box->setDecimals(decimals);
    box->setSuffix(suffix);
    form_->addRow(label, box);
    auto refresh = [box, get] {
      const QSignalBlocker block(box);
      box->setValue(get());
    };
    refresh();
    form_refreshers_.push_back(refresh);
    connect(box, &QDoubleSpinBox::valueChanged, this, [set](double v) { set(v); });
  };
  auto info = [&](const QString& label, std::function<QString()> get) {
    auto* text = new QLabel(properties_);
    text->setWordWrap(true);
    form_->addRow(label, text);
    auto refresh = [text, get] { text->setText(get()); };
    refresh();
    form_refreshers_.push_back(refresh);
  };

  if (device >= 0) {
    const DeviceId id{device};
    auto current = [this, id] { return cluster().device(id); };
    auto edit = [this, id, current](DeviceField field, auto change) {
      Device d = current();
      change(d);
      document_->editDevice(id, field, d);
    };
    properties_title_->setText(device_kind_label(c.device(id).kind));
    line_edit(
        QStringLiteral("Id"), [current] { return current().id; },
        [edit](std::string v) { edit(DeviceField::id, [&](Device& d) { d.id = v; }); });
    line_edit(
        QStringLiteral("Name"), [current] { return current().name; },
        [edit](std::string v) { edit(DeviceField::name, [&](Device& d) { d.name = v; }); });
    auto* kinds = new QComboBox(properties_);
    for (const DeviceKind k : kPaletteKinds) kinds->addItem(device_kind_label(k), static_cast<int>(k));
    kinds->setCurrentIndex(kinds->findData(static_cast<int>(c.device(id).kind)));
    form_->addRow(QStringLiteral("Kind"), kinds);
    connect(kinds, &QComboBox::currentIndexChanged, this, [kinds, edit] {
      const auto k = static_cast<DeviceKind>(kinds->currentData().toInt());
      edit(DeviceField::kind, [&](Device& d) { d.kind = k; });
    });
    spin(
        QStringLiteral("Node"), -1, 1 << 20, QStringLiteral("none (fabric)"), [current] { return current().node; },
        [edit](int v) { edit(DeviceField::node, [&](Device& d) { d.node = v; }); });
    spin(
        QStringLiteral("NUMA domain"), -1, 256, QStringLiteral("none"), [current] { return current().numa; },
        [edit](int v) { edit(DeviceField::numa, [&](Device& d) { d.numa = v; }); });
    if (c.device(id).kind == DeviceKind::gpu || c.device(id).kind == DeviceKind::nic)
      spin(
          QStringLiteral("Local index"), -1, 1024, QStringLiteral("none"), [current] { return current().local_index; },
          [edit](int v) { edit(DeviceField::local_index, [&](Device& d) { d.local_index = v; }); });
    if (c.device(id).kind == DeviceKind::gpu)
      line_edit(
          QStringLiteral("GPU model"), [current] { return current().gpu_model; },
          [edit](std::string v) { edit(DeviceField::gpu_model, [&](Device& d) { d.gpu_model = v; }); });
    if (c.device(id).kind == DeviceKind::nvswitch)
      spin(
          QStringLiteral("Switch chips"), 1, 64, QString(), [current] { return current().chips; },
          [edit](int v) { edit(DeviceField::chips, [&](Device& d) { d.chips = v; }); });
    info(QStringLiteral("Links"), [this, id] {
      const Cluster& cl = cluster();
      int count = 0;
      for (const Link& l : cl.links) count += (l.a == id || l.b == id) ? 1 : 0;
      return QString::number(count);
    });
    info(QStringLiteral("Problem"), [this, id] {
      const auto p = problem_by_id_.find(cluster().device(id).id);
      return p == problem_by_id_.end() ? QStringLiteral("none") : p->second;
    });
    return;
  }
  if (link >= 0) {
    const LinkId id{link};
    auto current = [this, id] { return cluster().link(id); };
    auto edit = [this, id, current](LinkField field, auto change) {
      Link l = current();
      change(l);
      document_->editLink(id, field, l);
    };
    const Link& l = c.link(id);
    properties_title_->setText(QStringLiteral("%1 link").arg(link_kind_label(l.kind)));
    line_edit(
        QStringLiteral("Id"), [current] { return current().id; },
        [edit](std::string v) { edit(LinkField::id, [&](Link& x) { x.id = v; }); });
    info(QStringLiteral("Ends"), [this, current] {
      const Link& x = current();
      const Cluster& cl = cluster();
      auto name = [&](DeviceId d) {
        return d.valid() && d.index() < cl.devices.size() ? QString::fromStdString(cl.device(d).id)
                                                          : QStringLiteral("(missing)");
      };
      return name(x.a) + QStringLiteral(" ↔ ") + name(x.b);
    });
    auto* kinds = new QComboBox(properties_);
    for (const LinkKind k : kLinkKinds) kinds->addItem(link_kind_label(k), static_cast<int>(k));
    kinds->setCurrentIndex(kinds->findData(static_cast<int>(l.kind)));
    form_->addRow(QStringLiteral("Kind"), kinds);
    connect(kinds, &QComboBox::currentIndexChanged, this, [kinds, edit] {
      const auto k = static_cast<LinkKind>(kinds->currentData().toInt());
      edit(LinkField::kind, [&](Link& x) { x.kind = k; });
    });
    number(
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
    number(
        QStringLiteral("Latency"), 1e6, 3, QStringLiteral(" µs"), [current] { return current().latency_s * 1e6; },
        [edit](double v) { edit(LinkField::latency, [&](Link& x) { x.latency_s = v * 1e-6; }); });
    if (l.kind == LinkKind::nvlink) {
      spin(
          QStringLiteral("NVLink generation"), 0, 5, QStringLiteral("—"),
          [current] { return current().nvlink_generation; },
          [edit](int v) {
            edit(LinkField::nvlink_generation, [&](Link& x) {
              x.nvlink_generation = v;
              if (x.nvlink_count > 0) x.bandwidth_bytes_per_s = nvlink_bandwidth(v, x.nvlink_count);
            });
          });
      spin(
          QStringLiteral("NVLinks"), 0, 36, QStringLiteral("—"), [current] { return current().nvlink_count; },
          [edit](int v) {
            edit(LinkField::nvlink_count, [&](Link& x) {
              x.nvlink_count = v;
              x.nvlink_generation = std::max(x.nvlink_generation, 2);
              x.bandwidth_bytes_per_s = nvlink_bandwidth(x.nvlink_generation, v);
            });
          });
    } else if (l.kind == LinkKind::pcie) {
      spin(
          QStringLiteral("PCIe generation"), 0, 6, QStringLiteral("—"), [current] { return current().pcie_generation; },
          [edit](int v) {
            edit(LinkField::pcie_generation, [&](Link& x) {
              x.pcie_generation = v;
              if (x.pcie_lanes > 0) x.bandwidth_bytes_per_s = pcie_bandwidth(v, x.pcie_lanes);
            });
          });
      spin(
          QStringLiteral("PCIe lanes"), 0, 32, QStringLiteral("—"), [current] { return current().pcie_lanes; },
          [edit](int v) {
            edit(LinkField::pcie_lanes, [&](Link& x) {
              x.pcie_lanes = v;
              x.pcie_generation = std::max(x.pcie_generation, 1);
              x.bandwidth_bytes_per_s = pcie_bandwidth(x.pcie_generation, v);
            });
          });
    } else if (is_network_link(l.kind)) {
      number(
          QStringLiteral("Line rate"), 1e5, 1, QStringLiteral(" Gb/s"), [current] { return current().gbits_per_s; },
          [edit](double v) {
            edit(LinkField::gbits, [&](Link& x) {
              x.gbits_per_s = v;
              x.bandwidth_bytes_per_s = network_bandwidth(v);
            });
          });
    }
    info(QStringLiteral("Problem"), [this, id] {
      const auto p = problem_by_id_.find(cluster().link(id).id);
      return p == problem_by_id_.end() ? QStringLiteral("none") : p->second;
    });
    return;
  }
  properties_title_->setText(
      devices.empty() && links.empty()
          ? QStringLiteral("Nothing selected")
          : QStringLiteral("%1 devices and %2 links selected").arg(devices.size()).arg(links.size()));
  info(QString(), [] {
    return QStringLiteral(
        "Drag a device from the palette, Shift-drag between devices to link them, "
        "select one device or link to edit it here.");
  });
}

}  // namespace meshscope::ui
