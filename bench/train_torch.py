#!/usr/bin/python3
"""PyTorch's row of the benchmark's training section: torch 1.13 CPU eager, ONE thread.

bench/run.mjs runs it (when /usr/bin/python3 can import torch) as
    OMP_NUM_THREADS=1 /usr/bin/python3 bench/train_torch.py PLAN.json
PLAN.json: {"optimizer": {lr, betas, eps, weightDecay}, "sizes": [{size, config: {vocabSize, contextLength,
dModel, heads, layers}, batch, spec: [[name, shape]], parameters: file of float32 (little-endian, spec order),
batches: file of int32 (for each batch: inputs (B, T) then targets (B, T)), count, warmup, steps, expectedLoss,
lossRtol}]}. Prints one JSON object: {"torch": version, "threads": n, "results": [...]}.

The model is the issue's AttentionOnly (LayerNorm off), imported from tests/fixtures/training.py, loaded
with the page's initial parameters; the optimiser torch.optim.AdamW with the same settings; the loss
F.cross_entropy(..., ignore_index=-100). The first step's loss is checked against ours (expectedLoss) before
anything is timed; a disagreement is reported ('wrong') and not timed.
"""
import json
import os
import resource
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# The AttentionOnly, defined once: in the fixture script that proves our trainer against it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
from training import AttentionOnly  # noqa: E402

torch.set_num_threads(1)


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def blas_library():
    """The BLAS shared library this process mapped (Debian's torch uses the system libblas alternative)."""
    with open("/proc/self/maps") as f:
        names = {line.split()[-1].rsplit("/", 1)[-1] for line in f if "blas" in line.lower()}
    return ", ".join(sorted(names)) or "unknown"


def run_size(plan, optimizer):
    c = plan["config"]
    V, T, d, H, L, B = c["vocabSize"], c["contextLength"], c["dModel"], c["heads"], c["layers"], plan["batch"]
    row = {"task": "training", "size": plan["size"], "contestant": "PyTorch 1.13 CPU eager, 1 thread", "group": "peer", "threads": 1}
    start_rss = rss_bytes()
    model = AttentionOnly(V, T, d, H, L, False)
    flat = np.fromfile(plan["parameters"], dtype="<f4")
    state, offset = {}, 0
    for name, shape in plan["spec"]:
        n = int(np.prod(shape))
        state[name] = torch.from_numpy(flat[offset:offset + n].reshape(shape).copy())
        offset += n
    model.load_state_dict(state, strict=True)
    tokens = np.fromfile(plan["batches"], dtype="<i4").reshape(plan["count"], 2, B, T)
    batches = [(torch.from_numpy(tokens[i, 0].astype(np.int64)), torch.from_numpy(tokens[i, 1].astype(np.int64)))
               for i in range(plan["count"])]
    opt = torch.optim.AdamW(model.parameters(), lr=optimizer["lr"], betas=tuple(optimizer["betas"]),
                            eps=optimizer["eps"], weight_decay=optimizer["weightDecay"])

    def step(i):
        inputs, targets = batches[i]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs).view(-1, V), targets.view(-1), ignore_index=-100)
        loss.backward()
        opt.step()
        return loss.item()

    first = step(0)
    row["firstLoss"] = first
    expected = plan["expectedLoss"]
    rel = abs(first - expected) / abs(expected)
    row["lossRelError"] = rel
    if not rel <= plan["lossRtol"]:
        row.update(status="wrong", reason=f"first step's loss {first} vs ours {expected} (relative {rel:.1e} > {plan['lossRtol']})")
        return row
    s = 1
    for _ in range(plan["warmup"]):
        step(s); s += 1
    times = []
    cpu0 = time.process_time()
    for _ in range(plan["steps"]):
        t0 = time.perf_counter()
        step(s); s += 1
        times.append((time.perf_counter() - t0) * 1000)
    cpu_ms = (time.process_time() - cpu0) * 1000 / plan["steps"]
    row.update(status="ok", warmup=plan["warmup"], timesMs=times, cpuMsPerStep=cpu_ms, startBytes=start_rss,
               peakBytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, memoryKind="python process peak RSS (ru_maxrss; includes the earlier sizes)")
    return row


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    results = [run_size(p, plan["optimizer"]) for p in plan["sizes"]]
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas_library(),
                      "results": results}))


if __name__ == "__main__":
    main()
