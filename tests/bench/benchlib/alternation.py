"""Configurations alternated round by round (A B A B ...), so that the machine's drift affects all alike.

On this VM the speed drifts by up to ~10% over minutes: separate runs would book the drift to whatever
differs between them (the thread count, the build, the file), alternating processes do not.
"""
import contextlib


def round_order(configs, index, reverse_odd=False):
    """The configurations of round `index` (from 0): as given, or reversed in every other round."""
    configs = list(configs)
    return list(reversed(configs)) if reverse_odd and index % 2 else configs


def alternate(configs, rounds, run, reverse_odd=False, round_context=None, after_round=None):
    """Runs run(config) for every configuration in each of `rounds` rounds; returns {config: [results]} in
    round order. round_context(index): a context manager around a whole round (e.g. the CPU lock);
    after_round(index): called when a round is done."""
    configs = list(configs)
    runs = {c: [] for c in configs}
    for index in range(rounds):
        with round_context(index) if round_context else contextlib.nullcontext():
            for config in round_order(configs, index, reverse_odd):
                runs[config].append(run(config))
        if after_round:
            after_round(index)
    return runs
