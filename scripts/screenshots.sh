#!/usr/bin/env bash
# Renders every view of the app to docs/screenshots/ at 1600×1000, offscreen: the default project
# (opened on its best-ranked layout), two pinned layouts compared, the example serving project and a
# real 8-rank profiler trace beside the prediction. Usage: scripts/screenshots.sh [path/to/meshscope]
set -euo pipefail
cd "$(dirname "$0")/.."
app=${1:-build/dev/app/meshscope}
out=docs/screenshots
export QT_QPA_PLATFORM=offscreen QT_FONT_DPI=96
for view in topology memory communication ranked explain; do
  "$app" --view "$view" --screenshot "$out/$view.png"
done
# The default project's best layout has no pipeline; the schedule is shown on an interleaved one.
"$app" examples/pipeline-llama3.1-70b-dgx-h100.json --view pipeline --screenshot "$out/pipeline.png"
"$app" examples/mesh-llama3.1-70b-mi300x.json --view topology --screenshot "$out/topology-mesh.png"
# A configuration in a known validation gap (AMD): the strip, Explain and the ranked list mark it.
"$app" examples/mesh-llama3.1-70b-mi300x.json --view explain --screenshot "$out/explain-known-gap.png"
"$app" --pin 1,3 --view compare --screenshot "$out/compare.png"
# The ranked list under a target framework: the SC21 GPT-3 175B script imported (framework megatron-lm).
"$app" examples/rank-gpt3-175b-dgx-a100-megatron.json --view ranked --screenshot "$out/ranked-framework.png"
"$app" examples/serving-llama3.1-70b-h200.json --view serving --screenshot "$out/serving.png"
"$app" examples/serving-deepseek-v3-h200.json --view serving --screenshot "$out/serving-moe.png"
"$app" examples/serving-deepseek-v3-h200.json --view topology --screenshot "$out/serving-topology.png"
"$app" examples/gpt2-dgx-a100-dp8.json --trace tests/data/shared/data/kineto_traces/param_dlrm_8rank \
  --view profile --screenshot "$out/profile.png"
"$app" examples/torchtitan-llama3-8b-h200.json \
  --log tests/data/shared/data/training_logs/torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log \
  --view profile --screenshot "$out/profile-log.png"
# Scaling (weak, the default project's model on its DGX H100 family, 8 to 1024 GPUs) and the pipeline
# animation's cursor in the warm-up with the in-flight activations beside it.
"$app" --view scaling --scaling weak:8:1024 --screenshot "$out/scaling.png"
"$app" examples/pipeline-llama3.1-70b-dgx-h100.json --view pipeline --pipeline-time 0.008 \
  --screenshot "$out/pipeline-animation.png"
# A guided lesson's step with the player, and presenter mode on another (docs/lessons.md).
"$app" --lesson 05-pipeline-parallelism --lesson-step 2 --screenshot "$out/lesson.png"
"$app" --lesson 09-serving-replicas-vs-sharding --lesson-step 3 --presenter --screenshot "$out/presenter.png"
# The trade-off explorer: TP along the default project, and TP × PP as a heat map.
"$app" --view tradeoff --tradeoff-axis tp --screenshot "$out/tradeoff.png"
"$app" --view tradeoff --tradeoff-axis tp,pp --screenshot "$out/tradeoff-heatmap.png"
# The sweep window (its own window, not the main one): test_ui renders it from a real sweep of
# tests/cli/sweep/tiny_spec.json.
MESHSCOPE_SCREENSHOT_DIR="$out" "$(dirname "$app")/../tests/ui/test_ui" "sweep view*" > /dev/null
echo "wrote $(ls "$out"/*.png | wc -l) screenshots to $out"
