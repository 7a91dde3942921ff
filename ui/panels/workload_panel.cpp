#include "ui/panels/workload_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <QRegularExpression>
#include <algorithm>

#include <charconv>
#include <limits>
#include <utility>

#include "core/model/catalogue.hpp"
#include "core/model/model.hpp"
#include "core/model/model_io.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/generators.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

const QString kProblemColour = QStringLiteral("#c62828");
const QString kFitsColour = QStringLiteral("#2e7d32");

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// The value a form holds for `key` (as text, for the undo step's name).
QString value_of_key(const KeyValues& keys, const QString& key) {
  for (const auto& [name, value] : keys)
    if (name == key.toStdString()) return qs(value);
  return {};
}

bool is_integer(const std::string& text) {
  if (text.empty()) return false;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size();
}

// A key's meaning, default and source as a tooltip (rich text, so that it wraps): the table's
// Markdown with `code` as <code> and [links](to) as their text.
QString key_tooltip(const KeyInfo& info) {
  const auto html = [](std::string_view markdown) {
    QString text = QString::fromUtf8(markdown.data(), static_cast<qsizetype>(markdown.size())).toHtmlEscaped();
    text.replace(QRegularExpression(QStringLiteral("\\[([^\\]]*)\\]\\([^)]*\\)")), QStringLiteral("\\1"));
    text.replace(QRegularExpression(QStringLiteral("`([^`]*)`")), QStringLiteral("<code>\\1</code>"));
    return text;
  };
  QString tip = QStringLiteral("<p>%1</p><p><b>Default:</b> %2").arg(html(info.help), html(info.default_text));
  if (!info.source.empty()) tip += QStringLiteral("<br><b>Source:</b> %1").arg(html(info.source));
  return tip + QStringLiteral("</p>");
}

// The model's fields as dotted keys ("moe.top_k"), scalars only.
KeyValues flatten(const nlohmann::json& doc, const std::string& prefix = {}) {
  KeyValues keys;
  for (const auto& [key, value] : doc.items()) {
    if (prefix.empty() && (key == "format" || key == "version" || key == "source")) continue;
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      const KeyValues inner = flatten(value, name);
      keys.insert(keys.end(), inner.begin(), inner.end());
    } else if (value.is_boolean()) {
      keys.emplace_back(name, value.get<bool>() ? "true" : "false");
    } else if (value.is_string()) {
      keys.emplace_back(name, value.get<std::string>());
    } else if (!value.is_array() && !value.is_null()) {
      keys.emplace_back(name, value.dump());
    }
  }
  return keys;
}

// Writes `text` into the model document at a dotted key, typed like the value it replaces.
void set_dotted(nlohmann::json& doc, const std::string& key, const std::string& text) {
  nlohmann::json* node = &doc;
  size_t start = 0;
  for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', start)) {
    node = &(*node)[key.substr(start, dot - start)];
    start = dot + 1;
  }
  nlohmann::json& value = (*node)[key.substr(start)];
  if (value.is_boolean()) {
    value = text == "true";
  } else if (value.is_number_integer() && is_integer(text)) {
    value = std::stoll(text);
  } else if (value.is_number()) {
    try {
      value = std::stod(text);
    } catch (const std::exception&) {
      value = text;  // the core names the field and the wrong type
    }
  } else {
    value = text;
  }
}

}  // namespace

// ---- KeyForm -----------------------------------------------------------------------------------

KeyForm::KeyForm(QWidget* parent) : QWidget(parent) {
  form_ = new QFormLayout(this);
  form_->setContentsMargins(0, 0, 0, 0);
  form_->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
}

void KeyForm::setChoices(const std::string& key, std::vector<std::string> choices) {
  choices_[key] = std::move(choices);
}

void KeyForm::setTable(const std::vector<KeyInfo>& table) {
  for (const KeyInfo& info : table) {
    const std::string key(info.name);
    choices_.erase(key);
    if (!info.choices.empty()) choices_[key] = info.choices;
    if (info.type == KeyType::number && std::find(free_text_.begin(), free_text_.end(), key) == free_text_.end())
      free_text_.push_back(key);
    help_[key] = key_tooltip(info);
  }
}

void KeyForm::setHelp(const std::string& key, const QString& help) {
  help_[key] = help;
}

QWidget* KeyForm::editor(const std::string& key) const {
  for (const Row& row : rows_)
    if (row.key == key) return row.editor;
  return nullptr;
}

QString KeyForm::value_of(const QWidget* editor) {
  if (const auto* spin = qobject_cast<const QSpinBox*>(editor)) return QString::number(spin->value());
  if (const auto* check = qobject_cast<const QCheckBox*>(editor))
    return check->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
  if (const auto* combo = qobject_cast<const QComboBox*>(editor)) return combo->currentText();
  if (const auto* line = qobject_cast<const QLineEdit*>(editor)) return line->text().trimmed();
  return {};
}

void KeyForm::set_value_of(QWidget* editor, const QString& value) {
  if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
    spin->setValue(value.toInt());
  } else if (auto* check = qobject_cast<QCheckBox*>(editor)) {
    check->setChecked(value == QStringLiteral("true"));
  } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    if (combo->findText(value) < 0) combo->addItem(value);
    combo->setCurrentText(value);
  } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
    line->setText(value);
  }
}

void KeyForm::rebuild(const KeyValues& keys) {
  while (form_->rowCount() > 0) form_->removeRow(0);
  rows_.clear();
  for (const auto& [key, value] : keys) {
    const QString name = qs(key);
    QWidget* editor = nullptr;
    if (const auto choices = choices_.find(key); choices != choices_.end()) {
      auto* combo = new QComboBox(this);
      for (const std::string& choice : choices->second) combo->addItem(qs(choice));
      connect(combo, &QComboBox::activated, this, [this, name] { emit edited(name); });
      editor = combo;
    } else if (value == "true" || value == "false") {
      auto* check = new QCheckBox(this);
      connect(check, &QCheckBox::toggled, this, [this, name] { emit edited(name); });
      editor = check;
    } else if (is_integer(value) && std::find(free_text_.begin(), free_text_.end(), key) == free_text_.end()) {
      auto* spin = new QSpinBox(this);
      spin->setRange(0, std::numeric_limits<int>::max());
      spin->setKeyboardTracking(false);  // one evaluation per committed number, not per digit
      spin->setGroupSeparatorShown(true);
      connect(spin, &QSpinBox::valueChanged, this, [this, name] { emit edited(name); });
      editor = spin;
    } else {
      auto* line = new QLineEdit(this);
      connect(line, &QLineEdit::editingFinished, this, [this, name, line] {
        if (line->isModified()) {
          line->setModified(false);
          emit edited(name);
        }
      });
      editor = line;
    }
    editor->setObjectName(name);
    if (const auto help = help_.find(key); help != help_.end()) editor->setToolTip(help->second);
    {
      const QSignalBlocker block(editor);
      set_value_of(editor, qs(value));
    }
    form_->addRow(name, editor);
    rows_.push_back({key, editor});
  }
}

void KeyForm::setKeys(const KeyValues& keys) {
  bool same = keys.size() == rows_.size();
  for (size_t i = 0; same && i < keys.size(); ++i) same = keys[i].first == rows_[i].key;
  if (!same) {
    rebuild(keys);
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const QSignalBlocker block(rows_[i].editor);
    if (value_of(rows_[i].editor) != qs(keys[i].second)) set_value_of(rows_[i].editor, qs(keys[i].second));
  }
}

KeyValues KeyForm::keys() const {
  KeyValues out;
  for (const Row& row : rows_) out.emplace_back(row.key, value_of(row.editor).toStdString());
  return out;
}

bool KeyForm::setValue(const std::string& key, const QString& value) {
  QWidget* target = editor(key);
  if (target == nullptr) return false;
  {
    const QSignalBlocker block(target);
    set_value_of(target, value);
  }
  emit edited(qs(key));
  return true;
}

// ---- WorkloadPanel -----------------------------------------------------------------------------

WorkloadPanel::WorkloadPanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent)
    : QWidget(parent), document_(document) {
  connect(evaluator, &Evaluator::evaluated, this, [this](const std::shared_ptr<const Evaluation>& evaluation) {
    const Evaluation& e = *evaluation;
    setStatus(e.problems, e.budget ? QString::fromStdString(e.budget->convention) : QString(),
              QString::fromStdString(e.cluster_error));
  });
  auto* outer = new QVBoxLayout(this);

  outer->addWidget(make_model_box());
  outer->addWidget(make_cluster_box());
  make_workload_boxes();
  outer->addWidget(training_box_);
  outer->addWidget(serving_box_);
  outer->addWidget(make_layout_box());
  conventions_ = new QLabel(this);
  conventions_->setWordWrap(true);
  conventions_->setTextFormat(Qt::RichText);
  conventions_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outer->addWidget(conventions_);
  outer->addStretch(1);

  connect(document_, &ProjectDocument::changed, this, &WorkloadPanel::refresh);
  refresh();
}

// The model: a preset, a Hugging Face config.json, or every field (a key form, folded).
QGroupBox* WorkloadPanel::make_model_box() {
  auto* model_box = new QGroupBox(tr("Model"), this);
  auto* model_layout = new QVBoxLayout(model_box);
  auto* model_row = new QHBoxLayout;
  model_combo_ = new QComboBox(model_box);
  model_combo_->setObjectName(QStringLiteral("model_preset"));
  for (const std::string& name : model_preset_names()) model_combo_->addItem(qs(name), qs(name));
  model_combo_->addItem(tr("(custom)"), QString());
  connect(model_combo_, &QComboBox::activated, this, &WorkloadPanel::on_model_preset);
  model_row->addWidget(model_combo_, 1);
  auto* hf_button = new QPushButton(tr("config.json…"), model_box);
  hf_button->setToolTip(
      tr("Load a Hugging Face config.json (llama, mistral, mixtral, qwen2/3, qwen3_moe, deepseek_v3, gpt_oss, gpt2)"));
  connect(hf_button, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Hugging Face config.json"), QString(),
                                                      tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) importHfConfig(path);
  });
  model_row->addWidget(hf_button);
  model_layout->addLayout(model_row);
  model_summary_ = new QLabel(model_box);
  model_summary_->setWordWrap(true);
  model_layout->addWidget(model_summary_);
  model_fields_box_ = new QGroupBox(tr("Every field"), model_box);
  model_fields_box_->setCheckable(true);
  model_fields_box_->setChecked(false);
  model_form_ = new KeyForm(model_fields_box_);
  model_form_->setChoices("mlp", {"gated", "plain"});
  model_form_->setChoices("norm", {"rmsnorm", "layernorm"});
  model_form_->setChoices("position_embedding", {"rotary", "learned"});
  auto* fields_layout = new QVBoxLayout(model_fields_box_);
  fields_layout->addWidget(model_form_);
  model_form_->setVisible(false);
  connect(model_fields_box_, &QGroupBox::toggled, model_form_, &QWidget::setVisible);
  connect(model_form_, &KeyForm::edited, this, &WorkloadPanel::on_model_field);
  model_layout->addWidget(model_fields_box_);
  return model_box;
}

// The cluster generator with its node count, and training or serving.
QGroupBox* WorkloadPanel::make_cluster_box() {
  auto* cluster_box = new QGroupBox(tr("Cluster and mode"), this);
  auto* cluster_form = new QFormLayout(cluster_box);
  auto* cluster_row = new QHBoxLayout;
  generator_combo_ = new QComboBox(cluster_box);
  generator_combo_->setObjectName(QStringLiteral("generator"));
  for (const GeneratorInfo& info : cluster_generators()) {
    generator_combo_->addItem(qs(info.name), qs(info.name));
    generator_combo_->setItemData(generator_combo_->count() - 1, qs(info.summary), Qt::ToolTipRole);
  }
  connect(generator_combo_, &QComboBox::activated, this, &WorkloadPanel::on_cluster);
  cluster_row->addWidget(generator_combo_, 1);
  nodes_spin_ = new QSpinBox(cluster_box);
  nodes_spin_->setObjectName(QStringLiteral("nodes"));
  nodes_spin_->setRange(1, 4096);
  nodes_spin_->setPrefix(tr("nodes "));
  nodes_spin_->setKeyboardTracking(false);
  connect(nodes_spin_, &QSpinBox::valueChanged, this, &WorkloadPanel::on_cluster);
  cluster_row->addWidget(nodes_spin_);
  cluster_form->addRow(tr("generator"), cluster_row);
  cluster_note_ = new QLabel(cluster_box);
  cluster_note_->setWordWrap(true);
  cluster_form->addRow(cluster_note_);
  mode_combo_ = new QComboBox(cluster_box);
  mode_combo_->setObjectName(QStringLiteral("mode"));
  mode_combo_->addItem(tr("training"));
  mode_combo_->addItem(tr("serving"));
  connect(mode_combo_, &QComboBox::activated, this, &WorkloadPanel::on_mode);
  cluster_form->addRow(tr("mode"), mode_combo_);
  return cluster_box;
}

// The training and the serving keys (one is shown, by mode), from the key table.
void WorkloadPanel::make_workload_boxes() {
  training_box_ = new QGroupBox(tr("Training"), this);
  training_form_ = new KeyForm(training_box_);
  // Choices, free-text numbers and tooltips from the key table (core/keys/options.hpp), as the CLI and docs/cli.md.
  training_form_->setTable(key_table(KeyScope::train));
  (new QVBoxLayout(training_box_))->addWidget(training_form_);
  connect(training_form_, &KeyForm::edited, this, &WorkloadPanel::on_training);

  serving_box_ = new QGroupBox(tr("Serving"), this);
  serving_form_ = new KeyForm(serving_box_);
  serving_form_->setTable(key_table(KeyScope::serve));
  (new QVBoxLayout(serving_box_))->addWidget(serving_form_);
  connect(serving_form_, &KeyForm::edited, this, &WorkloadPanel::on_serving);
}

// The layout's degrees, the pipeline schedule and rank order, and the layout's validity beneath.
QGroupBox* WorkloadPanel::make_layout_box() {
  auto* layout_box = new QGroupBox(tr("Layout"), this);
  auto* layout_layout = new QVBoxLayout(layout_box);
  layout_form_ = new KeyForm(layout_box);
  layout_form_->setTable(key_table(KeyScope::layout));  // serving: sync() switches to the serving layout keys
  connect(layout_form_, &KeyForm::edited, this, &WorkloadPanel::on_layout);
  layout_layout->addWidget(layout_form_);
  auto* schedule_row = new QFormLayout;
  schedule_combo_ = new QComboBox(layout_box);
  schedule_combo_->setObjectName(QStringLiteral("pipeline_schedule"));
  for (const auto& [schedule, name] : EnumNames<PipelineSchedule>::table)
    schedule_combo_->addItem(qs(std::string(name)), qs(std::string(name)));
  connect(schedule_combo_, &QComboBox::activated, this, &WorkloadPanel::on_schedule);
  schedule_row->addRow(tr("pipeline schedule"), schedule_combo_);
  order_combo_ = new QComboBox(layout_box);
  order_combo_->setObjectName(QStringLiteral("axis_order"));
  order_combo_->addItem(tr("Megatron: TP, CP, DP, PP"), QStringLiteral("megatron"));
  order_combo_->addItem(tr("Megatron tp-pp-dp: TP, CP, PP, DP"), QStringLiteral("tp-pp-dp"));
  order_combo_->addItem(tr("torchtitan: TP, CP, DP-shard, DP-replicate, PP"), QStringLiteral("torchtitan"));
  order_combo_->setToolTip(tr("How ranks are numbered, innermost axis first: which GPUs each group spans"));
  connect(order_combo_, &QComboBox::activated, this, &WorkloadPanel::on_order);
  schedule_row->addRow(tr("rank order"), order_combo_);
  layout_layout->addLayout(schedule_row);
  input_error_ = new QLabel(layout_box);
  input_error_->setObjectName(QStringLiteral("input_error"));
  input_error_->setWordWrap(true);
  input_error_->setTextFormat(Qt::RichText);
  input_error_->hide();
  layout_layout->addWidget(input_error_);
  validity_ = new QLabel(layout_box);
  validity_->setObjectName(QStringLiteral("validity"));
  validity_->setWordWrap(true);
  validity_->setTextFormat(Qt::RichText);
  layout_layout->addWidget(validity_);
  return layout_box;
}

const Project& WorkloadPanel::project() const {
  return document_->project();
}

void WorkloadPanel::refresh() {
  const Project& project = document_->project();
  const QSignalBlocker b1(model_combo_), b2(generator_combo_), b3(nodes_spin_), b4(mode_combo_), b5(schedule_combo_),
      b6(order_combo_);
  const int preset = model_combo_->findData(qs(project.model_ref));
  model_combo_->setCurrentIndex(preset >= 0 ? preset : model_combo_->count() - 1);
  const ParamCounts params = count_params(project.model);
  QString summary = tr("%1: %2 B parameters").arg(qs(project.model.name)).arg(params.total_params() / 1e9, 0, 'f', 2);
  if (project.model.is_moe()) summary += tr(", %1 B active per token").arg(params.active_params() / 1e9, 0, 'f', 2);
  if (project.model.sliding_window > 0)
    summary += tr("; a %1-token attention window on %2 of %3 layers")
                   .arg(project.model.sliding_window)
                   .arg(project.model.num_sliding_layers())
                   .arg(project.model.num_layers);
  model_summary_->setText(summary);
  model_form_->setKeys(flatten(model_to_json(project.model)));

  // "dgx-h100:nodes=8" → generator and nodes; an inline (edited) cluster is said so.
  const std::string& spec = project.cluster;
  const auto colon = spec.find(':');
  const QString generator = qs(spec.substr(0, colon));
  const int generator_index = generator_combo_->findData(generator);
  if (generator_index >= 0) generator_combo_->setCurrentIndex(generator_index);
  if (const auto nodes = spec.find("nodes="); nodes != std::string::npos)
    nodes_spin_->setValue(std::atoi(spec.c_str() + nodes + 6));
  if (project.cluster_inline) {
    cluster_note_->setText(tr("Using the cluster drawn in the topology editor (%1). Choosing a generator replaces it.")
                               .arg(qs(project.cluster_inline->name)));
  } else if (generator_index < 0 && !spec.empty()) {
    cluster_note_->setText(tr("Cluster file: %1").arg(qs(spec)));
  } else {
    cluster_note_->clear();
  }
  cluster_note_->setVisible(!cluster_note_->text().isEmpty());

  mode_combo_->setCurrentIndex(project.mode == Mode::training ? 0 : 1);
  training_box_->setVisible(project.mode == Mode::training);
  serving_box_->setVisible(project.mode == Mode::serving);
  training_form_->setKeys(training_to_keys(project.training));
  serving_form_->setKeys(serving_to_keys(project.serving));
  // Training: the mesh's degrees; serving: the deployment (tp × pp × attention-dp instances, EP, replicas).
  layout_form_->setTable(key_table(project.mode == Mode::training ? KeyScope::layout : KeyScope::serving_layout));
  layout_form_->setKeys(project.mode == Mode::training ? layout_to_keys(project.layout)
                                                       : serving_layout_to_keys(project.serving_layout));
  const QString schedule = qs(std::string(enum_name(project.training.schedule)));
  schedule_combo_->setCurrentIndex(std::max(0, schedule_combo_->findData(schedule)));
  schedule_combo_->setEnabled(project.mode == Mode::training);
  order_combo_->setCurrentIndex(std::max(0, order_combo_->findData(qstring(axis_order_name(project.order)))));
  order_combo_->setEnabled(project.mode == Mode::training);
}

void WorkloadPanel::setStatus(const std::vector<LayoutProblem>& problems, const QString& conventions,
                              const QString& cluster_error) {
  QString text;
  if (!cluster_error.isEmpty())
    text += QStringLiteral("<p style=\"color:%1\"><b>%2</b> %3</p>")
                .arg(kProblemColour, tr("Cluster:"), cluster_error.toHtmlEscaped());
  if (problems.empty()) {
    text += QStringLiteral("<span style=\"color:%1\">%2</span>").arg(kFitsColour, tr("✓ valid layout"));
  } else {
    text += QStringLiteral("<span style=\"color:%1\"><b>%2</b></span><ul style=\"color:%1; margin-left:-24px\">")
                .arg(kProblemColour, tr("Not a valid layout:"));
    for (const LayoutProblem& problem : problems)
      text += QStringLiteral("<li><b>%1</b>: %2</li>")
                  .arg(qs(problem.field).toHtmlEscaped(), qs(problem.message).toHtmlEscaped());
    text += QStringLiteral("</ul>");
  }
  validity_->setText(text);
  conventions_->setText(conventions.isEmpty() ? QString()
                                              : tr("<b>Conventions</b>: %1").arg(conventions.toHtmlEscaped()));
}

QString WorkloadPanel::inputError() const {
  return input_error_->isHidden() ? QString() : input_error_->text();
}

void WorkloadPanel::refuse(const QString& key, const QString& error) {
  // The project stays as it was; the field shows what the core said.
  input_error_->setText(QStringLiteral("<span style=\"color:%1\"><b>%2</b>: %3</span>")
                            .arg(kProblemColour, key.toHtmlEscaped(), error.toHtmlEscaped()));
  input_error_->show();
}

void WorkloadPanel::push(QUndoCommand* command) {
  input_error_->hide();
  input_error_->clear();
  document_->push(command);  // the document's changed() refreshes the fields
}

void WorkloadPanel::on_model_preset(int index) {
  const QString name = model_combo_->itemData(index).toString();
  if (name.isEmpty()) return;  // "(custom)": nothing to load
  auto model = model_preset(name.toStdString());
  if (!model) return refuse(tr("model"), qs(model.error().to_string()));
  push(new SetModel(document_, *model, name.toStdString()));
}

void WorkloadPanel::on_model_field(const QString& key) {
  nlohmann::json doc = model_to_json(document_->project().model);
  for (const auto& [name, value] : model_form_->keys())
    if (name == key.toStdString()) set_dotted(doc, name, value);
  auto model = model_from_json(doc, "model");
  if (!model) return refuse(key, qs(model.error().to_string()));
  push(new SetModel(document_, *model, {}, key));
}

bool WorkloadPanel::importHfConfig(const QString& path) {
  const std::string file = QFile::encodeName(path).toStdString();
  Result<ModelSpec> model = [&]() -> Result<ModelSpec> {
    MS_TRY(text, read_text_file(file));
    MS_TRY(doc, parse_json_text(text, file));
    return model_from_hf_config(doc, file);
  }();
  if (!model) {
    refuse(tr("config.json"), qs(model.error().to_string()));
    return false;
  }
  push(new SetModel(document_, *model, {}));
  return true;
}

void WorkloadPanel::on_cluster() {
  ClusterPart::Value cluster = ClusterPart::get(document_->project());
  const QString generator = generator_combo_->currentData().toString();
  cluster.cluster = QStringLiteral("%1:nodes=%2").arg(generator).arg(nodes_spin_->value()).toStdString();
  cluster.cluster_inline.reset();
  auto resolved = resolve_cluster(cluster.cluster);
  if (!resolved) return refuse(tr("cluster"), qs(resolved.error().to_string()));
  cluster.gpu_count = resolved->num_gpus();
  const QString text = tr("Use the cluster %1").arg(qs(cluster.cluster));
  push(new ReplaceCluster(document_, std::move(cluster), text, QStringLiteral("generator")));
}

void WorkloadPanel::on_mode(int index) {
  push(new SetMode(document_, index == 0 ? Mode::training : Mode::serving));
}

void WorkloadPanel::on_training(const QString& key) {
  KeyValues keys = training_form_->keys();
  const QString value = value_of_key(keys, key);
  if (key == QStringLiteral("convention")) {
    // A new convention sets the dtypes, optimizer and ZeRO stage: drop the values it decides.
    std::erase_if(keys, [](const auto& entry) {
      return entry.first == "param_dtype" || entry.first == "grad_dtype" || entry.first == "master" ||
             entry.first == "optimizer" || entry.first == "zero";
    });
  }
  auto training = training_from_keys(keys);
  if (!training) return refuse(key, qs(training.error().to_string()));
  push(new SetTrainingKey(document_, *training, key, value));
}

void WorkloadPanel::on_serving(const QString& key) {
  const KeyValues keys = serving_form_->keys();
  auto serving = serving_from_keys(keys);
  if (!serving) return refuse(key, qs(serving.error().to_string()));
  push(new SetServingKey(document_, *serving, key, value_of_key(keys, key)));
}

void WorkloadPanel::on_layout(const QString& key) {
  const KeyValues keys = layout_form_->keys();
  if (document_->project().mode == Mode::serving) {
    auto serving = serving_layout_from_keys(keys);
    if (!serving) return refuse(key, qs(serving.error().to_string()));
    return push(new SetServingLayout(document_, *serving, key, value_of_key(keys, key)));
  }
  auto layout = layout_from_keys(keys);
  if (!layout) return refuse(key, qs(layout.error().to_string()));
  push(new SetLayout(document_, *layout, key, value_of_key(keys, key)));
}

void WorkloadPanel::on_order(int index) {
  AxisOrder order = document_->project().order;
  if (!parse_axis_order(order_combo_->itemData(index).toString().toStdString(), order)) return;
  push(new SetAxisOrder(document_, order));
}

void WorkloadPanel::on_schedule(int index) {
  if (const auto schedule = parse_enum<PipelineSchedule>(schedule_combo_->itemData(index).toString().toStdString()))
    push(new SetSchedule(document_, *schedule));
}

}  // namespace meshscope::ui
