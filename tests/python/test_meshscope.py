"""The Python module against meshscope-cli: the same document for the same inputs, the core's errors as
meshscope.Error, the importers on the real files of tests/data/shared, and to_pandas.

Run by CTest (python/CMakeLists.txt), which sets PYTHONPATH to the built package, MESHSCOPE_CLI to the CLI binary
and MESHSCOPE_SHARED_DIR to the shared data folder.
"""

import json
import os
import subprocess

import pytest

import meshscope

CLI = os.environ["MESHSCOPE_CLI"]
SHARED = os.environ["MESHSCOPE_SHARED_DIR"]
SOURCE = os.environ["MESHSCOPE_SOURCE_DIR"]
DATA = os.path.join(SHARED, "data")
ALLREDUCE_LOG = os.path.join(DATA, "nccl_tests", "superbench_8xA100-SXM4-40GB_nccl_allreduce.log")
ALLGATHER_LOG = os.path.join(DATA, "nccl_tests", "superbench_8xA100-SXM4-40GB_nccl_allgather.log")
NCCL_TRACE = os.path.join(DATA, "kineto_traces", "hta_nccl_data_rank0_ws2_A100.json.gz")
MEGATRON_LOG = os.path.join(DATA, "training_logs", "megatron_mi300x_8gpu_tp4_pp2_thera.log")

# Wall-clock fields: how long the search took, different on every run.
WALL_CLOCK = {"elapsed_s"}


def without_wall_clock(doc):
    if isinstance(doc, dict):
        return {k: without_wall_clock(v) for k, v in doc.items() if k not in WALL_CLOCK}
    if isinstance(doc, list):
        return [without_wall_clock(v) for v in doc]
    return doc


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True).stdout
    # The CLI writes non-finite numbers as null; the module gives None for them too.
    return json.loads(out)


# (python call, the same command's CLI arguments)
SAME_AS_CLI = [
    ("presets", lambda: meshscope.presets(), ["presets"]),
    ("params", lambda: meshscope.params("gpt2"), ["params", "--model", "gpt2"]),
    (
        "params_hf_config",
        lambda: meshscope.params(os.path.join(DATA, "hf_configs", "mixtral-8x7b-v0.1_config.json")),
        ["params", "--model", os.path.join(DATA, "hf_configs", "mixtral-8x7b-v0.1_config.json")],
    ),
    ("flops", lambda: meshscope.flops("llama3-8b", seq=8192), ["flops", "--model", "llama3-8b", "--seq", "8192"]),
    (
        "estimate",
        lambda: meshscope.estimate(
            "llama3.1-70b",
            "dgx-h100:nodes=8",
            train={"seq": 8192, "global_batch": 512},
            layout={"tp": 8, "pp": 4, "vpp": 5, "dp": 2, "sp": True},
        ),
        ["estimate", "--model", "llama3.1-70b", "--cluster", "dgx-h100:nodes=8", "--train", "seq=8192,global_batch=512",
         "--layout", "tp=8,pp=4,vpp=5,dp=2,sp=true"],
    ),
    (
        "estimate_efficiency_comm_order",
        lambda: meshscope.estimate(
            "llama3-8b",
            "dgx-h100:nodes=2",
            train="seq=4096,global_batch=64,zero=1",
            layout={"tp": 2, "dp": 8},
            efficiency={"gemm": 0.65},
            comm={"nvlink_efficiency": 0.7},
            order="tp-pp-dp",
        ),
        ["estimate", "--model", "llama3-8b", "--cluster", "dgx-h100:nodes=2", "--train", "seq=4096,global_batch=64,zero=1",
         "--layout", "tp=2,dp=8", "--efficiency", "gemm=0.65", "--comm", "nvlink_efficiency=0.7", "--order", "tp-pp-dp"],
    ),
    (
        "memory_training",
        lambda: meshscope.memory(
            "llama3.1-70b",
            gpu="h100-sxm",
            train={"seq": 8192, "global_batch": 512},
            layout={"tp": 8, "pp": 4, "dp": 2, "sp": True},
            world=64,
        ),
        ["memory", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--train", "seq=8192,global_batch=512",
         "--layout", "tp=8,pp=4,dp=2,sp=true", "--world", "64"],
    ),
    (
        "memory_serving",
        lambda: meshscope.memory(
            "llama3-70b",
            gpu="h200-sxm",
            serve={"weights": "fp8", "kv": "fp8", "prompt": 2048, "output": 2048, "concurrency": 16},
            layout={"tp": 2},
        ),
        ["memory", "--model", "llama3-70b", "--gpu", "h200-sxm", "--serve",
         "weights=fp8,kv=fp8,prompt=2048,output=2048,concurrency=16", "--layout", "tp=2"],
    ),
    (
        "rank",
        lambda: meshscope.rank("llama3-8b", "dgx-h100:nodes=2", train={"seq": 4096, "global_batch": 64}, top=3),
        ["rank", "--model", "llama3-8b", "--cluster", "dgx-h100:nodes=2", "--train", "seq=4096,global_batch=64",
         "--top", "3"],
    ),
    (
        "scaling",
        lambda: meshscope.scaling("gpt2", "dgx-h100", train={"seq": 1024, "global_batch": 16}, gpus="8:32", mode="strong"),
        ["scaling", "--model", "gpt2", "--cluster", "dgx-h100", "--train", "seq=1024,global_batch=16", "--gpus", "8:32",
         "--mode", "strong"],
    ),
    (
        "serve",
        lambda: meshscope.serve(
            "llama3.1-8b",
            "hgx-h200",
            serve={"weights": "fp8", "kv": "fp8", "prompt": 1024, "output": 256, "concurrency": 32},
            layout={"tp": 1},
        ),
        ["serve", "--model", "llama3.1-8b", "--cluster", "hgx-h200", "--serve",
         "weights=fp8,kv=fp8,prompt=1024,output=256,concurrency=32", "--layout", "tp=1"],
    ),
    (
        "serve_rank",
        lambda: meshscope.serve_rank(
            "llama3.1-8b",
            "hgx-h200",
            serve={"weights": "fp8", "kv": "fp8", "prompt": 1024, "output": 256},
            target_itl=0.05,
        ),
        ["serve-rank", "--model", "llama3.1-8b", "--cluster", "hgx-h200", "--serve",
         "weights=fp8,kv=fp8,prompt=1024,output=256", "--target-itl", "0.05"],
    ),
    (
        "collective",
        lambda: meshscope.collective("dgx-a100", "all-reduce", "0-7", [1024 * 2**k for k in range(24)]),
        ["collective", "--cluster", "dgx-a100", "--op", "all-reduce", "--gpus", "0-7", "--sizes", "1K:8G"],
    ),
    ("import_trace", lambda: meshscope.import_trace(NCCL_TRACE), ["import", "--trace", NCCL_TRACE]),
    (
        "import_trace_folder",
        lambda: meshscope.import_trace(os.path.join(DATA, "kineto_traces", "param_dlrm_8rank")),
        ["import", "--trace", os.path.join(DATA, "kineto_traces", "param_dlrm_8rank")],
    ),
    ("import_nccl_tests", lambda: meshscope.import_nccl_tests(ALLREDUCE_LOG), ["import", "--nccl-tests", ALLREDUCE_LOG]),
    ("import_log", lambda: meshscope.import_log(MEGATRON_LOG), ["import", "--log", MEGATRON_LOG]),
    (
        "compare_nccl_tests",
        lambda: meshscope.compare_nccl_tests(ALLREDUCE_LOG, cluster="dgx-a100:gpu=a100-40gb-sxm"),
        ["compare", "--nccl-tests", ALLREDUCE_LOG, "--cluster", "dgx-a100:gpu=a100-40gb-sxm"],
    ),
    (
        "calibrate_nccl_tests",
        lambda: meshscope.calibrate_nccl_tests([ALLGATHER_LOG], cluster="dgx-a100:gpu=a100-40gb-sxm"),
        ["calibrate", "--nccl-tests", ALLGATHER_LOG, "--cluster", "dgx-a100:gpu=a100-40gb-sxm"],
    ),
    (
        "compare_trace",
        lambda: meshscope.compare_trace(
            NCCL_TRACE,
            model="gpt2",
            cluster="dgx-a100:gpu=a100-40gb-sxm",
            train={"seq": 1024, "global_batch": 16},
            layout={"dp": 2},
        ),
        ["compare", "--trace", NCCL_TRACE, "--model", "gpt2", "--cluster", "dgx-a100:gpu=a100-40gb-sxm", "--train",
         "seq=1024,global_batch=16", "--layout", "dp=2"],
    ),
]


@pytest.mark.parametrize("call,args", [(c, a) for _, c, a in SAME_AS_CLI], ids=[n for n, _, _ in SAME_AS_CLI])
def test_result_is_the_cli_json_document(call, args):
    result = call()
    assert isinstance(result, dict)
    assert without_wall_clock(result) == without_wall_clock(cli_json(*args))


def test_rank_has_the_wall_clock_field_the_comparison_leaves_out():
    result = meshscope.rank("llama3-8b", "dgx-h100", train={"seq": 4096, "global_batch": 64}, top=2)
    assert result["elapsed_s"] >= 0
    assert len(result["layouts"]) == 2


def test_rank_under_a_target_framework_proposes_only_what_it_runs():
    # Megatron-Core runs 1F1B and interleaved 1F1B, not zero bubble or DualPipe (core/framework/).
    result = meshscope.rank("llama3.1-70b", "dgx-h100:nodes=8",
                            train={"seq": 8192, "global_batch": 512, "framework": "megatron-lm"}, top=5)
    assert result["framework"] == "megatron-lm"
    for ranked in result["layouts"]:
        assert ranked["frameworks"] == ["megatron-lm"]
        assert ranked["layout"]["schedule"] in ("1f1b", "interleaved")
        assert ranked["tie_group"] >= 1 and ranked["uncertainty"] > 0
    anything = meshscope.rank("llama3.1-70b", "dgx-h100:nodes=8", train={"seq": 8192, "global_batch": 512}, top=5)
    assert anything["framework"] == "any"


# ---- One session, three front ends (core/session/training.hpp) ----

PIPELINE_EXAMPLE = os.path.join(SOURCE, "examples", "pipeline-llama3.1-70b-dgx-h100.json")


def project_arguments(path):
    """The model, cluster, --train and --layout keys a project file holds, as the module takes them."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return doc["model"], doc["cluster"], dict(doc["training"]), dict(doc["layout"])


def test_estimate_of_a_project_file_is_the_cli_estimate_of_it_and_of_its_flags():
    by_file = meshscope.estimate(project=PIPELINE_EXAMPLE)
    assert by_file == cli_json("estimate", "--project", PIPELINE_EXAMPLE)
    model, cluster, train, layout = project_arguments(PIPELINE_EXAMPLE)
    assert meshscope.estimate(model, cluster, train=train, layout=layout) == by_file


def test_rank_of_a_project_file_is_the_cli_rank_of_it_and_of_its_flags():
    by_file = without_wall_clock(meshscope.rank(project=PIPELINE_EXAMPLE, top=5))
    assert by_file == without_wall_clock(cli_json("rank", "--project", PIPELINE_EXAMPLE, "--top", "5"))
    model, cluster, train, _ = project_arguments(PIPELINE_EXAMPLE)
    assert without_wall_clock(meshscope.rank(model, cluster, train=train, top=5)) == by_file


def test_tradeoff_of_a_project_file_is_the_cli_tradeoff_of_it():
    assert meshscope.tradeoff(project=PIPELINE_EXAMPLE, axis="tp") == cli_json(
        "tradeoff", "--project", PIPELINE_EXAMPLE, "--axis", "tp")


def test_a_project_file_excludes_the_flags_it_would_replace():
    with pytest.raises(meshscope.Error, match="model and project exclude each other"):
        meshscope.estimate("llama3-8b", project=PIPELINE_EXAMPLE)
    with pytest.raises(meshscope.Error, match="give model and cluster, or project"):
        meshscope.estimate("llama3-8b")


# ---- Published anchors (the CLI tests check the same numbers) ----


def test_gpt2_has_the_parameter_count_of_the_hf_hub():
    # openai-community/gpt2 on the Hugging Face hub: 124,439,808 parameters.
    assert meshscope.params("gpt2")["total"] == 124439808


def test_a_model_given_as_a_dict_is_read_as_its_file_is():
    path = os.path.join(DATA, "hf_configs", "mixtral-8x7b-v0.1_config.json")
    with open(path) as f:
        config = json.load(f)
    assert meshscope.params(config)["total"] == meshscope.params(path)["total"]
    assert 46.70e9 < meshscope.params(config)["total"] < 46.71e9  # Mixtral 8x7B: 46.7 B


def test_import_trace_reads_hta_figures():
    # HTA's get_comm_comp_overlap and temporal breakdown on this trace (tests/cli: import_trace_json).
    rank = meshscope.import_trace([NCCL_TRACE])["ranks"][0]
    assert rank["comm_comp_overlap_pct"] == pytest.approx(14.305, abs=1e-3)
    assert rank["hta_temporal_breakdown"]["compute_us"] == 75169.0
    assert {c["op"] for c in rank["collectives"]} >= {"all-reduce"}


def test_import_nccl_tests_reads_the_logged_bus_bandwidth():
    log = meshscope.import_nccl_tests(ALLREDUCE_LOG)
    assert log["collective"] == "all-reduce"
    assert any(p["in_place"] for p in log["points"])
    # The log's out-of-place bus bandwidth at its largest sizes (tests/cli: import_nccl_tests_json).
    assert 235.26 in [p["busbw_GBps"] for p in log["points"]]


def test_import_log_reads_megatron_iterations():
    # 17 iterations; the median of iterations 2..17 is (419234.8 + 419295.2) / 2 ms (tests/cli: import_log_json).
    run = meshscope.import_log(MEGATRON_LOG)
    assert run["framework"] == "megatron"
    assert run["iterations"] == 17
    assert run["step_time_s"] == pytest.approx(419.265)
    assert run["layout"]["layout_keys"] == "tp=4,pp=2,dp=1,sp=true,micro_batch=1"


def test_import_launcher_is_import_launcher_json():
    # torchtitan's Llama 3.1 405B preset: TP 8 with async TP, float8, local batch 2, seq 8192, full AC
    # (launcher_configs/torchtitan_llama3_405b.toml; tests/cli: import_launcher_torchtitan_gpus).
    path = os.path.join(DATA, "launcher_configs", "torchtitan_llama3_405b.toml")
    imported = meshscope.import_launcher(path, gpus=256)
    assert imported == cli_json("import", "--launcher", path, "--gpus", "256", "--json")
    with pytest.raises(meshscope.Error, match="gpus"):
        meshscope.import_launcher(path, gpus=0)
    with pytest.raises(meshscope.Error, match="NeMo YAML"):
        meshscope.import_launcher(os.path.join(DATA, "launcher_configs", "nemo_launcher_llama3_70b.yaml"))


# ---- Errors ----


def test_errors_are_value_errors():
    assert issubclass(meshscope.Error, ValueError)


def test_unknown_preset_raises_with_the_core_message():
    with pytest.raises(meshscope.Error, match=r'--model: "llama9" is neither a model preset nor a readable file'):
        meshscope.params("llama9")


def test_bad_key_raises_naming_the_key():
    with pytest.raises(meshscope.Error, match=r'--train: unknown key "sequence"'):
        meshscope.estimate("llama3-8b", "dgx-h100", train={"sequence": 8192}, layout={"dp": 8})


def test_bad_value_raises_naming_the_key():
    with pytest.raises(meshscope.Error, match="gemm"):
        meshscope.estimate(
            "llama3-8b", "dgx-h100", train={"seq": 4096, "global_batch": 64}, layout={"dp": 8}, efficiency={"gemm": 3}
        )


def test_invalid_layout_raises_with_every_problem():
    with pytest.raises(meshscope.Error, match="64 attention heads"):
        meshscope.estimate("llama3.1-70b", "dgx-h100:nodes=8", train={"seq": 8192}, layout={"tp": 3})


def test_missing_file_raises_naming_the_file():
    with pytest.raises(meshscope.Error, match="/nonexistent.json.gz"):
        meshscope.import_trace("/nonexistent.json.gz")
    with pytest.raises(meshscope.Error, match="/nonexistent.log"):
        meshscope.import_log("/nonexistent.log")


def test_a_file_that_is_not_a_log_raises():
    with pytest.raises(meshscope.Error, match="no training iteration lines found"):
        meshscope.import_log(os.path.join(SOURCE, "README.md"))


def test_unknown_gpu_raises():
    with pytest.raises(meshscope.Error, match='unknown GPU "h9000"'):
        meshscope.memory("llama3-8b", gpu="h9000", train={"seq": 1024}, layout={"dp": 1})


def test_memory_needs_exactly_one_workload():
    with pytest.raises(meshscope.Error, match="exactly one of train"):
        meshscope.memory("llama3-8b", gpu="h100-sxm", train={"seq": 1}, serve={"kv": "fp8"})


def test_a_key_value_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="seq"):
        meshscope.estimate("llama3-8b", "dgx-h100", train={"seq": [4096]}, layout={"dp": 8})


# ---- Inputs ----


def test_keys_as_text_and_as_dict_give_the_same_result():
    as_text = meshscope.memory("llama3-8b", gpu="h100-sxm", train="seq=4096,global_batch=64", layout="dp=8")
    as_dict = meshscope.memory("llama3-8b", gpu="h100-sxm", train={"seq": 4096, "global_batch": 64}, layout={"dp": 8})
    assert as_text == as_dict


def test_memory_on_a_cluster_uses_its_gpu_and_size():
    on_cluster = meshscope.memory("llama3-8b", cluster="dgx-h100", train={"seq": 4096}, layout={"dp": 8})
    on_gpu = meshscope.memory("llama3-8b", gpu="h100-sxm", train={"seq": 4096}, layout={"dp": 8})
    assert on_cluster == on_gpu
    with pytest.raises(meshscope.Error, match="4 ranks, but the cluster has 8 GPUs"):
        meshscope.memory("llama3-8b", cluster="dgx-h100", train={"seq": 4096}, layout={"dp": 4})


def test_collective_gpus_as_a_list_equal_the_range_text():
    assert meshscope.collective("dgx-a100", "all-gather", list(range(8)), 2**20) == meshscope.collective(
        "dgx-a100", "all-gather", "0-7", [2**20]
    )


# ---- pandas ----


def test_to_pandas_gives_one_row_per_ranked_layout():
    pandas = pytest.importorskip("pandas")
    result = meshscope.rank("llama3-8b", "dgx-h100:nodes=2", train={"seq": 4096, "global_batch": 64}, top=5)
    frame = meshscope.to_pandas(result)
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == len(result["layouts"]) == 5
    assert list(frame["step_time_s"]) == [row["step_time_s"] for row in result["layouts"]]
    assert list(frame["layout.tp"]) == [row["layout"]["tp"] for row in result["layouts"]]
    # The objective is throughput: best first.
    assert frame["tokens_per_s_per_gpu"].is_monotonic_decreasing


def test_to_pandas_takes_a_row_list():
    pytest.importorskip("pandas")
    budget = meshscope.memory("llama3-8b", gpu="h100-sxm", train={"seq": 4096}, layout={"pp": 2})
    frame = meshscope.to_pandas(budget["ranks"])
    assert len(frame) == len(budget["ranks"])


def test_to_pandas_without_pandas_raises_import_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match="to_pandas needs pandas"):
        meshscope.to_pandas([{"a": 1}])


def test_to_pandas_refuses_a_document_without_rows():
    with pytest.raises(ValueError, match="row lists"):
        meshscope.to_pandas({"total": 1})


TRADEOFF_LAYOUT = {"tp": 8, "pp": 4, "vpp": 5, "dp": 2, "sp": True}


def test_tradeoff_equals_the_cli_document():
    doc = meshscope.tradeoff("llama3.1-70b", "dgx-h100:nodes=8", train={"seq": 8192, "global_batch": 512},
                             layout=TRADEOFF_LAYOUT, axis="tp", values=[4, 8, 16])
    cli = cli_json("tradeoff", "--model", "llama3.1-70b", "--cluster", "dgx-h100:nodes=8", "--train",
                   "seq=8192,global_batch=512", "--layout", "tp=8,pp=4,vpp=5,dp=2,sp=true", "--axis", "tp",
                   "--values", "4,8,16")
    assert doc == cli
    assert [p["valid"] for p in doc["points"]][2] is False
    assert "KV heads" in doc["points"][2]["reason"]


def test_tradeoff_grid_and_bad_axis():
    grid = meshscope.tradeoff("llama3.1-70b", "dgx-h100:nodes=8", train={"seq": 8192, "global_batch": 512},
                              layout=TRADEOFF_LAYOUT, axis="tp", values="4,8", axis2="pp", values2="2,4")
    assert grid["axis2"] == "pp"
    assert len(grid["points"]) == 4
    with pytest.raises(meshscope.Error, match="unknown axis"):
        meshscope.tradeoff("llama3.1-70b", "dgx-h100:nodes=8", layout=TRADEOFF_LAYOUT, axis="tq")
    with pytest.raises(meshscope.Error, match="values"):
        meshscope.tradeoff("llama3.1-70b", "dgx-h100:nodes=8", layout=TRADEOFF_LAYOUT, axis="tp", values="4,x")
