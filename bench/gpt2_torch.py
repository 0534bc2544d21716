"""GPT-2 small's forward in PyTorch CPU eager, one thread (bench/gpt2.mjs runs it with the parameters it generated).

Reads <dir>/job.json and <dir>/parameters.f32 (every parameter in gpt2ParameterShapes' order), times the forward
at each size (warm-up, then 5 runs at T=128, 3 at T=512: the median), writes <dir>/logits-<T>.f32 (the reference
the Node contestants are checked against) and prints {"rows": [{T, contestant, medianMs, minMs, maxMs, runs}]}.
GPT-2 in torch ops (no transformers package), float32, as tests/fixtures/gpt2/make_fixtures.py.
"""
import json
import math
import os
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)


def forward(p, tokens, config):
    T, C, H = len(tokens), config["dModel"], config["heads"]
    d = C // H
    eps = config["layerNormEpsilon"]
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (C,), p[f"{name}.weight"], p[f"{name}.bias"], eps)
    x = p["wte.weight"][tokens] + p["wpe.weight"][:T]
    future = torch.ones(T, T).triu(diagonal=1).bool()
    for l in range(config["layers"]):
        w = lambda name: p[f"h.{l}.{name}"]
        q, k, v = (ln(x, f"h.{l}.ln_1") @ w("attn.c_attn.weight") + w("attn.c_attn.bias")).split(C, dim=-1)
        q, k, v = (t.view(T, H, d).transpose(0, 1) for t in (q, k, v))
        weights = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(d)).masked_fill(future, float("-inf")), dim=-1)
        x = x + (weights @ v).transpose(0, 1).reshape(T, C) @ w("attn.c_proj.weight") + w("attn.c_proj.bias")
        h = ln(x, f"h.{l}.ln_2") @ w("mlp.c_fc.weight") + w("mlp.c_fc.bias")
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h.pow(3))))
        x = x + h @ w("mlp.c_proj.weight") + w("mlp.c_proj.bias")
    return ln(x, "ln_f") @ p["wte.weight"].T


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "job.json")) as f:
        job = json.load(f)
    flat = torch.from_numpy(np.fromfile(os.path.join(folder, "parameters.f32"), dtype=np.float32))
    p, at = {}, 0
    for name in job["order"]:
        shape = job["shapes"][name]
        size = int(np.prod(shape))
        p[name] = flat[at:at + size].view(*shape)
        at += size
    rows = []
    with torch.no_grad():
        for T in job["sizes"]:
            tokens = torch.tensor(job["tokens"][str(T)])
            logits = forward(p, tokens, job["config"])
            logits.numpy().astype(np.float32).tofile(os.path.join(folder, f"logits-{T}.f32"))
            runs = 3 if T >= 512 else 5
            times, cpu = [], []
            for _ in range(runs):
                started, cpu_started = time.perf_counter(), time.process_time()
                forward(p, tokens, job["config"])
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
            times.sort()
            cpu.sort()
            rows.append({"T": T, "contestant": f"PyTorch {torch.__version__} CPU eager, 1 thread", "medianMs": times[len(times) // 2],
                         "minMs": times[0], "maxMs": times[-1], "cpuMs": cpu[len(cpu) // 2], "runs": runs})
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
