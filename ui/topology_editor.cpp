#include "ui/topology_editor.hpp"

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
#include "ui/formatting.hpp"
#include "ui/topology_items.hpp"

namespace meshscope::ui {
namespace {

// Below this zoom nodes are drawn as one box each and their devices get no items.
constexpr double kCollapseZoom = 0.3;
// Clusters up to this many devices get every item at once (no waiting for them to scroll in).
constexpr size_t kEagerDevices = 4000;
constexpr int kLoadLevels = 8;

constexpr std::array kPaletteKinds{DeviceKind::gpu, DeviceKind::nvswitch,    DeviceKind::pcie_switch, DeviceKind::cpu,
                                   DeviceKind::nic, DeviceKind::leaf_switch, DeviceKind::spine_switch};
constexpr std::array kLinkKinds{LinkKind::nvlink,     LinkKind::pcie, LinkKind::xgmi,    LinkKind::upi,
                                LinkKind::infiniband, LinkKind::roce, LinkKind::ethernet};

// Sequential ramp for loads (ColorBrewer YlOrRd, 5 classes), light = little, dark red = most.
QColor load_colour(double t) {
  static const std::array<QColor, 5> stops{QColor(0xFE, 0xD9, 0x76), QColor(0xFE, 0xB2, 0x4C), QColor(0xFD, 0x8D, 0x3C),
                                           QColor(0xF0, 0x3B, 0x20), QColor(0xBD, 0x00, 0x26)};
  t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min(static_cast<size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}
double load_width(int level) {
  return 1.5 + 5.0 * (level + 1) / kLoadLevels;
}

const QColor kIdleGrey(0xC8, 0xC8, 0xC8);
const QColor kProblemRed(0xC0, 0x1C, 0x28);
const QColor kSelectedBlue(0x1F, 0x4E, 0xB4);
const std::array<QColor, 8> kGroupColours{QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9), QColor(0x00, 0x9E, 0x73),
                                          QColor(0xCC, 0x79, 0xA7), QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                          QColor(0x99, 0x99, 0x99), QColor(0x33, 0x33, 0x33)};
// Pens of the link layer: kinds, then problem, selection, idle, then load levels.
constexpr uint16_t kProblemPen = kLinkKinds.size();
constexpr uint16_t kSelectedPen = kProblemPen + 1;
constexpr uint16_t kIdlePen = kProblemPen + 2;
constexpr uint16_t kFaintPen = kProblemPen + 3;  // links into closed node boxes
constexpr uint16_t kFirstLoadPen = kProblemPen + 4;

QString axis_label(std::optional<MeshAxis> axis) {
  if (!axis) return QStringLiteral("all axes");
  switch (*axis) {
    case MeshAxis::dp:
      return QStringLiteral("DP / FSDP");
    case MeshAxis::tp:
      return QStringLiteral("TP");
    case MeshAxis::pp:
      return QStringLiteral("PP");
    case MeshAxis::cp:
      return QStringLiteral("CP");
    case MeshAxis::ep:
      return QStringLiteral("EP");
    default:
      return QString::fromUtf8(mesh_axis_name(*axis).data()).toUpper();
  }
}

QString gbytes_text(double bytes_per_s) {
  return QStringLiteral("%1 GB/s").arg(bytes_per_s / 1e9, 0, 'g', 4);
}

QString link_spec_text(const Link& l) {
  QString text = link_kind_label(l.kind);
  if (l.kind == LinkKind::nvlink && l.nvlink_count > 0)
    text += QStringLiteral(" %1 × %2").arg(l.nvlink_generation).arg(l.nvlink_count);
  else if (l.kind == LinkKind::pcie && l.pcie_lanes > 0)
    text += QStringLiteral(" Gen%1 x%2").arg(l.pcie_generation).arg(l.pcie_lanes);
  else if (is_network_link(l.kind) && l.gbits_per_s > 0)
    text += QStringLiteral(" %1 Gb/s").arg(l.gbits_per_s, 0, 'g', 5);
  return text;
}

QPixmap kind_swatch(DeviceKind kind) {
  QPixmap pixmap(18, 14);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  QColor fill = device_kind_colour(kind);
  fill.setAlphaF(0.3f);
  p.setBrush(fill);
  p.setPen(QPen(device_kind_colour(kind), 1.5));
  p.drawRoundedRect(QRectF(1, 1, 16, 12), 3, 3);
  return pixmap;
}

std::string kind_stem(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
      return "gpu";
    case DeviceKind::nvswitch:
      return "nvsw";
    case DeviceKind::pcie_switch:
      return "pcie";
    case DeviceKind::cpu:
      return "cpu";
    case DeviceKind::nic:
      return "nic";
    case DeviceKind::leaf_switch:
      return "leaf";
    case DeviceKind::spine_switch:
      return "spine";
  }
  return "device";
}

// A palette entry: click to pick the place tool for its kind, or drag it onto the canvas.
class PaletteButton : public QToolButton {
 public:
  PaletteButton(DeviceKind kind, QWidget* parent) : QToolButton(parent), kind_(kind) {
    setText(device_kind_label(kind));
    setIcon(QIcon(kind_swatch(kind)));
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setCheckable(true);
    setToolTip(
        QStringLiteral("%1: drag onto the canvas, or click here and then on the canvas").arg(device_kind_label(kind)));
  }
  [[nodiscard]] DeviceKind kind() const { return kind_; }

 protected:
  void mousePressEvent(QMouseEvent* event) override {
    press_ = event->pos();
    QToolButton::mousePressEvent(event);
  }
  void mouseMoveEvent(QMouseEvent* event) override {
    if ((event->buttons() & Qt::LeftButton) &&
        (event->pos() - press_).manhattanLength() >= QApplication::startDragDistance()) {
      setDown(false);
      auto* mime = new QMimeData;
      mime->setData(kDeviceKindMime, QByteArray(device_kind_name(kind_).data()));
      auto* drag = new QDrag(this);
      drag->setMimeData(mime);
      drag->setPixmap(kind_swatch(kind_).scaled(36, 28));
      drag->exec(Qt::CopyAction);
      return;
    }
    QToolButton::mouseMoveEvent(event);
  }

 private:
  DeviceKind kind_;
  QPoint press_;
};

}  // namespace

// The scale of the communication map: idle, then the load levels from 0 to the largest load.
class LoadLegend : public QWidget {
 public:
  explicit LoadLegend(QWidget* parent) : QWidget(parent) { setMinimumHeight(58); }
  void setScale(const QString& title, const QString& low, const QString& high) {
    title_ = title;
    low_ = low;
    high_ = high;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    if (title_.isEmpty()) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics metrics(font());
    p.drawText(QRectF(0, 0, width(), metrics.height()), Qt::AlignLeft, title_);
    const double top = metrics.height() + 4;
    const double idle_width = 40;
    p.setPen(QPen(kIdleGrey, 2));
    p.drawLine(QPointF(2, top + 8), QPointF(idle_width - 6, top + 8));
    const double left = idle_width, span = width() - left - 4;
    for (int level = 0; level < kLoadLevels; ++level) {
      const double x0 = left + span * level / kLoadLevels, x1 = left + span * (level + 1) / kLoadLevels;
      p.setPen(QPen(load_colour((level + 1.0) / kLoadLevels), load_width(level), Qt::SolidLine, Qt::FlatCap));
      p.drawLine(QPointF(x0, top + 8), QPointF(x1, top + 8));
    }
    p.setPen(palette().color(QPalette::Text));
    const QRectF labels(0, top + 16, width(), metrics.height());
    p.drawText(labels, Qt::AlignLeft, QStringLiteral("idle"));
    p.drawText(labels.adjusted(left, 0, 0, 0), Qt::AlignLeft, low_);
    p.drawText(labels.adjusted(0, 0, -4, 0), Qt::AlignRight, high_);
  }

 private:
  QString title_, low_, high_;
};

// ---- Construction ------------------------------------------------------------------------------

TopologyEditor::TopologyEditor(QWidget* parent)
    : QWidget(parent), document_(new TopologyDocument(this)), scene_(new QGraphicsScene(this)) {
  view_ = new TopologyView(scene_, this);
  view_->setLinkToolTip([this](int32_t link) { return linkToolTip(link); });
  buildToolbars();
  buildSidePanel();

  problems_line_ = new QLabel(this);
  problems_line_->setWordWrap(true);
  problems_line_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_line_->setContentsMargins(6, 3, 6, 3);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(view_);
  splitter->addWidget(properties_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 0);
  splitter->setSizes({900, 300});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(palette_bar_);
  layout->addWidget(action_bar_);
  layout->addWidget(splitter, 1);
  layout->addWidget(problems_line_);

  connect(document_, &TopologyDocument::changed, this, &TopologyEditor::onDocumentChanged);
  connect(document_, &TopologyDocument::positionsChanged, this, &TopologyEditor::syncPositions);
  connect(view_, &TopologyView::viewChanged, this, &TopologyEditor::updateDetail);
  connect(view_, &TopologyView::placeRequested, this, &TopologyEditor::placeDevice);
  connect(view_, &TopologyView::linkRequested, this, &TopologyEditor::addLinkBetween);
  connect(view_, &TopologyView::linkClicked, this, [this](int32_t link, bool add) {
    if (!add) {
      syncing_selection_ = true;
      scene_->clearSelection();
      syncing_selection_ = false;
      std::fill(link_selected_.begin(), link_selected_.end(), 0);
    }
    if (link >= 0 && static_cast<size_t>(link) < link_selected_.size())
      link_selected_[static_cast<size_t>(link)] = add ? !link_selected_[static_cast<size_t>(link)] : 1;
    onSelectionChanged();
  });
  connect(view_, &TopologyView::emptyClicked, this, [this] {
    std::fill(link_selected_.begin(), link_selected_.end(), 0);
    restyleLinks();
  });
  connect(view_, &TopologyView::dragStarted, this, [this] {
    drag_devices_ = selectedDevices();
    drag_from_.clear();
    for (const DeviceId d : drag_devices_) drag_from_.push_back(document_->positions()[d.index()]);
  });
  connect(view_, &TopologyView::dragFinished, this, [this] {
    std::vector<QPointF> to;
    for (const DeviceId d : drag_devices_) to.push_back(document_->positions()[d.index()]);
    if (to != drag_from_) document_->moveDevices(drag_devices_, drag_from_, to);
    drag_devices_.clear();
  });
  connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
    if (syncing_selection_) return;
    if (!(QGuiApplication::keyboardModifiers() & Qt::ControlModifier) && !scene_->selectedItems().empty())
      std::fill(link_selected_.begin(), link_selected_.end(), 0);
    onSelectionChanged();
  });
  rebuildScene();
  updateProblemsLine();
}

TopologyEditor::~TopologyEditor() {
  // The scene and the document are children, destroyed after this class: their last signals
  // (the scene's selectionChanged while it deletes its items) must not reach it.
  disconnect(scene_, nullptr, this, nullptr);
  disconnect(document_, nullptr, this, nullptr);
  disconnect(view_, nullptr, this, nullptr);
}

void TopologyEditor::buildToolbars() {
  palette_bar_ = new QToolBar(QStringLiteral("Palette"), this);
  palette_bar_->setIconSize(QSize(18, 14));
  auto* tools = new QButtonGroup(this);
  tools->setExclusive(true);
  auto* select = new QToolButton(palette_bar_);
  select->setText(QStringLiteral("Select"));
  select->setCheckable(true);
  select->setChecked(true);
  select->setToolTip(QStringLiteral("Select and move; Shift-drag from a device to another adds a link"));
  auto* link = new QToolButton(palette_bar_);
  link->setText(QStringLiteral("Link"));
  link->setCheckable(true);
  link->setToolTip(QStringLiteral("Drag from one device to another to link them"));
  tools->addButton(select);
  tools->addButton(link);
  palette_bar_->addWidget(select);
  palette_bar_->addWidget(link);
  palette_bar_->addSeparator();
  connect(select, &QToolButton::toggled, this, [this](bool on) {
    if (on) view_->setTool(TopologyView::Tool::select);
  });
  connect(link, &QToolButton::toggled, this, [this](bool on) {
    if (on) view_->setTool(TopologyView::Tool::link);
  });
  for (const DeviceKind kind : kPaletteKinds) {
    auto* button = new PaletteButton(kind, palette_bar_);
    tools->addButton(button);
    palette_bar_->addWidget(button);
    connect(button, &QToolButton::toggled, this, [this, kind](bool on) {
      if (on) view_->setTool(TopologyView::Tool::place, kind);
    });
  }

  action_bar_ = new QToolBar(QStringLiteral("Edit"), this);
  QUndoStack* undo = document_->undoStack();
  QAction* undo_action = undo->createUndoAction(this, QStringLiteral("Undo"));
  undo_action->setShortcut(QKeySequence::Undo);
  QAction* redo_action = undo->createRedoAction(this, QStringLiteral("Redo"));
  redo_action->setShortcut(QKeySequence::Redo);
  auto add = [this](const QString& text, QKeySequence key, auto slot) {
    auto* action = new QAction(text, this);
    action->setShortcut(key);
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(action);
    connect(action, &QAction::triggered, this, slot);
    action_bar_->addAction(action);
    return action;
  };
  for (QAction* a : {undo_action, redo_action}) {
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(a);
    action_bar_->addAction(a);
  }
  action_bar_->addSeparator();
  add(QStringLiteral("Delete"), QKeySequence::Delete, [this] { deleteSelection(); });
  add(QStringLiteral("Copy"), QKeySequence::Copy, [this] { copySelection(); });
  add(QStringLiteral("Paste"), QKeySequence::Paste, [this] { paste(); });
  add(QStringLiteral("Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { fitAll(); });
  action_bar_->addSeparator();
  add(QStringLiteral("Replicate node ×"), QKeySequence(),
      [this] { replicateSelectedNode(static_cast<int32_t>(replicate_count_->value())); });
  replicate_count_ = new QSpinBox(action_bar_);
  replicate_count_->setRange(1, 4096);
  replicate_count_->setValue(1);
  replicate_count_->setToolTip(QStringLiteral("Copies of the selected device's node, placed beside the cluster"));
  action_bar_->addWidget(replicate_count_);
  add(QStringLiteral("Connect to fabric"), QKeySequence(), [this] {
    connectFabric();
  })->setToolTip(QStringLiteral("Replace leaf and spine switches by a rail-optimised fabric over every node's NICs"));
  action_bar_->addSeparator();
  action_bar_->addWidget(new QLabel(QStringLiteral(" New links: "), action_bar_));
  link_kind_ = new QComboBox(action_bar_);
  for (const LinkKind kind : kLinkKinds) link_kind_->addItem(link_kind_label(kind), static_cast<int>(kind));
  link_spec_a_ = new QSpinBox(action_bar_);
  link_spec_b_ = new QSpinBox(action_bar_);
  action_bar_->addWidget(link_kind_);
  action_bar_->addWidget(link_spec_a_);
  action_bar_->addWidget(link_spec_b_);
  auto spec_for_kind = [this] {
    const auto kind = static_cast<LinkKind>(link_kind_->currentData().toInt());
    const QSignalBlocker block_a(link_spec_a_), block_b(link_spec_b_);
    link_spec_a_->setVisible(kind == LinkKind::nvlink || kind == LinkKind::pcie);
    link_spec_a_->setPrefix(kind == LinkKind::nvlink ? QStringLiteral("NVLink ") : QStringLiteral("Gen"));
    link_spec_a_->setRange(kind == LinkKind::nvlink ? 2 : 1, kind == LinkKind::nvlink ? 5 : 6);
    link_spec_a_->setValue(kind == LinkKind::nvlink ? 4 : 5);
    if (kind == LinkKind::nvlink) {
      link_spec_b_->setPrefix(QStringLiteral("× "));
      link_spec_b_->setSuffix(QStringLiteral(" links"));
      link_spec_b_->setRange(1, 36);
      link_spec_b_->setValue(18);
    } else if (kind == LinkKind::pcie) {
      link_spec_b_->setPrefix(QStringLiteral("x"));
      link_spec_b_->setSuffix(QString());
      link_spec_b_->setRange(1, 32);
      link_spec_b_->setValue(16);
    } else if (is_network_link(kind)) {
      link_spec_b_->setPrefix(QString());
      link_spec_b_->setSuffix(QStringLiteral(" Gb/s"));
      link_spec_b_->setRange(1, 3200);
      link_spec_b_->setValue(400);
    } else {
      link_spec_b_->setPrefix(QString());
      link_spec_b_->setSuffix(QStringLiteral(" GB/s"));
      link_spec_b_->setRange(1, 4000);
      link_spec_b_->setValue(64);
    }
  };
  connect(link_kind_, &QComboBox::currentIndexChanged, this, spec_for_kind);
  spec_for_kind();
}

void TopologyEditor::buildSidePanel() {
  properties_ = new QWidget(this);
  properties_->setMinimumWidth(280);
  auto* layout = new QVBoxLayout(properties_);
  layout->setContentsMargins(10, 8, 10, 8);
  properties_title_ = new QLabel(properties_);
  properties_title_->setWordWrap(true);
  QFont bold = properties_title_->font();
  bold.setBold(true);
  properties_title_->setFont(bold);
  layout->addWidget(properties_title_);
  form_ = new QFormLayout;
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout->addLayout(form_);
  layout->addSpacing(14);

  auto* comm_title = new QLabel(QStringLiteral("Communication map"), properties_);
  comm_title->setFont(bold);
  layout->addWidget(comm_title);
  auto* comm_form = new QFormLayout;
  axis_combo_ = new QComboBox(properties_);
  axis_combo_->addItem(QStringLiteral("All axes"), -1);
  for (const MeshAxis axis : {MeshAxis::dp, MeshAxis::tp, MeshAxis::pp, MeshAxis::cp, MeshAxis::ep})
    axis_combo_->addItem(axis_label(axis), static_cast<int>(axis));
  metric_combo_ = new QComboBox(properties_);
  metric_combo_->addItem(QStringLiteral("Busy time per step"), static_cast<int>(LoadMetric::busy_time_per_step));
  metric_combo_->addItem(QStringLiteral("Bytes per step"), static_cast<int>(LoadMetric::bytes_per_step));
  comm_form->addRow(QStringLiteral("Axis"), axis_combo_);
  comm_form->addRow(QStringLiteral("Colour by"), metric_combo_);
  layout->addLayout(comm_form);
  legend_ = new LoadLegend(properties_);
  layout->addWidget(legend_);
  comm_summary_ = new QLabel(properties_);
  comm_summary_->setWordWrap(true);
  layout->addWidget(comm_summary_);
  layout->addStretch(1);
  connect(axis_combo_, &QComboBox::currentIndexChanged, this, [this] {
    const int value = axis_combo_->currentData().toInt();
    setCommAxis(value < 0 ? std::nullopt : std::optional(static_cast<MeshAxis>(value)));
  });
  connect(metric_combo_, &QComboBox::currentIndexChanged, this,
          [this] { setLoadMetric(static_cast<LoadMetric>(metric_combo_->currentData().toInt())); });
}

// ---- Document ------------------------------------------------------------------------------------

void TopologyEditor::setCluster(Cluster cluster) {
  loads_.clear();
  document_->setCluster(std::move(cluster));
  fitAll();
}

const Cluster& TopologyEditor::cluster() const {
  return document_->cluster();
}
QUndoStack* TopologyEditor::undoStack() {
  return document_->undoStack();
}
const std::vector<ClusterProblem>& TopologyEditor::problems() const {
  return document_->problems();
}
QString TopologyEditor::problemsText() const {
  return problems_line_->text();
}

void TopologyEditor::onDocumentChanged(bool structure) {
  if (structure) {
    loads_.clear();  // link indices may have moved: the map no longer fits
    rebuildScene();
  } else {
    refreshItems();
  }
  updateProblemsLine();
  scheduleProperties();
  emit clusterChanged();
}

void TopologyEditor::rebuildScene() {
  // The items still carry the old indices: reselect by the ids noted when the selection changed.
  const std::vector<std::string> selected_ids = selected_ids_;
  syncing_selection_ = true;
  scene_->clear();
  syncing_selection_ = false;
  const Cluster& c = cluster();
  device_items_.assign(c.devices.size(), nullptr);
  node_items_.clear();
  node_members_.clear();
  link_selected_.assign(c.links.size(), 0);
  link_layer_ = new LinkLayer;
  link_layer_->setZValue(collapsed_ ? -1 : 1);
  group_layer_ = new GroupLayer;
  scene_->addItem(link_layer_);
  scene_->addItem(group_layer_);
  view_->setLinkLayer(link_layer_);
  for (size_t i = 0; i < c.devices.size(); ++i) {
    const int32_t node = c.devices[i].node;
    if (node < 0) continue;
    if (node_members_.size() <= static_cast<size_t>(node)) node_members_.resize(static_cast<size_t>(node) + 1);
    node_members_[static_cast<size_t>(node)].push_back(i);
  }
  node_materialized_.assign(node_members_.size(), 0);
  node_rects_.assign(node_members_.size(), QRectF());
  for (size_t n = 0; n < node_members_.size(); ++n) {
    if (node_members_[n].empty()) continue;
    auto* item = new NodeItem(static_cast<int32_t>(n));
    item->setCollapsed(collapsed_);
    scene_->addItem(item);
    node_items_.emplace(static_cast<int32_t>(n), item);
  }
  refreshItems();  // problems, node rects and texts, links, groups
  for (size_t i = 0; i < c.devices.size(); ++i)
    if (c.devices[i].node < 0) materializeNode(-1 - static_cast<int32_t>(i));
  if (c.devices.size() <= kEagerDevices)
    for (size_t n = 0; n < node_members_.size(); ++n) materializeNode(static_cast<int32_t>(n));
  updateDetail();
  std::vector<DeviceId> reselect;
  for (const std::string& id : selected_ids)
    if (const auto it = c.by_id.find(id); it != c.by_id.end()) reselect.push_back(it->second);
  selectDevices(reselect);
}

// Creates the items of node `node`'s devices (node < 0: the single device −1 − node).
void TopologyEditor::materializeNode(int32_t node) {
  std::vector<size_t> single;
  const std::vector<size_t>* members = &single;
  if (node < 0) {
    single.push_back(static_cast<size_t>(-1 - node));
  } else {
    if (node_materialized_[static_cast<size_t>(node)]) return;
    node_materialized_[static_cast<size_t>(node)] = 1;
    members = &node_members_[static_cast<size_t>(node)];
  }
  const Cluster& c = cluster();
  for (const size_t i : *members) {
    if (device_items_[i]) continue;
    auto* item = new DeviceItem(static_cast<int32_t>(i), [this](int32_t device, QPointF position) {
      document_->previewPosition(DeviceId{device}, position);
    });
    const auto problem = problem_by_id_.find(c.devices[i].id);
    item->setDevice(c.devices[i], problem == problem_by_id_.end() ? QString() : problem->second);
    item->setPositionQuietly(document_->positions()[i]);
    item->setVisible(node < 0 || !collapsed_);
    scene_->addItem(item);
    device_items_[i] = item;
  }
}

void TopologyEditor::updateDetail() {
  const bool collapse = view_->zoom() < kCollapseZoom && !node_items_.empty();
  if (collapse != collapsed_) {
    collapsed_ = collapse;
    for (auto& [node, item] : node_items_) item->setCollapsed(collapsed_);
    const Cluster& c = cluster();
    for (size_t i = 0; i < device_items_.size(); ++i)
      if (device_items_[i] && c.devices[i].node >= 0) device_items_[i]->setVisible(!collapsed_);
    // Closed boxes hide the links that end inside them; only the bundles between boxes show.
    link_layer_->setZValue(collapsed_ ? -1 : 1);
    refreshLinkGeometry();
    restyleLinks();
    updateGroups();
  }
  if (collapsed_) return;
  const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  for (size_t n = 0; n < node_members_.size(); ++n)
    if (!node_materialized_[n] && !node_members_[n].empty() && node_rects_[n].intersects(visible))
      materializeNode(static_cast<int32_t>(n));
}

void TopologyEditor::syncPositions() {
  const auto& positions = document_->positions();
  for (size_t i = 0; i < device_items_.size(); ++i)
    if (device_items_[i] && device_items_[i]->pos() != positions[i]) device_items_[i]->setPositionQuietly(positions[i]);
  for (size_t n = 0; n < node_members_.size(); ++n) {
    node_rects_[n] = nodeRect(static_cast<int32_t>(n));
    if (const auto it = node_items_.find(static_cast<int32_t>(n)); it != node_items_.end())
      it->second->setRect(node_rects_[n]);
  }
  refreshLinkGeometry();
  updateGroups();
}

void TopologyEditor::refreshItems() {
  const Cluster& c = cluster();
  problem_by_id_.clear();
  for (const ClusterProblem& p : problems()) {
    if (p.id.empty()) continue;
    QString& text = problem_by_id_[p.id];
    text += (text.isEmpty() ? "" : "\n") + QString::fromStdString(p.message);
  }
  for (size_t i = 0; i < device_items_.size(); ++i)
    if (device_items_[i]) {
      const auto problem = problem_by_id_.find(c.devices[i].id);
      device_items_[i]->setDevice(c.devices[i], problem == problem_by_id_.end() ? QString() : problem->second);
    }
  for (auto& [node, item] : node_items_) {
    int flagged = 0;
    for (const size_t i : node_members_[static_cast<size_t>(node)]) flagged += problem_by_id_.contains(c.devices[i].id);
    item->setText(document_->nodeTitle(node), nodeSummary(node));
    item->setProblem(flagged ? QStringLiteral("%1 devices with problems").arg(flagged) : QString());
  }
  computeLoads();
  syncPositions();  // node rects, link lines, groups
  restyleLinks();
}

QRectF TopologyEditor::nodeRect(int32_t node) const {
  const auto& members = node_members_[static_cast<size_t>(node)];
  if (members.empty()) return {};
  const auto& positions = document_->positions();
  double left = 1e300, top = 1e300, right = -1e300, bottom = -1e300;
  for (const size_t i : members) {
    left = std::min(left, positions[i].x());
    right = std::max(right, positions[i].x());
    top = std::min(top, positions[i].y());
    bottom = std::max(bottom, positions[i].y());
  }
  return QRectF(QPointF(left - kDeviceWidth / 2 - kNodeMargin, top - kDeviceHeight / 2 - kNodeMargin - kNodeTitle),
                QPointF(right + kDeviceWidth / 2 + kNodeMargin, bottom + kDeviceHeight / 2 + kNodeMargin));
}

int32_t TopologyEditor::nodeAt(QPointF position) const {
  for (size_t n = 0; n < node_rects_.size(); ++n)
    if (!node_members_[n].empty() && node_rects_[n].contains(position)) return static_cast<int32_t>(n);
  return -1;
}

QString TopologyEditor::nodeSummary(int32_t node) const {
  const Cluster& c = cluster();
  int gpus = 0;
  std::string model;
  for (const size_t i : node_members_[static_cast<size_t>(node)])
    if (c.devices[i].kind == DeviceKind::gpu) {
      ++gpus;
      if (model.empty()) model = c.devices[i].gpu_model;
    }
  QString text = document_->nodeTitle(node);
  if (gpus > 0)
    text += QStringLiteral(" · %1 × %2")
                .arg(gpus)
                .arg(model.empty() ? QStringLiteral("GPU") : QString::fromStdString(model).toUpper());
  return text;
}

void TopologyEditor::refreshLinkGeometry() {
  if (!link_layer_) return;
  const Cluster& c = cluster();
  const auto& positions = document_->positions();
  auto collapsed_node = [&](const Device& d) {
    return collapsed_ && d.node >= 0 && static_cast<size_t>(d.node) < node_rects_.size();
  };
  auto end_of = [&](DeviceId id) {
    const Device& d = c.device(id);
    if (collapsed_node(d)) {
      const QRectF& r = node_rects_[static_cast<size_t>(d.node)];
      return QPointF(r.center().x(), r.top());
    }
    return positions[id.index()];
  };
  // On a large cluster a host's uplinks to far-away leaves would cross every host between them:
  // links longer than a few node widths are drawn as a stub from the host end towards the switch
  // (the tooltip names the switch).
  double node_width = 0;
  for (const QRectF& r : node_rects_) node_width = std::max(node_width, r.width());
  const double stub_beyond = node_width > 0 ? 6 * node_width : 1e300;
  std::vector<QLineF> lines(c.links.size());
  for (size_t i = 0; i < c.links.size(); ++i) {
    const Link& l = c.links[i];
    if (!l.a.valid() || !l.b.valid() || l.a.index() >= c.devices.size() || l.b.index() >= c.devices.size()) continue;
    const Device& a = c.device(l.a);
    const Device& b = c.device(l.b);
    if (collapsed_node(a) && collapsed_node(b) && a.node == b.node) continue;  // inside a closed box
    QLineF line(end_of(l.a), end_of(l.b));
    if (line.length() > stub_beyond && (a.node >= 0) != (b.node >= 0)) {
      if (a.node < 0) line = QLineF(line.p2(), line.p1());
      line.setLength(kCellHeight);
    }
    lines[i] = line;
  }
  link_layer_->setLines(std::move(lines));
}

void TopologyEditor::restyleLinks() {
  if (!link_layer_) return;
  const Cluster& c = cluster();
  std::vector<QPen> pens;
  for (const LinkKind kind : kLinkKinds) {
    QColor colour = link_kind_colour(kind);
    if (is_network_link(kind)) colour.setAlphaF(0.6f);  // long fabric links recede behind the hosts
    QPen pen(colour, is_network_link(kind) ? 1.2 : 1.8);
    pen.setCosmetic(true);
    pens.push_back(pen);
  }
  for (const auto& [colour, width] : {std::pair{kProblemRed, 3.0}, std::pair{kSelectedBlue, 3.5},
                                      std::pair{kIdleGrey, 1.0}, std::pair{QColor(0xDD, 0xDD, 0xDD), 1.0}}) {
    QPen pen(colour, width);
    pen.setCosmetic(true);
    pens.push_back(pen);
  }
  for (int level = 0; level < kLoadLevels; ++level) {
    QPen pen(load_colour((level + 1.0) / kLoadLevels), load_width(level));
    pen.setCosmetic(true);
    pen.setCapStyle(Qt::RoundCap);
    pens.push_back(pen);
  }
  std::vector<uint16_t> pen_of(c.links.size(), 0);
  const bool map = commMapShown();
  for (size_t i = 0; i < c.links.size(); ++i) {
    uint16_t pen =
        static_cast<uint16_t>(std::find(kLinkKinds.begin(), kLinkKinds.end(), c.links[i].kind) - kLinkKinds.begin());
    const Link& l = c.links[i];
    const bool into_closed_node =
        collapsed_ && ((l.a.valid() && l.a.index() < c.devices.size() && c.device(l.a).node >= 0) ||
                       (l.b.valid() && l.b.index() < c.devices.size() && c.device(l.b).node >= 0));
    if (into_closed_node) pen = kFaintPen;
    if (map) {
      pen = into_closed_node ? kFaintPen : kIdlePen;
      if (link_load_[i] > 0 && max_load_ > 0) {
        const int level =
            std::clamp(static_cast<int>(std::ceil(link_load_[i] / max_load_ * kLoadLevels)) - 1, 0, kLoadLevels - 1);
        pen = static_cast<uint16_t>(kFirstLoadPen + level);
      }
    }
    if (problem_by_id_.contains(c.links[i].id)) pen = kProblemPen;
    if (link_selected_[i]) pen = kSelectedPen;
    pen_of[i] = pen;
  }
  link_layer_->setPens(std::move(pens), std::move(pen_of));
}

// ---- Communication map -------------------------------------------------------------------------

void TopologyEditor::setCommPlan(const CommPlan& plan, const Layout& layout, const Placement& placement) {
  const Router router(cluster());
  setLinkLoads(link_traffic_per_axis(plan, layout, cluster(), router, placement), placement);
}

void TopologyEditor::setLinkLoads(std::vector<AxisLinkTraffic> loads, Placement placement) {
  loads_ = std::move(loads);
  placement_ = std::move(placement);
  computeLoads();
  restyleLinks();
  updateGroups();
}

void TopologyEditor::clearCommMap() {
  setLinkLoads({}, Placement{});
}

void TopologyEditor::setCommAxis(std::optional<MeshAxis> axis) {
  axis_ = axis;
  const int wanted = axis ? static_cast<int>(*axis) : -1;
  if (axis_combo_->currentData().toInt() != wanted) {
    const QSignalBlocker block(axis_combo_);
    axis_combo_->setCurrentIndex(std::max(0, axis_combo_->findData(wanted)));
  }
  computeLoads();
  restyleLinks();
  updateGroups();
}

void TopologyEditor::setLoadMetric(LoadMetric metric) {
  metric_ = metric;
  const QSignalBlocker block(metric_combo_);
  metric_combo_->setCurrentIndex(std::max(0, metric_combo_->findData(static_cast<int>(metric))));
  computeLoads();
  restyleLinks();
}

const AxisLinkTraffic* TopologyEditor::shownLoads(AxisLinkTraffic& summed) const {
  if (axis_) {
    for (const AxisLinkTraffic& a : loads_)
      if (a.axis == *axis_) return &a;
    return nullptr;
  }
  std::vector<LinkTraffic> by_link(cluster().links.size());
  for (const AxisLinkTraffic& a : loads_)
    for (const LinkTraffic& t : a.links) {
      if (t.link.index() >= by_link.size()) continue;
      LinkTraffic& s = by_link[t.link.index()];
      s.link = t.link;
      for (int d = 0; d < 2; ++d) {
        s.bytes_per_step[d] += t.bytes_per_step[d];
        s.flows[d] = std::max(s.flows[d], t.flows[d]);
      }
    }
  summed.links.clear();
  for (const LinkTraffic& t : by_link)
    if (t.link.valid()) summed.links.push_back(t);
  return &summed;
}

void TopologyEditor::computeLoads() {
  const Cluster& c = cluster();
  link_load_.assign(c.links.size(), 0.0);
  max_load_ = 0;
  if (loads_.empty()) {
    legend_->setScale({}, {}, {});
    comm_summary_->setText(QStringLiteral("No plan shown. The main window sends the layout's communication here."));
    return;
  }
  AxisLinkTraffic summed;
  const AxisLinkTraffic* shown = shownLoads(summed);
  int32_t busiest = -1;
  if (shown)
    for (const LinkTraffic& t : shown->links) {
      if (t.link.index() >= c.links.size()) continue;
      const double bytes = std::max(t.bytes_per_step[0], t.bytes_per_step[1]);
      const double bandwidth = c.link(t.link).bandwidth_bytes_per_s;
      const double value = metric_ == LoadMetric::bytes_per_step ? bytes : (bandwidth > 0 ? bytes / bandwidth : 0.0);
      link_load_[t.link.index()] = value;
      if (value > max_load_) {
        max_load_ = value;
        busiest = t.link.value;
      }
    }
  auto value_text = [&](double v) {
    return metric_ == LoadMetric::bytes_per_step ? binary_bytes_text(v) : duration_text(v);
  };
  const QString what = metric_ == LoadMetric::bytes_per_step ? QStringLiteral("Bytes per step on a link")
                                                             : QStringLiteral("Link busy time per step");
  legend_->setScale(QStringLiteral("%1 (%2)").arg(what, axis_label(axis_)), QStringLiteral("0"),
                    max_load_ > 0 ? value_text(max_load_) : QStringLiteral("—"));
  if (busiest < 0) {
    comm_summary_->setText(QStringLiteral("No traffic on %1 in this plan.").arg(axis_label(axis_)));
    return;
  }
  const Link& l = c.link(LinkId{busiest});
  QString text = QStringLiteral("Busiest link: <b>%1</b> (%2), %3 per step in its busier direction")
                     .arg(QString::fromStdString(l.id).toHtmlEscaped(), link_spec_text(l),
                          metric_ == LoadMetric::bytes_per_step ? value_text(max_load_)
                                                                : duration_text(max_load_) + QStringLiteral(" busy"));
  if (axis_)
    if (const AxisGroups* g = placement_.axis(*axis_))
      text += QStringLiteral("<br>%1 groups of %2 ranks, outlined").arg(g->groups.size()).arg(g->size);
  comm_summary_->setText(text);
}

void TopologyEditor::updateGroups() {
  if (!group_layer_) return;
  std::vector<GroupLayer::Outline> outlines;
  const AxisGroups* groups = axis_ && !loads_.empty() ? placement_.axis(*axis_) : nullptr;
  const Cluster& c = cluster();
  if (groups && !collapsed_) {
    const auto& positions = document_->positions();
    for (size_t g = 0; g < groups->groups.size() && outlines.size() < 20000; ++g) {
      std::map<int32_t, QRectF> by_node;
      for (const int32_t rank : groups->groups[g]) {
        if (rank < 0 || static_cast<size_t>(rank) >= placement_.rank_to_gpu.size()) continue;
        const DeviceId gpu = placement_.rank_to_gpu[static_cast<size_t>(rank)];
        if (!gpu.valid() || gpu.index() >= c.devices.size()) continue;
        const QPointF p = positions[gpu.index()];
        const QRectF box(p.x() - kDeviceWidth / 2 - 5, p.y() - kDeviceHeight / 2 - 5, kDeviceWidth + 10,
                         kDeviceHeight + 20);
        QRectF& r = by_node[c.device(gpu).node];
        r = r.isNull() ? box : r.united(box);
      }
      bool first = true;
      for (const auto& [node, rect] : by_node) {
        outlines.push_back(
            {rect, kGroupColours[g % kGroupColours.size()], first ? QStringLiteral("g%1").arg(g) : QString()});
        first = false;
      }
    }
  }
  group_layer_->setOutlines(std::move(outlines));
}

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

// ---- Selection and actions -----------------------------------------------------------------------

void TopologyEditor::selectDevices(const std::vector<DeviceId>& devices) {
  syncing_selection_ = true;
  scene_->clearSelection();
  std::fill(link_selected_.begin(), link_selected_.end(), 0);
  for (const DeviceId d : devices) {
    if (!d.valid() || d.index() >= device_items_.size()) continue;
    const int32_t node = cluster().device(d).node;
    if (!device_items_[d.index()] && node >= 0) materializeNode(node);
    if (device_items_[d.index()]) device_items_[d.index()]->setSelected(true);
  }
  syncing_selection_ = false;
  onSelectionChanged();
}

void TopologyEditor::selectLinks(const std::vector<LinkId>& links) {
  syncing_selection_ = true;
  scene_->clearSelection();
  syncing_selection_ = false;
  std::fill(link_selected_.begin(), link_selected_.end(), 0);
  for (const LinkId l : links)
    if (l.valid() && l.index() < link_selected_.size()) link_selected_[l.index()] = 1;
  onSelectionChanged();
}

std::vector<DeviceId> TopologyEditor::selectedDevices() const {
  std::vector<DeviceId> devices;
  for (QGraphicsItem* item : scene_->selectedItems()) {
    if (item->type() == kDeviceItemType) devices.push_back(DeviceId{static_cast<DeviceItem*>(item)->device()});
    if (item->type() == kNodeItemType) {
      const int32_t node = static_cast<NodeItem*>(item)->node();
      for (const size_t i : node_members_[static_cast<size_t>(node)])
        devices.push_back(DeviceId{static_cast<int32_t>(i)});
    }
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

std::vector<LinkId> TopologyEditor::selectedLinks() const {
  std::vector<LinkId> links;
  for (size_t i = 0; i < link_selected_.size(); ++i)
    if (link_selected_[i]) links.push_back(LinkId{static_cast<int32_t>(i)});
  return links;
}

void TopologyEditor::deleteSelection() {
  document_->deleteItems(selectedDevices(), selectedLinks());
}

void TopologyEditor::copySelection() {
  clipboard_ = document_->copy(selectedDevices());
  paste_count_ = 0;
}

void TopologyEditor::paste() {
  if (clipboard_.empty()) return;
  ++paste_count_;
  const size_t first = cluster().devices.size();
  document_->paste(clipboard_, QPointF(40.0 * paste_count_, 40.0 * paste_count_));
  std::vector<DeviceId> pasted;
  for (size_t i = first; i < cluster().devices.size(); ++i) pasted.push_back(DeviceId{static_cast<int32_t>(i)});
  selectDevices(pasted);
}

void TopologyEditor::replicateSelectedNode(int32_t copies) {
  const auto devices = selectedDevices();
  for (const DeviceId d : devices)
    if (cluster().device(d).node >= 0) {
      document_->replicateNode(cluster().device(d).node, copies);
      return;
    }
}

FabricOptions TopologyEditor::fabricOptions() const {
  FabricOptions options;
  const Cluster& c = cluster();
  for (const Link& l : c.links) {
    if (!is_network_link(l.kind) || l.gbits_per_s <= 0) continue;
    if (!l.a.valid() || !l.b.valid() || l.a.index() >= c.devices.size() || l.b.index() >= c.devices.size()) continue;
    if (c.device(l.a).kind == DeviceKind::nic || c.device(l.b).kind == DeviceKind::nic) {
      options.kind = l.kind;
      options.nic_gbps = l.gbits_per_s;
      break;
    }
  }
  return options;
}

void TopologyEditor::connectFabric() {
  document_->connectToFabric(fabricOptions());
}

void TopologyEditor::placeDevice(DeviceKind kind, QPointF position) {
  const Cluster& c = cluster();
  const bool fabric = kind == DeviceKind::leaf_switch || kind == DeviceKind::spine_switch;
  const int32_t node = fabric ? -1 : nodeAt(position);
  Device d;
  d.kind = kind;
  d.node = node;
  std::string prefix;
  int32_t same_kind = 0, cpus = 0;
  std::string model;
  for (const Device& other : c.devices) {
    if (other.kind == DeviceKind::gpu && model.empty()) model = other.gpu_model;
    if (other.node != node) continue;
    same_kind += other.kind == kind ? 1 : 0;
    cpus += other.kind == DeviceKind::cpu ? 1 : 0;
    if (prefix.empty() && node >= 0 && other.id.find('.') != std::string::npos)
      prefix = other.id.substr(0, other.id.find('.') + 1);
  }
  if (node >= 0 && prefix.empty()) {
    // (char + std::to_string rather than "n" + std::to_string: GCC 12's -Wrestrict false positive
    // on operator+(const char*, std::string&&), PR 105329.)
    prefix = std::to_string(node);
    prefix.insert(prefix.begin(), 'n');
    prefix += '.';
  }
  d.id = prefix + kind_stem(kind) + std::to_string(same_kind);
  if (kind == DeviceKind::gpu || kind == DeviceKind::nic) d.local_index = same_kind;
  if (kind == DeviceKind::gpu) d.gpu_model = model.empty() ? "h100-sxm" : model;
  d.numa = kind == DeviceKind::cpu ? cpus : (cpus > 0 ? 0 : -1);
  const DeviceId added = document_->addDevice(std::move(d), position);
  selectDevices({added});
}

Link TopologyEditor::linkFromToolbar() const {
  Link l;
  l.kind = static_cast<LinkKind>(link_kind_->currentData().toInt());
  const int a = link_spec_a_->value(), b = link_spec_b_->value();
  if (l.kind == LinkKind::nvlink) {
    l.nvlink_generation = a;
    l.nvlink_count = b;
    l.bandwidth_bytes_per_s = nvlink_bandwidth(a, b);
  } else if (l.kind == LinkKind::pcie) {
    l.pcie_generation = a;
    l.pcie_lanes = b;
    l.bandwidth_bytes_per_s = pcie_bandwidth(a, b);
  } else if (is_network_link(l.kind)) {
    l.gbits_per_s = b;
    l.bandwidth_bytes_per_s = network_bandwidth(b);
  } else {
    l.bandwidth_bytes_per_s = b * 1e9;
  }
  return l;
}

void TopologyEditor::addLinkBetween(int32_t from, int32_t to) {
  const Cluster& c = cluster();
  Link l = linkFromToolbar();
  l.a = DeviceId{from};
  l.b = DeviceId{to};
  l.latency_s = default_link_latency_s(l.kind, c.device(l.a).kind, c.device(l.b).kind);
  const LinkId added = document_->addLink(std::move(l));
  selectLinks({added});
}

// ---- View ------------------------------------------------------------------------------------------

void TopologyEditor::fitAll() {
  QRectF bounds;
  for (const auto& [node, item] : node_items_) bounds |= item->rect();
  for (size_t i = 0; i < device_items_.size(); ++i)
    if (cluster().devices[i].node < 0)
      bounds |= QRectF(document_->positions()[i] - QPointF(kDeviceWidth, kDeviceHeight),
                       QSizeF(2 * kDeviceWidth, 2 * kDeviceHeight));
  if (bounds.isEmpty()) bounds = QRectF(-200, -150, 400, 300);
  bounds.adjust(-30, -30, 30, 30);
  scene_->setSceneRect(bounds.adjusted(-bounds.width(), -bounds.height(), bounds.width(), bounds.height()));
  view_->fitInView(bounds, Qt::KeepAspectRatio);
  updateDetail();
}

nlohmann::json TopologyEditor::viewState() const {
  nlohmann::json positions = nlohmann::json::object();
  const Cluster& c = cluster();
  for (size_t i = 0; i < c.devices.size(); ++i)
    positions[c.devices[i].id] = {document_->positions()[i].x(), document_->positions()[i].y()};
  const QPointF centre = view_->mapToScene(view_->viewport()->rect().center());
  return {{"zoom", view_->zoom()}, {"centre", {centre.x(), centre.y()}}, {"positions", positions}};
}

void TopologyEditor::setViewState(const nlohmann::json& state) {
  if (!state.is_object()) return;
  const Cluster& c = cluster();
  if (const auto it = state.find("positions"); it != state.end() && it->is_object()) {
    std::vector<DeviceId> devices;
    std::vector<QPointF> points;
    for (const auto& [id, point] : it->items()) {
      const auto found = c.by_id.find(id);
      if (found == c.by_id.end() || !point.is_array() || point.size() != 2 || !point[0].is_number() ||
          !point[1].is_number())
        continue;
      devices.push_back(found->second);
      points.emplace_back(point[0].get<double>(), point[1].get<double>());
    }
    document_->setPositions(devices, points);
  }
  if (const auto zoom = state.find("zoom"); zoom != state.end() && zoom->is_number())
    view_->setZoom(zoom->get<double>());
  if (const auto centre = state.find("centre");
      centre != state.end() && centre->is_array() && centre->size() == 2 && (*centre)[0].is_number())
    view_->centerOn((*centre)[0].get<double>(), (*centre)[1].get<double>());
  updateDetail();
}

// ---- Introspection --------------------------------------------------------------------------------

TopologyEditor::LinkStyle TopologyEditor::linkStyle(LinkId link) const {
  LinkStyle style;
  if (!link_layer_ || !link.valid() || link.index() >= link_layer_->lines().size()) return style;
  const QPen& pen = link_layer_->penOf(link.index());
  style.colour = pen.color();
  style.width = pen.widthF();
  style.visible = !link_layer_->lines()[link.index()].isNull();
  style.flagged = problem_by_id_.contains(cluster().link(link).id);
  return style;
}

bool TopologyEditor::deviceFlagged(DeviceId device) const {
  return device.valid() && device.index() < cluster().devices.size() &&
         problem_by_id_.contains(cluster().device(device).id);
}

int TopologyEditor::deviceItemCount() const {
  return static_cast<int>(std::count_if(device_items_.begin(), device_items_.end(),
                                        [](const DeviceItem* item) { return item && item->isVisible(); }));
}

int TopologyEditor::nodeBoxCount() const {
  return static_cast<int>(node_items_.size());
}

int TopologyEditor::groupOutlineCount() const {
  return group_layer_ ? static_cast<int>(group_layer_->outlines().size()) : 0;
}

double TopologyEditor::linkLoad(LinkId link) const {
  return link.valid() && link.index() < link_load_.size() ? link_load_[link.index()] : 0.0;
}

}  // namespace meshscope::ui
