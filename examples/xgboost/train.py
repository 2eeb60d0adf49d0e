#!/usr/bin/env python3
"""Distributed XGBoost over the environment the operator gives each replica.

One script for both operators:
- Training Operator v1, kind XGBoostJob: every replica gets MASTER_ADDR and
  MASTER_PORT (the Master's Service and port), WORLD_SIZE and RANK (the Master
  is rank 0).
- Kubeflow Trainer v2, runtime xgboost-distributed: every node gets
  DMLC_TRACKER_URI and DMLC_TRACKER_PORT (node 0's host and port),
  DMLC_TASK_ID and DMLC_NUM_WORKER.
In both, rank 0 starts the Rabit tracker at that port, and every rank joins it
through collective.CommunicatorContext. `kftrain submit --local` sets the same
variables, pointing at 127.0.0.1.

Each rank trains on its own shard (rows rank, rank+world, ...) of one seeded
synthetic data set; the histograms are all-reduced across ranks, so every rank
ends with the same model. Rank 0 prints kftrain's progress lines
(docs/progress.md) and, at the end, `logloss=... accuracy=...` lines that
`kftrain tune` reads as objectives.
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker


def rendezvous():
    """Return (tracker host, tracker port, rank, world size) from the operator's variables."""
    env = os.environ
    if "DMLC_TRACKER_URI" in env:  # Kubeflow Trainer v2, xgboost-distributed
        return (env["DMLC_TRACKER_URI"], int(env["DMLC_TRACKER_PORT"]),
                int(env["DMLC_TASK_ID"]), int(env["DMLC_NUM_WORKER"]))
    if "MASTER_ADDR" in env:  # Training Operator v1, XGBoostJob
        return (env["MASTER_ADDR"], int(env["MASTER_PORT"]), int(env["RANK"]),
                int(env["WORLD_SIZE"]))
    return ("127.0.0.1", 0, 0, 1)  # started by hand: one process


def data(rows, seed):
    """A seeded binary classification set: the label depends on a few features."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 20)).astype(np.float32)
    score = 1.5 * x[:, 0] - 2.0 * x[:, 1] + x[:, 2] * x[:, 3] + 0.5 * rng.normal(size=rows)
    return x, (score > 0).astype(np.float32)


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


class Progress(xgb.callback.TrainingCallback):
    """Rank 0 prints a progress line after each boosting round."""

    def __init__(self, rank, world, rounds):
        super().__init__()
        self.rank, self.world, self.rounds, self.start = rank, world, rounds, time.time()

    def after_iteration(self, model, epoch, evals_log):
        if self.rank == 0:
            loss = evals_log["eval"]["logloss"][-1]
            elapsed = time.time() - self.start
            done = epoch + 1
            print(json.dumps({"event": "progress", "time": now(), "rank": 0,
                              "world_size": self.world, "step": done,
                              "steps_per_epoch": self.rounds, "loss": loss,
                              "percent": 100.0 * done / self.rounds,
                              "elapsed_s": round(elapsed, 3),
                              "eta_s": round(elapsed / done * (self.rounds - done), 3)}),
                  flush=True)
        return False


def train(args, rank, world):
    x, y = data(args.rows, args.seed)
    x_eval, y_eval = data(args.rows // 4, args.seed + 1)
    shard = xgb.DMatrix(x[rank::world], label=y[rank::world])
    held_out = xgb.DMatrix(x_eval, label=y_eval)
    params = {"objective": "binary:logistic", "tree_method": "hist", "eval_metric": "logloss",
              "max_depth": args.max_depth, "eta": args.eta, "nthread": 1}
    booster = xgb.train(params, shard, args.rounds, evals=[(held_out, "eval")],
                        verbose_eval=False, callbacks=[Progress(rank, world, args.rounds)])
    predicted = booster.predict(held_out) > 0.5
    return booster, float(np.mean(predicted == y_eval))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="boosting rounds")
    parser.add_argument("--eta", type=float, default=0.3, help="learning rate")
    parser.add_argument("--max-depth", type=int, default=4)
    parser.add_argument("--rows", type=int, default=20000, help="rows of the whole data set")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model-out", default="", help="rank 0 saves the model here")
    args = parser.parse_args()

    host, port, rank, world = rendezvous()
    tracker = None
    if rank == 0 and world > 1:
        # Rank 0 hosts the tracker, as the runtime expects; the others retry until it listens.
        tracker = RabitTracker(host_ip="0.0.0.0", n_workers=world, port=port)
        tracker.start(world)
    print(f"rank {rank} of {world}: tracker {host}:{port}", file=sys.stderr, flush=True)
    communicator = {"DMLC_TRACKER_URI": host, "DMLC_TRACKER_PORT": port,
                    "DMLC_TASK_ID": str(rank), "DMLC_NUM_WORKER": world}
    if world > 1:
        with collective.CommunicatorContext(**communicator):
            booster, accuracy = train(args, collective.get_rank(), collective.get_world_size())
    else:
        booster, accuracy = train(args, 0, 1)
    if tracker is not None:
        tracker.join()  # every worker has shut down its link
    if rank == 0:
        loss = float(booster.eval(xgb.DMatrix(*data(args.rows // 4, args.seed + 1)))
                     .split(":")[-1])
        print(json.dumps({"event": "finish", "time": now(), "rank": 0, "world_size": world,
                          "loss": loss, "accuracy": accuracy, "percent": 100.0}), flush=True)
        print(f"logloss={loss:.6f}", flush=True)
        print(f"accuracy={accuracy:.6f}", flush=True)
        if args.model_out:
            os.makedirs(os.path.dirname(os.path.abspath(args.model_out)), exist_ok=True)
            booster.save_model(args.model_out)


if __name__ == "__main__":
    main()
