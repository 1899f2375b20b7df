"""Learning rates of timm's schedulers, update by update, for the schedule test (test_timm_dialect.cpp).

Written from timm's source (huggingface/pytorch-image-models): scheduler_factory.py's
create_scheduler_v2 (lengths in epochs, times updates_per_epoch with --sched-on-updates; cosine's
cool-down epochs added to the run), and the _get_lr of cosine_lr.py, step_lr.py and multistep_lr.py
with warmup_prefix False (train.py's default) and one cycle. train.py's loop runs epoch e at the
value of step e (lr_scheduler.step(epoch + 1) after it), or update u at the value of step u
(step_update(num_updates) after it). timm itself is not needed.

Usage: timm_schedule_fixture.py OUT  (one line per case: name, then the rate of every update)
"""
import bisect
import math
import sys

# name, sched, lr, epochs, updates/epoch, on_updates, warmup epochs, warmup_lr, min_lr,
# decay_epochs, milestones, decay_rate, cooldown
CASES = [
    ("step", "step", 0.016, 10, 5, False, 3, 1e-6, 0.0, 2.4, [90], 0.97, 0),
    ("multistep", "multistep", 0.1, 9, 4, False, 2, 1e-5, 0.0, 90, [3, 6], 0.1, 0),
    ("cosine", "cosine", 0.05, 8, 3, False, 2, 1e-5, 1e-4, 90, [90], 0.1, 2),
    ("step_updates", "step", 0.2, 6, 3, True, 1, 1e-4, 0.0, 2, [90], 0.5, 0),
    ("cosine_updates", "cosine", 0.1, 5, 4, True, 1, 1e-5, 0.0, 90, [90], 0.1, 1),
]


def get_lr(sched, base, t, warmup_t, warmup_lr, t_initial, min_lr, decay_t, milestones, decay_rate):
    if t < warmup_t:
        return warmup_lr + t * (base - warmup_lr) / warmup_t
    if sched == "step":
        return base * (decay_rate ** (t // decay_t))
    if sched == "multistep":
        return base * (decay_rate ** bisect.bisect_right(milestones, t + 1))
    i = t // t_initial  # one cycle: past it, min_lr
    if i >= 1:
        return min_lr
    return min_lr + 0.5 * (base - min_lr) * (1 + math.cos(math.pi * t / t_initial))


def case_rates(case):
    (_, sched, lr, epochs, per_epoch, on_updates, warmup, warmup_lr, min_lr, decay_epochs, milestones,
     decay_rate, cooldown) = case
    unit = per_epoch if on_updates else 1
    t_initial, warmup_t, decay_t = epochs * unit, warmup * unit, decay_epochs * unit
    milestones = [m * unit for m in milestones]
    cooldown_t = cooldown * unit
    run_epochs = epochs
    if sched == "cosine":
        total_t = t_initial + cooldown_t
        run_epochs = total_t if not on_updates else total_t // per_epoch
    rates = []
    for update in range(run_epochs * per_epoch):
        t = update if on_updates else update // per_epoch
        rates.append(get_lr(sched, lr, t, warmup_t, warmup_lr, t_initial, min_lr, decay_t, milestones, decay_rate))
    return rates


def main():
    with open(sys.argv[1], "w") as out:
        for case in CASES:
            out.write(case[0] + " " + " ".join(repr(rate) for rate in case_rates(case)) + "\n")


if __name__ == "__main__":
    main()
