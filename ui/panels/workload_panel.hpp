#pragma once
// The workload panel: the model (preset, Hugging Face config.json, or every field edited), the
// cluster generator, training or serving mode with all their keys, the layout (a spin box per
// degree) and the pipeline schedule, with the layout's validity explained live beneath and the
// conventions in use. Every field is the CLI's key (docs/cli.md) and is parsed by the same core
// functions, so a value the core refuses is shown inline with the core's message and the project
// is left as it was. Every accepted edit is a command on the project document (ui/document/).
#include <QWidget>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/keys/options.hpp"
#include "core/project/project.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QSpinBox;
class QUndoCommand;

namespace meshscope::ui {

class Evaluator;
class ProjectDocument;

// A form of key = value rows: integers as spin boxes, booleans as check boxes, enumerations as
// combo boxes, anything else as a line edit. Emits edited(key) after a user change.
class KeyForm final : public QWidget {
  Q_OBJECT

 public:
  explicit KeyForm(QWidget* parent = nullptr);
  // The rows, in order; rebuilt only when the set of keys changes, else the values are updated.
  void setKeys(const KeyValues& keys);
  [[nodiscard]] KeyValues keys() const;
  // Values offered for a key (combo box).
  void setChoices(const std::string& key, std::vector<std::string> choices);
  // A key edited as text even when its value looks like an integer (a number that may be fractional).
  void setFreeText(const std::string& key) { free_text_.push_back(key); }
  // Choices, free-text numbers and tooltips of every key in a key table (core/keys/options.hpp).
  void setTable(const std::vector<KeyInfo>& table);
  // Tooltips naming what a key means.
  void setHelp(const std::string& key, const QString& help);
  // Sets one value as if the user had typed it (tests); false when there is no such key.
  bool setValue(const std::string& key, const QString& value);
  [[nodiscard]] QWidget* editor(const std::string& key) const;

 signals:
  void edited(const QString& key);

 private:
  struct Row {
    std::string key;
    QWidget* editor = nullptr;
  };
  void rebuild(const KeyValues& keys);
  [[nodiscard]] static QString value_of(const QWidget* editor);
  static void set_value_of(QWidget* editor, const QString& value);

  QFormLayout* form_ = nullptr;
  std::vector<Row> rows_;
  std::map<std::string, std::vector<std::string>> choices_;
  std::map<std::string, QString> help_;
  std::vector<std::string> free_text_;
};

class WorkloadPanel final : public QWidget {
  Q_OBJECT

 public:
  // Shows the document's project and pushes every edit to it as a command.
  // Shows the validity of each of `evaluator`'s evaluations (setStatus).
  WorkloadPanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent = nullptr);

  [[nodiscard]] const Project& project() const;
  // The live explanation beneath the layout: the problems of the current layout (empty: valid),
  // the conventions in use and the cluster's error, if any.
  void setStatus(const std::vector<LayoutProblem>& problems, const QString& conventions, const QString& cluster_error);

  [[nodiscard]] KeyForm* layoutForm() const { return layout_form_; }
  [[nodiscard]] KeyForm* trainingForm() const { return training_form_; }
  [[nodiscard]] QComboBox* orderCombo() const { return order_combo_; }
  // The error shown for the last edit that the core refused (empty when none).
  [[nodiscard]] QString inputError() const;
  // Loads a Hugging Face config.json as the model (errors inline, model unchanged).
  bool importHfConfig(const QString& path);

 private:
  QGroupBox* make_model_box();
  QGroupBox* make_cluster_box();
  void make_workload_boxes();
  QGroupBox* make_layout_box();
  void refresh();
  // A value the core refused: shown inline, the project unchanged.
  void refuse(const QString& key, const QString& error);
  void push(QUndoCommand* command);
  void on_model_preset(int index);
  void on_model_field(const QString& key);
  void on_cluster();
  void on_mode(int index);
  void on_training(const QString& key);
  void on_serving(const QString& key);
  void on_layout(const QString& key);
  void on_schedule(int index);
  void on_order(int index);

  ProjectDocument* document_;
  QComboBox* model_combo_ = nullptr;
  QLabel* model_summary_ = nullptr;
  QGroupBox* model_fields_box_ = nullptr;
  KeyForm* model_form_ = nullptr;
  QComboBox* generator_combo_ = nullptr;
  QSpinBox* nodes_spin_ = nullptr;
  QLabel* cluster_note_ = nullptr;
  QComboBox* mode_combo_ = nullptr;
  QGroupBox* training_box_ = nullptr;
  KeyForm* training_form_ = nullptr;
  QGroupBox* serving_box_ = nullptr;
  KeyForm* serving_form_ = nullptr;
  KeyForm* layout_form_ = nullptr;
  QComboBox* schedule_combo_ = nullptr;
  QComboBox* order_combo_ = nullptr;
  QLabel* input_error_ = nullptr;
  QLabel* validity_ = nullptr;
  QLabel* conventions_ = nullptr;
};

}  // namespace meshscope::ui
