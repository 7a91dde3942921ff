# %% [markdown]
# # meshscope from Python
#
# A notebook-style script (cells marked `# %%`, as VS Code, Jupytext and Spyder read them): load a model,
# estimate one training layout, rank the layouts of a cluster and look at them as a pandas DataFrame.
# Run it from a build: `PYTHONPATH=build/dev/python python3 examples/notebook.py` (docs/python.md). CTest runs it
# as `python_example`.

# %%
import meshscope

MODEL = "llama3.1-70b"
CLUSTER = "dgx-h100:nodes=8"  # 64 H100s, 8 per node
TRAIN = {"seq": 8192, "global_batch": 512}

params = meshscope.params(MODEL)
print(f"{MODEL}: {params['total'] / 1e9:.1f} B parameters, {params['active'] / 1e9:.1f} B active per token")

# %% [markdown]
# ## One layout: TP 8 within a node, 4 pipeline stages with 5 virtual stages each, DP 2

# %%
step = meshscope.estimate(MODEL, CLUSTER, train=TRAIN, layout={"tp": 8, "pp": 4, "vpp": 5, "dp": 2, "sp": True})
print(f"step {step['step_time_s']:.2f} s, {step['tokens_per_s_per_gpu']:.0f} tokens/s per GPU, MFU {step['mfu']:.1%}")
print(f"peak memory {step['peak_memory_bytes'] / 2**30:.1f} GiB, pipeline bubble {step['bubble_fraction']:.1%}")
for part, seconds in step["breakdown"].items():
    print(f"  {part:<24} {seconds:8.3f} s")

# %% [markdown]
# ## Every layout of the cluster, ranked by throughput

# %%
ranked = meshscope.rank(MODEL, CLUSTER, train=TRAIN, top=10)
print(f"{ranked['evaluated']} layouts evaluated, {ranked['valid']} valid")

# %%
columns = ["layout.tp", "layout.pp", "layout.cp", "layout.dp", "layout.vpp", "layout.schedule", "step_time_s",
           "tokens_per_s_per_gpu", "mfu"]
try:
    frame = meshscope.to_pandas(ranked)  # one row per layout; nested keys as dotted columns
except ImportError:  # pandas is optional: the same table by hand
    frame = None
if frame is not None:
    print(frame[columns].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
else:
    print("  ".join(columns))
    for row in ranked["layouts"]:
        layout = row["layout"]
        print(layout["tp"], layout["pp"], layout["cp"], layout["dp"], layout["vpp"], layout["schedule"],
              f"{row['step_time_s']:.3f}", f"{row['tokens_per_s_per_gpu']:.0f}", f"{row['mfu']:.3f}")

# %% [markdown]
# ## Errors are meshscope.Error (a ValueError) with the core's message

# %%
try:
    meshscope.estimate(MODEL, CLUSTER, train=TRAIN, layout={"tp": 3})
except meshscope.Error as error:
    print(f"refused: {error}")
