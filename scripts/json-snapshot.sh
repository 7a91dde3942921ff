#!/usr/bin/env bash
# The CLI's JSON for the examples and the shared files, one file per command, so that a change meant
# to leave behaviour alone can be checked by `diff -r` of two snapshots:
#   ./scripts/json-snapshot.sh /tmp/before   (on the old tree)   ...   ./scripts/json-snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after
# MESHSCOPE_CLI names the binary (default build/dev/app/meshscope-cli).
set -uo pipefail
cd "$(dirname "$0")/.."
cli="${MESHSCOPE_CLI:-build/dev/app/meshscope-cli}"
out="${1:?usage: json-snapshot.sh OUTDIR}"
mkdir -p "$out"
data=tests/data/shared/data
run() {  # NAME ARGS...: stdout and the exit status
  local name="$1"; shift
  "$cli" "$@" 2> "$out/$name.err" | grep -v '"elapsed_s":' > "$out/$name.json"  # wall clock: differs every run
  echo "rc=${PIPESTATUS[0]}" >> "$out/$name.err"
}
for p in examples/*.json; do
  n=$(basename "$p" .json)
  run "export-$n" export --project "$p" --json
  run "export-megatron-$n" export --project "$p" --format megatron --json
  run "scaling-$n" scaling --project "$p" --gpus 8:64 --json
  run "tradeoff-$n" tradeoff --project "$p" --axis tp --json
  run "tradeoff-mbs-$n" tradeoff --project "$p" --axis mbs --json
done
run params params --model deepseek-v3 --json
run flops flops --model llama3-8b --seq 8192 --json
run memory-train memory --model llama3.1-70b --gpu h100-sxm --train seq=8192,global_batch=512,recompute=selective --layout tp=8,pp=4,vpp=5,dp=2,sp=true --world 64 --json
run memory-serve memory --model llama3-70b --gpu h200-sxm --serve weights=fp8,kv=fp8,prompt=2048,output=2048,concurrency=64 --layout tp=2 --json
run topo topo --cluster dgx-h100:nodes=4 --json
run route route --cluster sample_clusters/irregular-mixed.json --from 0 --to 3 --json
run collective collective --cluster dgx-a100 --op all-reduce --gpus 0-7 --sizes 1K:8G --json
run comm comm --model llama3.1-70b --cluster dgx-h100:nodes=8 --train seq=8192,global_batch=512 --layout tp=8,pp=4,vpp=5,dp=2,sp=true --json
run estimate estimate --model llama3.1-70b --cluster dgx-h100:nodes=8 --train seq=8192,global_batch=512,tp_comm_overlap=1,overlap_grad_reduce=1,overlap_param_gather=1 --layout tp=8,pp=4,vpp=5,dp=2,sp=true --json
run estimate-moe estimate --model deepseek-v3 --cluster dgx-b200:nodes=32 --train seq=4096,global_batch=1024 --layout tp=1,pp=8,ep=32,dp=32 --json
run estimate-zb estimate --model llama3.1-70b --cluster dgx-h100:nodes=8 --train seq=8192,global_batch=512 --layout tp=8,pp=4,dp=2 --schedule zb-h1 --json
run estimate-mixtral estimate --model mixtral-8x7b --cluster dgx-h100:nodes=2 --train seq=4096,global_batch=256 --layout tp=2,ep=8,dp=8 --json
run serve-tp8 serve --model llama3.1-70b --cluster hgx-h200 --serve prompt=2048,output=512 --layout tp=8 --json
run rank-405b rank --model llama3.1-405b --cluster dgx-h100:nodes=256 --train seq=8192,global_batch=2048 --top 10 --json
run rank-gpt3 rank --model gpt3-175b --cluster dgx-a100:nodes=128 --train seq=2048,global_batch=1536 --framework megatron-lm --top 10 --json
run rank-moe rank --model deepseek-v3 --cluster dgx-h100:nodes=32 --train seq=4096,global_batch=1024 --top 10 --json
run schedule schedule --stages 4 --microbatches 8 --schedule zb-h1 --json
run serve serve --model llama3.1-70b --cluster hgx-h200 --serve prompt=2048,output=512 --json
run serve-rank serve-rank --model llama3.1-70b --cluster hgx-h200 --serve prompt=2048,output=512 --json
run keys keys --json
run presets presets --json
run lessons lesson --json
for f in "$data"/nccl_tests/*.log; do run "import-nccl-$(basename "$f" .log)" import --nccl-tests "$f" --json; done
for f in "$data"/nvidia_smi_topo/* "$data"/hwloc_xml/* "$data"/nccl_topo_xml/*; do run "import-topo-$(basename "$f")" import --topo "$f" --json; done
for f in "$data"/training_logs/*; do run "import-log-$(basename "$f")" import --log "$f" --json; done
for f in "$data"/launcher_configs/*; do run "import-launcher-$(basename "$f")" import --launcher "$f" --gpus 1024 --json; done
for f in "$data"/kineto_traces/*.json.gz; do run "import-trace-$(basename "$f" .json.gz)" import --trace "$f" --json; done
run import-trace-dlrm import --trace "$data"/kineto_traces/param_dlrm_8rank --json
run compare-nccl compare --nccl-tests "$data"/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_allreduce.log --cluster dgx-a100 --json
run compare-trace compare --trace "$data"/kineto_traces/hta_rank0_ws16_A100-SXM4-80GB.json.gz --model llama3-8b --cluster dgx-a100:nodes=2 --train seq=2048,global_batch=64 --layout dp=16 --json
run compare-log compare --log "$data"/training_logs/megatron_v100_32gpu_tp4_pp8_bigscience.log --cluster dgx-a100:nodes=4 --json
run calibrate-nccl calibrate --nccl-tests "$data"/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_allgather.log,"$data"/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_reducescatter.log --cluster dgx-a100 --json
run calibrate-log calibrate --log "$data"/training_logs/megatron_v100_32gpu_tp4_pp8_bigscience.log --cluster dgx-a100:nodes=4 --json
echo "$(ls "$out"/*.json | wc -l) documents in $out"
