"""The whole run, in order: build, models, the optional baseline's preparation, the measurements, the
comparison with the baseline, the goals; then BENCHMARKS.json, and BENCHMARKS.md written from it."""
import json
import os
import shlex
import shutil
import sys
import time

import deployment_sizes
from benchlib import load, machine
from benchlib.log import T0, log
from benchlib.models import fixed_sources, prepare_models
from benchlib.paths import REPO, relative_paths, rel
from benchlib.processes import COMMANDS, swap_commands
from benchreport.writer import analysis_text, write

from . import baseline, build, measure, plan, quality, torch_ref, xnnpack
from .goals import evaluate_baseline_goals, evaluate_goals


def directories(args):
    build_dir = os.path.abspath(args.build_dir)
    cache_dir = os.path.abspath(args.cache_dir or os.path.join(build_dir, "bench-cache"))
    out = os.path.abspath(args.out or (os.path.join(build_dir, "bench-quick", "BENCHMARKS.md") if args.quick
                                       else os.path.join(REPO, "BENCHMARKS.md")))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    os.makedirs(cache_dir, exist_ok=True)
    work = os.path.join(cache_dir, "run-quick" if args.quick else "run")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return build_dir, cache_dir, out, work


def prepare(args, state):
    """Builds, converts, and prepares the baseline (its commands go to its own list); returns the baseline."""
    meta = state["meta"]
    state["bins"], meta["build"] = build.build(state["build_dir"], args.no_build)
    state["models"] = prepare_models(state["cache_dir"], state["names"],
                                     state["bins"]["edgemt-bench-model"] if args.generated_models else None)
    meta["generated_models"] = args.generated_models
    state["fixed_ids"] = fixed_sources(state["cache_dir"])
    if not args.baseline:
        return None
    main_commands = swap_commands([])
    base = baseline.prepare(args.baseline, state["build_dir"], state["cache_dir"], state["models"], args.no_build)
    base["commands"] = swap_commands(main_commands)
    return base


def quiet_machine(args, meta):
    if args.wait_quiet:
        waited = load.wait_quiet(args.wait_quiet, args.quiet_load)
        meta["quiet_note"] = "; waited %d s for <= %.2f" % (waited, args.quiet_load) if waited else ""
    load.IDLE["max_wait_s"] = args.idle_wait if args.idle_wait is not None else (0.0 if args.quick else 30.0)
    load.IDLE["budget_s"] = args.idle_budget


def measure_all(args, state, base):
    """Every measurement of this tree: EdgeMT, PyTorch, accuracy, binaries, XNNPACK alone, the floors."""
    bins, models, fixed_ids, work = state["bins"], state["models"], state["fixed_ids"], state["work"]
    p = plan.plan(args.quick, args.repeat)
    results = dict(plan=p, **measure.process_baseline(bins, work))
    results["edgemt"] = measure.measure_edgemt(bins, models, fixed_ids, p, work)
    results["torch"] = {} if args.skip_torch else torch_ref.measure_torch(state["env"], state["env_note"], models,
                                                                           fixed_ids, p, work)
    results["quality"] = quality.quality(results, models, args.quick)
    COMMANDS.append("tests/bench/deployment_sizes.py " + args.build_dir)
    results["binaries"] = deployment_sizes.measure(args.build_dir)
    xnn = []
    if not args.skip_xnnpack:
        log("XNNPACK 1 vs 2 threads")
        xnn = xnnpack.xnnpack_threads(bins, args.quick)
    if not args.skip_xnnpack or base:
        results["decoder_floors"] = xnnpack.decoder_floors(bins["edgemt-xnnpack-gemm-bench"], models, args.quick)
    return results, xnn


def compare(args, state, base):
    """--baseline: this tree against the baseline in alternating processes; its record for the JSON."""
    main_commands = swap_commands(base["commands"])
    p = plan.baseline_plan(args.quick, args.baseline_rounds)
    waited0, t0, load0 = load.IDLE["waited_s"], time.time(), list(os.getloadavg())
    log("baseline %s against this tree: %d rounds per configuration" % (base["short"], p["rounds"]))
    models = state["models"]
    runs = baseline.compare_builds(dict(baseline=base["bins"], new=state["bins"]),
                                   dict(baseline=base["files"], new={n: m["files"]["int8"] for n, m in models.items()}),
                                   models, state["fixed_ids"], state["work"], p)
    summary = baseline.summarize_builds(runs)
    record = dict(
        rev=base["rev"], commit=base["commit"], short=base["short"], subject=base["subject"], src=rel(base["src"]),
        build_dir=rel(base["build_dir"]), build=base["build"], files={n: rel(f) for n, f in base["files"].items()},
        conversions=base["conversions"], calibration_note=base["calibration_note"],
        kinds={n: m["kind"] for n, m in models.items()}, plan=p, runs=runs, summary=summary,
        goals=evaluate_baseline_goals(summary), loadavg_start=load0, loadavg_end=list(os.getloadavg()),
        measure_s=round(time.time() - t0, 1), idle_waited_s=round(load.IDLE["waited_s"] - waited0, 1))
    record["commands"] = swap_commands(main_commands)
    return record


def write_outputs(out, meta, results, xnn, models, baseline_record):
    """BENCHMARKS.json (paths relative to the repository), then BENCHMARKS.md from what the JSON holds."""
    data = dict(meta=meta, goals=evaluate_goals(results), results=results, xnnpack_threads=xnn,
                models={n: dict(kind=m["kind"], files={d: rel(p) for d, p in m["files"].items()},
                                conversions=m["conversions"]) for n, m in models.items()},
                baseline=baseline_record)
    text = relative_paths(json.dumps(data, indent=1))
    json_path = os.path.splitext(out)[0] + ".json"
    with open(json_path, "w") as f:
        f.write(text + "\n")
    write(out, json.loads(text), analysis_text(meta["quick"]))
    log("wrote %s and %s in %.1f min" % (rel(out), rel(json_path), meta["duration_s"] / 60))


def run(args, names):
    state = dict(names=names)
    state["build_dir"], state["cache_dir"], out, state["work"] = directories(args)
    invocation = "tests/bench/run_benchmarks.py" + "".join(" " + shlex.quote(a) for a in sys.argv[1:])
    meta = state["meta"] = dict(command=invocation, quick=args.quick, git=machine.git_info(),
                                machine=machine.machine_info())
    base = prepare(args, state)
    state["env"], state["env_note"], meta["torch_blas"] = torch_ref.torch_env(state["cache_dir"], args.torch_blas)
    meta["torch_qengine"] = torch_ref.quantized_engine(state["env"])
    quiet_machine(args, meta)
    meta["loadavg_start"] = list(os.getloadavg())
    log("measuring; load average %.2f %.2f %.2f" % tuple(meta["loadavg_start"]))
    t_measure = time.time()
    results, xnn = measure_all(args, state, base)
    meta["loadavg_end"] = list(os.getloadavg())
    baseline_record = compare(args, state, base) if base else None
    meta.update(idle_waited_s=round(load.IDLE["waited_s"], 1), idle_wait_per_child_s=load.IDLE["max_wait_s"],
                measure_s=round(time.time() - t_measure, 1), duration_s=round(time.time() - T0, 1),
                date=machine.utc_now(), commands=list(COMMANDS))
    write_outputs(out, meta, results, xnn, state["models"], baseline_record)
