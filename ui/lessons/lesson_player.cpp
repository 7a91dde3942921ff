#include "ui/lessons/lesson_player.hpp"

#include <QApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QUndoCommand>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace meshscope::ui {

namespace {

// One step of a lesson applied to the project: everything but the app's view state (the dock
// arrangement is the user's), before and after, as one entry of the history.
class LessonStepCommand final : public QUndoCommand {
 public:
  LessonStepCommand(ProjectDocument* document, Project after, int step)
      : QUndoCommand(QObject::tr("Lesson: step %1").arg(step)),
        document_(document),
        before_(document->project()),
        after_(std::move(after)) {}
  void redo() override { apply(after_); }
  void undo() override { apply(before_); }

 private:
  void apply(const Project& target) {
    const Project& now = document_->project();
    const bool cluster_changes = now.cluster != target.cluster || now.cluster_inline != target.cluster_inline;
    document_->modify(cluster_changes ? ProjectDocument::Change::cluster : ProjectDocument::Change::project,
                      [&target](Project& project) {
                        nlohmann::json view = std::move(project.view);
                        project = target;
                        project.view = std::move(view);
                      });
  }
  ProjectDocument* document_;
  Project before_, after_;
};

}  // namespace

LessonPlayer::LessonPlayer(ProjectDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("lesson_player"));
  setFocusPolicy(Qt::StrongFocus);
  title_ = new QLabel(tr("No lesson open: File → Lessons"), this);
  title_->setObjectName(QStringLiteral("lesson_title"));
  title_->setWordWrap(true);
  QFont title_font = title_->font();
  title_font.setBold(true);
  title_font.setPointSizeF(title_font.pointSizeF() * 1.2);
  title_->setFont(title_font);
  heading_ = new QLabel(this);
  heading_->setObjectName(QStringLiteral("lesson_step"));
  text_ = new QTextBrowser(this);
  text_->setObjectName(QStringLiteral("lesson_text"));
  text_->setOpenExternalLinks(false);
  text_->setFocusPolicy(Qt::NoFocus);
  QFont text_font = text_->font();  // the text is what the room reads: a little larger than the forms
  text_font.setPointSizeF(text_font.pointSizeF() * 1.15);
  text_->setFont(text_font);
  back_ = new QPushButton(tr("◀ Back"), this);
  back_->setObjectName(QStringLiteral("lesson_back"));
  back_->setToolTip(tr("Previous step (Page Up, Alt+Left; Left in the player)"));
  next_ = new QPushButton(tr("Next ▶"), this);
  next_->setObjectName(QStringLiteral("lesson_next"));
  next_->setToolTip(tr("Next step (Page Down, Alt+Right; Right in the player)"));
  back_->setFocusPolicy(Qt::NoFocus);
  next_->setFocusPolicy(Qt::NoFocus);
  connect(back_, &QPushButton::clicked, this, [this] { back(); });
  connect(next_, &QPushButton::clicked, this, [this] { next(); });
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(back_);
  buttons->addStretch(1);
  buttons->addWidget(heading_);
  buttons->addStretch(1);
  buttons->addWidget(next_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  layout->addLayout(buttons);
  watcher_ = new QFutureWatcher<Rendered>(this);
  connect(watcher_, &QFutureWatcher<Rendered>::finished, this, [this] {
    const Rendered rendered = watcher_->result();
    if (rendered.generation == generation_) show_rendered(rendered.text);
  });
  // An edit after a step (or its undo) changes the figures the text quotes.
  connect(document_, &ProjectDocument::changed, this, [this] {
    if (lesson_) refresh();
  });
  update_buttons();
}

int LessonPlayer::stepCount() const {
  return lesson_ ? static_cast<int>(lesson_->steps.size()) : 0;
}

void LessonPlayer::setLesson(Lesson lesson, int step) {
  lesson_ = std::move(lesson);
  step_ = 0;
  title_->setText(QString::fromStdString(lesson_->title));
  title_->setToolTip(QString::fromStdString(lesson_->summary));
  goToStep(std::clamp(step, 1, stepCount()));
}

QString LessonPlayer::headingText() const {
  return lesson_ ? tr("Step %1 of %2").arg(step_).arg(stepCount()) : QString();
}

bool LessonPlayer::goToStep(int k, bool apply) {
  if (!lesson_ || k < 1 || k > stepCount()) return false;
  step_ = k;
  const LessonStep& step = lesson_->steps[static_cast<size_t>(k - 1)];
  heading_->setText(headingText());
  update_buttons();
  // The step's project through the document: one undoable entry (its refresh follows changed()).
  if (apply)
    document_->push(new LessonStepCommand(document_, step.project, k));
  else
    refresh();
  emit viewRequested(QString::fromStdString(step.view), QString::fromStdString(step.axis));
  emit stepShown(k);
  return true;
}

void LessonPlayer::refresh() {
  if (!lesson_ || step_ < 1) return;
  const uint64_t generation = ++generation_;
  text_->setPlainText(tr("computing the figures…"));
  rendered_text_.clear();
  watcher_->setFuture(QtConcurrent::run([lesson = *lesson_, step = step_, project = document_->project(), generation] {
    ClusterCache cache;
    auto rendered = render_lesson_step_for(lesson, step, project, cache);
    return Rendered{
        generation,
        rendered
            ? QString::fromStdString(rendered->text)
            : QObject::tr("A figure cannot be computed: %1").arg(QString::fromStdString(rendered.error().to_string()))};
  }));
}

void LessonPlayer::show_rendered(const QString& text) {
  rendered_text_ = text;
  text_->setPlainText(text);
}

void LessonPlayer::waitForFigures() {
  while (watcher_->isRunning() || rendered_text_.isEmpty()) {
    if (!lesson_) return;
    watcher_->waitForFinished();
    QApplication::processEvents();
  }
}

void LessonPlayer::update_buttons() {
  back_->setEnabled(lesson_ && step_ > 1);
  next_->setEnabled(lesson_ && step_ < stepCount());
  heading_->setVisible(lesson_.has_value());
}

void LessonPlayer::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Right && event->modifiers() == Qt::NoModifier) {
    next();
    return;
  }
  if (event->key() == Qt::Key_Left && event->modifiers() == Qt::NoModifier) {
    back();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace meshscope::ui
