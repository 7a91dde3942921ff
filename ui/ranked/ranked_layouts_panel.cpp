#include "ui/ranked/ranked_layouts_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "ui/kit/table_style.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"

namespace meshscope::ui {

namespace {

// "TP 8 · PP 4 (v 2)" → words {"tp8", "pp4", "v2"}: a name followed by its number is one word.
QStringList filter_words(const QString& text) {
  static const QRegularExpression joined(QStringLiteral("([A-Za-z]+)\\s+(\\d)"));
  static const QRegularExpression separators(QStringLiteral("[^a-z0-9\\-\\.\u00d7]+"));
  QString normalised = text.toLower();
  normalised.replace(joined, QStringLiteral("\\1\\2"));
  return normalised.split(separators, Qt::SkipEmptyParts);
}

// A filter word matches a layout word it begins, unless it ends in a digit that the layout word
// continues ("tp1" is not "tp16").
bool word_matches(const QString& word, const QString& filter) {
  if (!word.startsWith(filter)) return false;
  return word.size() == filter.size() || !filter.back().isDigit() || !word[filter.size()].isDigit();
}

}  // namespace

// Sorts by SortRole and keeps the rows whose layout (and reason) text contains every filter word.
class LayoutFilterProxy final : public QSortFilterProxyModel {
 public:
  explicit LayoutFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(SortRole);
    setDynamicSortFilter(true);
  }

  void setFilterColumns(std::vector<int> columns) {
    columns_ = std::move(columns);
    invalidateFilter();
  }
  void setFilterWords(QStringList words) {
    words_ = std::move(words);
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override {
    if (words_.isEmpty()) return true;
    QStringList row_words;
    for (const int column : columns_)
      row_words << filter_words(sourceModel()->index(source_row, column, source_parent).data().toString());
    return std::all_of(words_.begin(), words_.end(), [&](const QString& filter) {
      return std::any_of(row_words.begin(), row_words.end(),
                         [&](const QString& word) { return word_matches(word, filter); });
    });
  }

 private:
  std::vector<int> columns_;
  QStringList words_;
};

namespace {

QTableView* make_table(QAbstractItemModel* model, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setModel(model);
  // Columns are sized by size_columns() once the model is set.
  style_table(view, {.row_headers = false,
                     .select_rows = true,
                     .single_selection = true,
                     .sortable = true,
                     .highlight_header = false,
                     .resize_to_contents = false});
  return view;
}

// Every column sized to its contents except one text column, which takes what is left (the
// layout text fits at 1200 px; narrower, it is elided and the row's tooltip repeats it).
void size_columns(QTableView* view, int stretch_column) {
  QHeaderView* header = view->horizontalHeader();
  header->setStretchLastSection(false);
  for (int column = 0; column < view->model()->columnCount(); ++column)
    header->setSectionResizeMode(column,
                                 column == stretch_column ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
}

}  // namespace

RankedLayoutsPanel::RankedLayoutsPanel(Evaluator* evaluator, QWidget* parent)
    : QWidget(parent),
      ranked_model_(new RankedLayoutsModel(this)),
      serving_model_(new ServingLayoutsModel(this)),
      rejected_model_(new RejectedLayoutsModel(this)),
      valid_proxy_(new LayoutFilterProxy(this)),
      rejected_proxy_(new LayoutFilterProxy(this)),
      filter_(new QLineEdit(this)),
      pin_button_(new QPushButton(tr("Pin"), this)),
      clear_pins_button_(new QPushButton(tr("Clear pins"), this)),
      export_button_(new QPushButton(tr("Export config\u2026"), this)),
      pinned_label_(new QLabel(this)),
      tabs_(new QTabWidget(this)),
      valid_view_(nullptr),
      rejected_view_(nullptr),
      rejected_totals_(new QLabel(this)),
      status_(new QLabel(this)) {
  if (evaluator != nullptr)
    connect(evaluator, &Evaluator::searched, this,
            [this](const std::shared_ptr<const SearchEvaluation>& search) { showSearch(*search); });
  valid_proxy_->setSourceModel(ranked_model_);
  valid_proxy_->setFilterColumns({RankedLayoutsModel::kLayout});
  rejected_proxy_->setSourceModel(rejected_model_);
  rejected_proxy_->setFilterColumns({RejectedLayoutsModel::kLayout, RejectedLayoutsModel::kReason});

  filter_->setPlaceholderText(tr("Filter layouts, e.g. tp8 zero-1 mb2 selective"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, this, &RankedLayoutsPanel::setFilterText);
  pin_button_->setToolTip(tr("Pin the selected layout for side-by-side comparison (up to two)"));
  connect(pin_button_, &QPushButton::clicked, this, &RankedLayoutsPanel::togglePinCurrent);
  connect(clear_pins_button_, &QPushButton::clicked, this, &RankedLayoutsPanel::clearPins);
  export_button_->setToolTip(
      tr("Write the selected layout as its framework's own launcher config (Megatron-LM arguments, torchtitan "
         "TOML or DeepSpeed JSON)"));
  connect(export_button_, &QPushButton::clicked, this, [this] {
    if (const RankedLayout* layout = ranked_model_->layoutAt(currentSourceRow())) emit exportRequested(*layout);
  });
  pinned_label_->setTextFormat(Qt::PlainText);

  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(pin_button_);
  bar->addWidget(clear_pins_button_);
  bar->addWidget(export_button_);

  valid_view_ = make_table(valid_proxy_, tabs_);
  valid_view_->sortByColumn(RankedLayoutsModel::kRank, Qt::AscendingOrder);
  size_columns(valid_view_, RankedLayoutsModel::kLayout);
  connect(valid_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onCurrentRowChanged(current); });
  connect(valid_view_, &QTableView::doubleClicked, this, [this] { togglePinCurrent(); });

  auto* rejected_page = new QWidget(tabs_);
  rejected_view_ = make_table(rejected_proxy_, rejected_page);
  size_columns(rejected_view_, RejectedLayoutsModel::kReason);
  // Source order: grouped by reason, the nearest misses first.
  rejected_view_->sortByColumn(-1, Qt::AscendingOrder);
  rejected_totals_->setWordWrap(true);
  rejected_totals_->setTextFormat(Qt::PlainText);
  rejected_totals_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* rejected_layout = new QVBoxLayout(rejected_page);
  rejected_layout->setContentsMargins(0, 4, 0, 0);
  rejected_layout->addWidget(rejected_totals_);
  rejected_layout->addWidget(rejected_view_, 1);

  tabs_->addTab(valid_view_, QString());
  tabs_->addTab(rejected_page, QString());

  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(pinned_label_);
  layout->addWidget(tabs_, 1);
  layout->addWidget(status_);
  updateTitles();
  updatePinButton();
}

void RankedLayoutsPanel::setResult(std::shared_ptr<const SearchResult> result, RankObjective objective) {
  if (serving_) {
    serving_ = false;
    valid_proxy_->setSourceModel(ranked_model_);
    size_columns(valid_view_, RankedLayoutsModel::kLayout);
  }
  const bool had_pins = !pinned_rows_.empty();
  pinned_rows_.clear();
  ranked_model_->setResult(result, objective);
  rejected_model_->setResult(result);
  serving_model_->setResult(nullptr);
  if (result) {
    status_->setText(tr("evaluated %1 candidates in %2 s \u00b7 %3 valid \u00b7 %4 rejected \u00b7 %5 equivalent "
                        "variants collapsed \u00b7 ranked by %6")
                         .arg(count_text(static_cast<double>(result->evaluated)))
                         .arg(result->elapsed_s, 0, 'f', result->elapsed_s < 10 ? 2 : 1)
                         .arg(count_text(static_cast<double>(result->valid)),
                              count_text(static_cast<double>(rejected_model_->rejectedTotal())),
                              count_text(static_cast<double>(result->collapsed)),
                              QString::fromUtf8(rank_objective_name(objective).data())));
  } else {
    status_->clear();
  }
  updateTitles();
  updatePinButton();
  if (had_pins) emit pinnedChanged({});
}

void RankedLayoutsPanel::setServingResult(std::shared_ptr<const ServingRankResult> result, ServingTarget target) {
  if (!serving_) {
    serving_ = true;
    valid_proxy_->setSourceModel(serving_model_);
    size_columns(valid_view_, ServingLayoutsModel::kLayout);
  }
  const bool had_pins = !pinned_rows_.empty();
  pinned_rows_.clear();
  ranked_model_->setResult(nullptr);
  serving_model_->setResult(result, target);
  rejected_model_->setServingResult(result);
  if (result) {
    status_->setText(tr("evaluated %1 serving layouts \u00b7 %2 meet the target \u00b7 %3 rejected")
                         .arg(count_text(static_cast<double>(result->evaluated)),
                              count_text(static_cast<double>(result->valid)),
                              count_text(static_cast<double>(rejected_model_->rejectedTotal()))));
  } else {
    status_->clear();
  }
  updateTitles();
  updatePinButton();
  if (had_pins) emit pinnedChanged({});
}

void RankedLayoutsPanel::showSearch(const SearchEvaluation& search) {
  if (!search.error.empty()) return;
  quiet_ = true;
  if (search.training)
    setResult(search.training, RankObjective::throughput);
  else if (search.serving)
    setServingResult(search.serving, search.target);
  quiet_ = false;
}

bool RankedLayoutsPanel::selectRank(int rank, bool activate) {
  QAbstractItemModel* source = valid_proxy_->sourceModel();
  if (rank < 1 || rank > source->rowCount()) return false;
  const QModelIndex index = valid_proxy_->mapFromSource(source->index(rank - 1, 0));
  if (!index.isValid()) return false;
  tabs_->setCurrentIndex(0);
  quiet_ = !activate;
  valid_view_->setCurrentIndex(index);
  quiet_ = false;
  valid_view_->scrollTo(index);
  return true;
}

QAbstractItemModel* RankedLayoutsPanel::validModel() const {
  return valid_proxy_;
}

QAbstractItemModel* RankedLayoutsPanel::rejectedModel() const {
  return rejected_proxy_;
}

void RankedLayoutsPanel::setFilterText(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);  // re-enters through textChanged
  const QStringList words = filter_words(text);
  valid_proxy_->setFilterWords(words);
  rejected_proxy_->setFilterWords(words);
  updateTitles();
}

std::vector<RankedLayout> RankedLayoutsPanel::pinned() const {
  std::vector<RankedLayout> layouts;
  for (const int row : pinned_rows_)
    if (const RankedLayout* layout = ranked_model_->layoutAt(row)) layouts.push_back(*layout);
  return layouts;
}

void RankedLayoutsPanel::togglePinCurrent() {
  if (serving_) return;
  const int row = currentSourceRow();
  if (ranked_model_->layoutAt(row) == nullptr) return;
  const auto found = std::find(pinned_rows_.begin(), pinned_rows_.end(), row);
  if (found != pinned_rows_.end()) {
    pinned_rows_.erase(found);
  } else {
    if (static_cast<int>(pinned_rows_.size()) == kMaxPinned) pinned_rows_.erase(pinned_rows_.begin());
    pinned_rows_.push_back(row);
  }
  ranked_model_->setPinnedRows(pinned_rows_);
  updatePinButton();
  emit pinnedChanged(pinned());
}

void RankedLayoutsPanel::clearPins() {
  if (pinned_rows_.empty()) return;
  pinned_rows_.clear();
  ranked_model_->setPinnedRows({});
  updatePinButton();
  emit pinnedChanged({});
}

void RankedLayoutsPanel::onCurrentRowChanged(const QModelIndex& current) {
  updatePinButton();
  if (!current.isValid() || quiet_) return;
  const int row = valid_proxy_->mapToSource(current).row();
  if (serving_) {
    if (const RankedServing* layout = serving_model_->layoutAt(row)) emit servingLayoutActivated(*layout);
  } else if (const RankedLayout* layout = ranked_model_->layoutAt(row)) {
    emit layoutActivated(*layout);
  }
}

int RankedLayoutsPanel::currentSourceRow() const {
  const QModelIndex current = valid_view_->currentIndex();
  return current.isValid() ? valid_proxy_->mapToSource(current).row() : -1;
}

void RankedLayoutsPanel::updateTitles() {
  const int shown = valid_proxy_->rowCount();
  const int total = valid_proxy_->sourceModel()->rowCount();
  int64_t valid = 0;
  if (serving_ && serving_model_->result()) valid = serving_model_->result()->valid;
  if (!serving_ && ranked_model_->result()) valid = ranked_model_->result()->valid;
  // "Valid (20 of 9,876)": the table holds the best `top` of every valid layout.
  QString valid_title = tr("Valid (%1 of %2)").arg(total).arg(count_text(static_cast<double>(valid)));
  if (shown != total)
    valid_title =
        tr("Valid (%1 shown, best %2 of %3)").arg(shown).arg(total).arg(count_text(static_cast<double>(valid)));
  tabs_->setTabText(0, valid_title);
  tabs_->setTabText(1, tr("Rejected (%1)").arg(count_text(static_cast<double>(rejected_model_->rejectedTotal()))));
  rejected_totals_->setText(
      rejected_model_->reasonTotals().empty()
          ? QString()
          : tr("Rejected by reason: %1. The table lists examples of each (for \u201cdoes not fit\u201d the nearest "
               "misses).")
                .arg(rejected_totals_text(rejected_model_->reasonTotals())));
}

void RankedLayoutsPanel::updatePinButton() {
  const int row = currentSourceRow();
  const bool pinned_now = std::find(pinned_rows_.begin(), pinned_rows_.end(), row) != pinned_rows_.end();
  pin_button_->setText(pinned_now ? tr("Unpin") : tr("Pin"));
  pin_button_->setEnabled(!serving_ && ranked_model_->layoutAt(row) != nullptr);
  pin_button_->setVisible(!serving_);
  clear_pins_button_->setVisible(!serving_);
  export_button_->setVisible(!serving_);
  export_button_->setEnabled(!serving_ && ranked_model_->layoutAt(row) != nullptr);
  clear_pins_button_->setEnabled(!pinned_rows_.empty());
  QStringList pins;
  for (size_t i = 0; i < pinned_rows_.size(); ++i) {
    const RankedLayout* layout = ranked_model_->layoutAt(pinned_rows_[i]);
    if (layout != nullptr)
      pins << QStringLiteral("%1: #%2 %3")
                  .arg(QChar(u'A' + static_cast<int>(i)))
                  .arg(pinned_rows_[i] + 1)
                  .arg(ranked_layout_text(*layout));
  }
  pinned_label_->setText(pins.isEmpty() ? tr("Pinned: none (select a row and press Pin, or double-click it; two "
                                             "pins are compared side by side)")
                                        : tr("Pinned: %1").arg(pins.join(QStringLiteral("   "))));
  pinned_label_->setVisible(!serving_);
}

}  // namespace meshscope::ui
