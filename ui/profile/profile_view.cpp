#include "ui/profile/profile_view.hpp"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

#include "core/keys/options.hpp"
#include "core/report/calibration.hpp"
#include "core/session/measurements.hpp"
#include "ui/charts/profile_chart.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMicro = 1e-6;  // Kineto times are microseconds
constexpr int kProgressSteps = 1000;

QString file_name(const std::string& path) {
  return QFileInfo(QString::fromStdString(path)).fileName();
}

}  // namespace

// ---- ProfileView --------------------------------------------------------------------------------------------------

ProfileView::ProfileView(Evaluator* evaluator, QWidget* parent) : QWidget(parent), evaluator_(evaluator) {
  if (evaluator_ != nullptr) connect(evaluator_, &Evaluator::evaluated, this, &ProfileView::showEvaluation);
  setAcceptDrops(true);
  auto* layout = new QVBoxLayout(this);

  auto* header = new QHBoxLayout;
  title_ = new QLabel(tr("No trace. Drop PyTorch profiler traces (.json, .json.gz; one per rank) here."), this);
  QFont title_font = title_->font();
  title_font.setBold(true);
  title_->setFont(title_font);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, kProgressSteps);
  progress_->setMaximumWidth(260);
  progress_->setFormat(tr("Importing… %p%"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  header->addWidget(title_, 1);
  header->addWidget(progress_);
  header->addWidget(cancel_);
  layout->addLayout(header);

  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->hide();
  layout->addWidget(message_);

  chart_ = new ProfileChart(this);
  chart_->setMinimumWidth(360);

  steps_ = new ProfileStepModel(this);
  collectives_ = new ProfileCollectiveModel(this);
  compared_ = new TraceComparisonModel(this);
  tabs_ = new QTabWidget(this);
  const auto add_table = [&](QAbstractItemModel* model, const QString& name) {
    auto* table = new QTableView(tabs_);
    table->setModel(model);
    style_table(table, {.row_headers = false, .select_rows = true, .stretch_last_section = true});
    tabs_->addTab(table, name);
    return table;
  };
  compared_table_ = add_table(compared_, tr("Measured vs predicted"));
  add_table(steps_, tr("Steps"));
  add_table(collectives_, tr("Collectives"));
  // A training log: its own tab, a table and the log's summary under it.
  log_compared_ = new LogComparisonModel(this);
  auto* log_page = new QWidget(tabs_);
  auto* log_layout = new QVBoxLayout(log_page);
  log_layout->setContentsMargins(0, 0, 0, 0);
  log_table_ = new QTableView(log_page);
  log_table_->setModel(log_compared_);
  style_table(log_table_, {.row_headers = false, .select_rows = true, .stretch_last_section = true});
  log_layout->addWidget(log_table_, 1);
  log_notes_ = new QLabel(tr("No training log. File → Import training log… reads Megatron-LM, Megatron-DeepSpeed, "
                             "DeepSpeed, torchtitan and NeMo logs."),
                          log_page);
  log_notes_->setWordWrap(true);
  log_notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  log_notes_->setStyleSheet(QStringLiteral("color: #444444;"));
  log_layout->addWidget(log_notes_);
  tabs_->addTab(log_page, tr("Training log"));

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* right = new QWidget(this);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(tabs_, 1);
  notes_ = new QLabel(right);
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_->setStyleSheet(QStringLiteral("color: #444444;"));
  right_layout->addWidget(notes_);
  splitter->addWidget(chart_);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({620, 760});
  layout->addWidget(splitter, 1);

  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);  // progress is polled, never pushed from the worker (throttled, no event flood)
  connect(progress_timer_, &QTimer::timeout, this, &ProfileView::updateProgress);
  connect(cancel_, &QPushButton::clicked, this, &ProfileView::cancelImport);
  setImportingUi(false);
  rebuildChart();
}

ProfileView::~ProfileView() {
  cancelImport();
  if (watcher_) watcher_->waitForFinished();
}

QSize ProfileView::sizeHint() const {
  return {1400, 800};
}

void ProfileView::setTrace(std::shared_ptr<const KinetoRunAnalysis> run) {
  run_ = std::move(run);
  steps_->setRun(run_);
  collectives_->setRun(run_);
  if (run_ && !run_->ranks.empty()) {
    const KinetoRankAnalysis& first = run_->ranks.front();
    QString text = tr("%n rank(s)", nullptr, static_cast<int>(run_->ranks.size()));
    if (first.world_size > 0) text += tr(" of %1").arg(first.world_size);
    text += QStringLiteral(" · %1 · %2").arg(QString::fromStdString(first.device), file_name(first.origin));
    if (run_->ranks.size() > 1) text += QStringLiteral(" …");
    if (run_->step_skew_us)
      text += tr(" · step skew %1 (slowest rank %2)")
                  .arg(duration_text(*run_->step_skew_us * kMicro))
                  .arg(run_->slowest_rank.value_or(-1));
    title_->setText(text);
  } else {
    title_->setText(tr("No trace. Drop PyTorch profiler traces (.json, .json.gz; one per rank) here."));
  }
  measuredChanged();
}

void ProfileView::showEvaluation(std::shared_ptr<const Evaluation> evaluation) {
  evaluation_ = std::move(evaluation);
  recompare();
}

void ProfileView::setTrainingLog(std::shared_ptr<const MeasuredRun> log) {
  log_ = std::move(log);
  measuredChanged();
  if (log_) tabs_->setCurrentIndex(tabs_->count() - 1);
}

void ProfileView::clear() {
  cancelImport();
  evaluation_.reset();
  log_.reset();
  setTrace(nullptr);
  showMessage({}, false);
}

void ProfileView::measuredChanged() {
  if (evaluator_ != nullptr) evaluator_->setMeasured({run_, log_});
  recompare();
}

const TracePrediction* ProfileView::prediction() const {
  return evaluation_ && evaluation_->measured && evaluation_->measured->predicted ? evaluation_->measured.get()
                                                                                  : nullptr;
}

void ProfileView::recompare() {
  comparison_.reset();
  if (const TracePrediction* prediction = this->prediction(); run_ && prediction && prediction->runs.trace == run_) {
    if (prediction->trace) {
      comparison_ = prediction->trace;
      if (message_is_error_ && message_->text().startsWith(tr("No comparison"))) showMessage({}, false);
    } else {
      showMessage(tr("No comparison with the prediction: %1").arg(QString::fromStdString(prediction->trace_error)),
                  true);
    }
  }
  compared_->setComparison(comparison_);
  compared_table_->resizeColumnsToContents();
  QStringList notes;
  if (comparison_) {
    for (const auto& g : comparison_->process_groups)
      notes << tr("pg %1%2 → %3: %4")
                   .arg(QString::fromStdString(g.name),
                        g.description.empty() ? QString()
                                              : QStringLiteral(" (%1)").arg(QString::fromStdString(g.description)),
                        QString::fromStdString(g.label), QString::fromStdString(g.reason))
                   .toHtmlEscaped();
    for (const auto& note : comparison_->notes) notes << QString::fromStdString(note).toHtmlEscaped();
    notes << tr(
        "Error: predicted / measured − 1. Measured: mean over ranks of each rank's mean over its ProfilerSteps.");
  }
  notes_->setText(notes.join(QStringLiteral("<br>")));
  notes_->setVisible(!notes.isEmpty());
  recompareLog();
  rebuildChart();
}

void ProfileView::recompareLog() {
  log_comparison_.reset();
  QStringList notes;
  if (log_) {
    QString summary = tr("%1 · %2 · %n iteration(s)", nullptr, static_cast<int>(log_->iterations.size()))
                          .arg(file_name(log_->origin), QString::fromUtf8(training_framework_name(log_->framework)));
    if (log_->step_time_s)
      summary += tr(" · median step %1 (spread %2 %)")
                     .arg(duration_text(log_->step_time_s->median))
                     .arg(100 * log_->step_time_s->relative_spread, 0, 'f', 1);
    notes << summary.toHtmlEscaped();
    if (const TracePrediction* prediction = this->prediction(); prediction && prediction->runs.log == log_) {
      if (prediction->log) {
        log_comparison_ = prediction->log;
        for (const std::string& note : log_comparison_->notes) notes << QString::fromStdString(note).toHtmlEscaped();
        notes << tr("Error: predicted / measured − 1, for the project's layout (%1).")
                     .arg(QString::fromStdString(keys_text(layout_to_keys(evaluation_->project.layout))))
                     .toHtmlEscaped();
      } else {
        notes << QStringLiteral("<span style=\"color:#b00020\">%1</span>")
                     .arg(tr("No comparison with the prediction: %1")
                              .arg(QString::fromStdString(prediction->log_error))
                              .toHtmlEscaped());
      }
    } else {
      notes << tr("No prediction to compare with: the project's layout has no estimate.").toHtmlEscaped();
    }
  } else {
    notes << tr("No training log. File → Import training log… reads Megatron-LM, Megatron-DeepSpeed, DeepSpeed, "
                "torchtitan and NeMo logs.")
                 .toHtmlEscaped();
  }
  if (!run_)
    title_->setText(log_ ? tr("No trace · training log %1 (the Training log tab)").arg(file_name(log_->origin))
                         : tr("No trace. Drop PyTorch profiler traces (.json, .json.gz; one per rank) here."));
  log_compared_->setComparison(log_comparison_);
  log_table_->resizeColumnsToContents();
  log_notes_->setText(notes.join(QStringLiteral("<br>")));
}

void ProfileView::rebuildChart() {
  spec_ = run_ ? profile_chart_spec(*run_, comparison_ ? evaluation_->estimate.get() : nullptr) : ProfileChartSpec{};
  chart_->setSpec(spec_, run_ != nullptr);
}

std::vector<double> ProfileView::drawnValues(int set) const {
  return chart_->drawnValues(set);
}

QString ProfileView::messageText() const {
  return message_->isHidden() ? QString() : message_->text();
}

void ProfileView::showMessage(const QString& text, bool error) {
  message_is_error_ = error && !text.isEmpty();
  message_->setText(text);
  message_->setStyleSheet(error ? QStringLiteral("color: %1;").arg(profile_error_colour().name())
                                : QStringLiteral("color: palette(mid);"));
  message_->setVisible(!text.isEmpty());
}

// ---- Import -------------------------------------------------------------------------------------------------------

void ProfileView::startImport(const QStringList& paths) {
  if (paths.isEmpty()) return;
  cancelImport();
  const int job = ++job_id_;
  auto state = std::make_shared<ImportJob>();
  for (const QString& path : paths) state->bytes_total += QFileInfo(path).size();
  job_ = state;
  std::vector<std::string> files;
  for (const QString& path : paths) files.push_back(path.toStdString());

  auto* watcher = new QFutureWatcher<ImportOutcome>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcher<ImportOutcome>::finished, this, [this, watcher, job] {
    if (watcher_ == watcher) watcher_ = nullptr;
    watcher->deleteLater();
    if (job != job_id_) return;  // a later import replaced this one
    const ImportOutcome outcome = watcher->result();
    job_.reset();
    setImportingUi(false);
    if (outcome.cancelled) {
      showMessage(tr("Import cancelled; the trace shown is unchanged."), false);
    } else if (outcome.error) {
      showMessage(tr("Import failed: %1").arg(QString::fromStdString(outcome.error->to_string())), true);
    } else {
      showMessage({}, false);
      setTrace(outcome.run);
      emit imported();
    }
    emit importEnded();
  });
  watcher->setFuture(QtConcurrent::run([state, files = std::move(files)]() -> ImportOutcome {
    ImportOutcome outcome;
    // The session's load (core/session/measurements.hpp): every file, then the run analysed as one.
    auto run = load_trace_run(files, {}, [&state](int64_t bytes_read) {
      state->bytes_read.store(bytes_read, std::memory_order_relaxed);
      return !state->cancel.load(std::memory_order_relaxed);
    });
    if (!run) {
      outcome.cancelled = state->cancel.load();  // the load then fails with kKinetoCancelled
      if (!outcome.cancelled) outcome.error = run.error();
      return outcome;
    }
    outcome.run = std::make_shared<const KinetoRunAnalysis>(std::move(*run));
    return outcome;
  }));
  setImportingUi(true);
}

void ProfileView::cancelImport() {
  if (job_) job_->cancel.store(true);
}

bool ProfileView::isImporting() const {
  return job_ != nullptr;
}

void ProfileView::setImportingUi(bool importing) {
  progress_->setVisible(importing);
  cancel_->setVisible(importing);
  if (importing) {
    progress_->setValue(0);
    showMessage({}, false);
    progress_timer_->start();
  } else {
    progress_timer_->stop();
  }
}

void ProfileView::updateProgress() {
  if (!job_ || job_->bytes_total <= 0) return;
  const double fraction =
      static_cast<double>(job_->bytes_read.load(std::memory_order_relaxed)) / static_cast<double>(job_->bytes_total);
  progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressSteps));
}

QStringList ProfileView::traceFiles(const QMimeData* mime) {
  QStringList files;
  if (!mime || !mime->hasUrls()) return files;
  for (const QUrl& url : mime->urls()) {
    const QString path = url.toLocalFile();
    if (!path.isEmpty() && (path.endsWith(QStringLiteral(".json")) || path.endsWith(QStringLiteral(".json.gz"))))
      files << path;
  }
  return files;
}

void ProfileView::dragEnterEvent(QDragEnterEvent* event) {
  if (!traceFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void ProfileView::dropEvent(QDropEvent* event) {
  const QStringList files = traceFiles(event->mimeData());
  if (files.isEmpty()) return;
  event->acceptProposedAction();
  startImport(files);
}

}  // namespace meshscope::ui
