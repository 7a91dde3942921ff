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
#include "ui/topology/topology_editor_shared.hpp"
#include "ui/topology/topology_items.hpp"

namespace meshscope::ui {

using namespace editor_detail;

namespace {

// Below this zoom nodes are drawn as one box each and their devices get no items.
constexpr double kCollapseZoom = 0.3;
// Clusters up to this many devices get every item at once (no waiting for them to scroll in).
constexpr size_t kEagerDevices = 4000;

const QColor kProblemRed(0xC0, 0x1C, 0x28);
const QColor kSelectedBlue(0x1F, 0x4E, 0xB4);
// Pens of the link layer: kinds, then problem, selection, idle, then load levels.
constexpr uint16_t kProblemPen = kLinkKinds.size();
constexpr uint16_t kSelectedPen = kProblemPen + 1;
constexpr uint16_t kIdlePen = kProblemPen + 2;
constexpr uint16_t kFaintPen = kProblemPen + 3;  // links into closed node boxes
constexpr uint16_t kFirstLoadPen = kProblemPen + 4;

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

// ---- Construction ------------------------------------------------------------------------------

TopologyEditor::TopologyEditor(QWidget* parent) : TopologyEditor(nullptr, parent) {}

TopologyEditor::TopologyEditor(QUndoStack* shared_undo, QWidget* parent)
    : QWidget(parent), document_(new TopologyDocument(shared_undo, this)), scene_(new QGraphicsScene(this)) {
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
  QAction* redo_action = undo->createRedoAction(this, QStringLiteral("Redo"));
  // On a shared (the project's) stack the window's Edit menu has the keys; the same keys here too
  // would make both ambiguous, and neither would run.
  if (!document_->sharesUndoStack()) {
    undo_action->setShortcut(QKeySequence::Undo);
    redo_action->setShortcut(QKeySequence::Redo);
  }
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

}  // namespace meshscope::ui
