"""The README's speed table from a benchmark JSON (benchmarks/run.py --json): one line per row in the
run's order, the ratio lucid/PyTorch at each thread count, and the run's context.

    python benchmarks/readme_table.py build/bench-quick.json [--readme README.md]

With --readme, the table under "## Speed" (from its "| row |" line to the next blank line) is
replaced in place; otherwise the table is printed."""
import argparse
import json


def table(report):
    threads = [str(t) for t in report["context"]["threads"]]
    rows, ratios = [], {}
    for r in report["rows"]:
        key = f"{r['group']}: {r['name']}"
        if r.get("dtype", "float32") != "float32":
            key += f" ({r['dtype']})"
        if key not in ratios:
            rows.append(key)
            ratios[key] = {}
        ratios[key][str(r["threads"])] = r.get("ratio")
    head = "| row | " + " | ".join(f"{t} thread{'s' if t != '1' else ''}" for t in threads) + " |"
    lines = [head, "|---|" + "---:|" * len(threads)]
    for key in rows:
        cells = [f"{ratios[key][t]:.2f}" if ratios[key].get(t) is not None else "-" for t in threads]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return lines


def context_line(report):
    c, ceil = report["context"], report["ceilings"]
    t = [str(x) for x in c["threads"]]
    triad = " / ".join(f"{ceil[k]['triad_GBps']:.1f}" for k in t)
    gemm = " / ".join(f"{ceil[k]['gemm_GFLOPs']:.0f}" for k in t)
    return (f"git `{c['git']}`, {c['cpu']}, {c['cpu_isa']} kernels, OpenBLAS {c['blas']}, PyTorch {c['torch']}; "
            f"ceilings in the same run: triad {triad} GB/s, SGEMM {gemm} GFLOP/s ({' / '.join(t)} threads)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--readme")
    args = ap.parse_args()
    with open(args.json) as f:
        report = json.load(f)
    lines = table(report)
    if not args.readme:
        print(context_line(report))
        print("\n".join(lines))
        return
    with open(args.readme) as f:
        text = f.read().split("\n")
    start = next(i for i, l in enumerate(text) if l.startswith("| row |") and i > text.index("## Speed"))
    end = start
    while end < len(text) and text[end].startswith("|"):
        end += 1
    text[start:end] = lines
    with open(args.readme, "w") as f:
        f.write("\n".join(text))
    print(context_line(report))


if __name__ == "__main__":
    main()
