#!/usr/bin/env python3
"""PyTorch DDP example: a small MLP learns to tell two interleaved spirals apart.

Your own training script as kftrain runs it: one process per replica of a PyTorchJob or a
TrainJob (or locally: kftrain submit --local), started as plain `python3 ddp.py`, without
torchrun. Needs only python3 and torch. Alone, or as two ranks by hand:
  python3 ddp.py --epochs 3
  export MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 WORLD_SIZE=2
  RANK=0 python3 ddp.py & RANK=1 python3 ddp.py; wait
Rank 0 prints one JSON object per line (what kftrain logs and status read), a Katib metric
line per evaluation, and posts progress to Kubeflow Trainer's trainerStatus endpoint when
the controller provides one. On SIGTERM: finish the step, checkpoint, exit 143.
"""
import argparse, datetime, json, math, os, queue, signal, ssl, sys, threading, time
import urllib.request

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    p = argparse.ArgumentParser(description="PyTorch DDP on two spirals")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=64, help="samples per step on each rank")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--samples", type=int, default=4096, help="training samples (eval: a quarter)")
    p.add_argument("--checkpoint-dir", help="a directory all ranks share; resumed from at start")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--log-every", type=int, default=10, help="steps between progress lines")
    return p.parse_args()


def distributed_env():
    """Make sure RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are set for init_process_group.
    A PyTorchJob (Training Operator v1) sets them. A TrainJob node (Trainer v2) started without
    torchrun has only PET_*: with one process per node, its rank is the node's. With neither,
    the script runs alone."""
    env = os.environ
    if "RANK" not in env and "PET_NODE_RANK" in env:
        if env.get("PET_NPROC_PER_NODE", "1") != "1":
            print('warning: ddp.py starts one process per node (nprocPerNode: "1")',
                  file=sys.stderr, flush=True)
        env["RANK"], env["WORLD_SIZE"] = env["PET_NODE_RANK"], env["PET_NNODES"]
        env["MASTER_ADDR"], env["MASTER_PORT"] = env["PET_MASTER_ADDR"], env["PET_MASTER_PORT"]
    for name, default in [("RANK", "0"), ("WORLD_SIZE", "1"),
                          ("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29500")]:
        env.setdefault(name, default)
    return int(env["RANK"]), int(env["WORLD_SIZE"]), int(env.get("LOCAL_RANK", "0"))


def spirals(n, seed):
    """Two interleaved spirals, one per class: no straight line separates them. Seeded, so
    every rank makes the same data set."""
    g = torch.Generator().manual_seed(seed)
    label = torch.randint(0, 2, (n,), generator=g)
    t = torch.rand(n, generator=g)  # how far along its arm a point lies
    angle = 2 * math.pi * t + math.pi * label  # the second arm is the first turned by 180 degrees
    x = (0.2 + t)[:, None] * torch.stack([torch.cos(angle), torch.sin(angle)], dim=1)
    return 2 * (x + 0.075 * torch.randn(n, 2, generator=g)), label


def utc_now(ms=True):
    """2026-11-26T10:00:00.123Z, or RFC 3339 in whole seconds (ms=False)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S") + (f".{now.microsecond // 1000:03d}Z" if ms else "Z")


def num(value):
    """A float for JSON: rounded, and null when not finite (NaN is not JSON)."""
    return round(value, 6) if math.isfinite(value) else None


class TrainerStatus:
    """Posts progress to Kubeflow Trainer's trainerStatus endpoint (TrainJobStatus feature gate)
    from a daemon thread fed by a queue: training never waits on the network, and a failing
    endpoint only prints one warning."""

    def __init__(self, enabled):
        env = os.environ
        self.url = env.get("KUBEFLOW_TRAINER_SERVER_URL")
        self.ca_file = env.get("KUBEFLOW_TRAINER_SERVER_CA_CERT")
        self.token_file = env.get("KUBEFLOW_TRAINER_SERVER_TOKEN")
        self.enabled = enabled and bool(self.url and self.ca_file and self.token_file)
        self.queue, self.last_post, self.warned = queue.Queue(), -math.inf, False
        if self.enabled:
            self.thread = threading.Thread(target=self._post_all, daemon=True)
            self.thread.start()

    def update(self, percent, eta_s, metrics, final=False):
        """Queue an update: at most one every 5 s, but always the final one."""
        if not self.enabled or (not final and time.monotonic() - self.last_post < 5):
            return
        self.last_post = time.monotonic()
        self.queue.put({"trainerStatus": {
            "progressPercentage": max(0, min(100, int(percent))),
            "estimatedRemainingSeconds": max(0, int(round(eta_s))),
            "metrics": [{"name": k, "value": str(v)[:64]} for k, v in metrics.items()],
            "lastUpdatedTime": utc_now(ms=False)}})

    def close(self):
        """Give the last updates a few seconds to go out."""
        if self.enabled:
            self.queue.put(None)
            self.thread.join(timeout=12)

    def _post_all(self):
        while (body := self.queue.get()) is not None:
            try:
                with open(self.token_file) as f:  # the token rotates: read it for every post
                    token = f.read().strip()
                request = urllib.request.Request(
                    self.url, data=json.dumps(body).encode(), method="POST",
                    headers={"Content-Type": "application/json",
                             "Authorization": f"Bearer {token}"})
                context = ssl.create_default_context(cafile=self.ca_file)
                with urllib.request.urlopen(request, timeout=5, context=context) as response:
                    response.read()
            except Exception as e:  # progress reporting never stops training
                if not self.warned:
                    self.warned = True
                    print(f"warning: trainerStatus not posted (training goes on): {e}",
                          file=sys.stderr, flush=True)


stop_requested = False  # set by SIGTERM; the ranks agree on it after every step


def on_sigterm(signum, frame):
    global stop_requested
    stop_requested = True


def evaluate(model, x, y, rank, world, device):
    """Loss and accuracy on the held-out set: each rank scores a slice, then all-reduce."""
    model.eval()
    with torch.no_grad():
        xs, ys = x[rank::world].to(device), y[rank::world].to(device)
        out = model.module(xs)
        sums = torch.tensor([F.cross_entropy(out, ys, reduction="sum").item(),
                             (out.argmax(1) == ys).sum().item(), len(ys)], device=device)
    dist.all_reduce(sums)
    model.train()
    loss_sum, correct, n = sums.tolist()
    return loss_sum / n, correct / n, int(n)


def save_checkpoint(path, model, optimizer, epoch, step, global_step):
    """Write a temporary file, then rename it: a reader never sees half a checkpoint."""
    torch.save({"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "step": step, "global_step": global_step}, path + ".tmp")
    os.replace(path + ".tmp", path)


def train(args, rank, world, local_rank, backend):
    """Train and return the exit code: 0 when done, 143 when stopped by SIGTERM."""
    cuda = backend == "nccl"
    device = torch.device(f"cuda:{local_rank}" if cuda else "cpu")
    status = TrainerStatus(enabled=rank == 0)

    def log(event, **fields):  # kftrain's progress lines: one JSON object per line, rank 0
        if rank == 0:
            head = {"event": event, "rank": rank, "world_size": world, "time": utc_now()}
            print(json.dumps({**head, **fields}), flush=True)

    # The same data and initial weights on every rank; DistributedSampler gives each its share.
    torch.manual_seed(args.seed)
    train_set = TensorDataset(*spirals(args.samples, args.seed))
    eval_x, eval_y = spirals(max(args.samples // 4, world), args.seed + 1)
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    net = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    model = DistributedDataParallel(net.to(device), device_ids=[local_rank] if cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    # Resume: every rank loads the checkpoint from the shared directory.
    ckpt, start_epoch, skip, global_step = None, 0, 0, 0
    if args.checkpoint_dir:
        ckpt = os.path.join(args.checkpoint_dir, "checkpoint.pt")
        os.makedirs(args.checkpoint_dir, exist_ok=True)
        if os.path.exists(ckpt):
            state = torch.load(ckpt, map_location=device)
            model.module.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            start_epoch, skip, global_step = state["epoch"], state["step"], state["global_step"]

    steps_per_epoch = len(loader)
    total_steps = args.epochs * steps_per_epoch
    log("start", model="mlp-2x64", dataset="spirals", epochs=args.epochs,
        batch_size=args.batch_size, global_batch_size=args.batch_size * world, lr=args.lr,
        samples=args.samples, steps_per_epoch=steps_per_epoch, backend=backend,
        device=str(device), threads=torch.get_num_threads(), resumed_from=global_step or None)
    status.update(100 * global_step / total_steps, 0, {})
    start, first_step, trained = time.monotonic(), global_step, 0
    train_loss = train_acc = rate = math.nan
    evaluated = None  # (loss, accuracy) of the last evaluation

    def eta():
        done = global_step - first_step
        return (time.monotonic() - start) / done * (total_steps - global_step) if done else 0.0

    def metrics(epoch):  # trainerStatus metrics: strings
        m = {"loss": f"{train_loss:.4f}", "accuracy": f"{train_acc:.4f}", "epoch": epoch,
             "samples_per_sec": f"{rate:.1f}"}
        if evaluated:
            m.update(eval_loss=f"{evaluated[0]:.4f}", eval_accuracy=f"{evaluated[1]:.4f}")
        return m

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        epoch_start = window_start = time.monotonic()
        epoch_sums, window = torch.zeros(3), torch.zeros(3)  # loss sum, correct, samples
        for step, (x, y) in enumerate(loader, 1):
            if epoch == start_epoch and step <= skip:  # trained before the checkpoint
                window_start = time.monotonic()
                continue
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()  # DDP averages the gradients of all ranks here
            optimizer.step()
            global_step += 1
            # One small all-reduce a step: loss and accuracy over all ranks, and whether any
            # rank got SIGTERM, so that all of them stop after the same step.
            stats = torch.tensor([loss.item() * len(y), (out.argmax(1) == y).sum().item(),
                                  len(y), float(stop_requested)], device=device)
            dist.all_reduce(stats)
            stats = stats.cpu()
            window += stats[:3]
            epoch_sums += stats[:3]
            trained += int(stats[2])
            stop = stats[3].item() > 0
            if step % args.log_every == 0 or step == steps_per_epoch or stop:
                loss_sum, correct, n = window.tolist()
                train_loss, train_acc = loss_sum / max(n, 1), correct / max(n, 1)
                rate = n / (time.monotonic() - window_start)
                log("progress", epoch=epoch + 1, epochs=args.epochs, step=step,
                    steps_per_epoch=steps_per_epoch, global_step=global_step,
                    loss=num(train_loss), accuracy=num(train_acc), samples_per_sec=num(rate),
                    lr=args.lr, elapsed_s=num(time.monotonic() - start), eta_s=num(eta()),
                    percent=num(100 * global_step / total_steps))
                status.update(min(99, 100 * global_step / total_steps), eta(), metrics(epoch + 1))
                window.zero_()
                window_start = time.monotonic()
            if stop:  # SIGTERM: save where we are and exit 143 (128 + 15), to be restarted
                done = (epoch + 1, 0) if step == steps_per_epoch else (epoch, step)
                if ckpt and rank == 0:
                    save_checkpoint(ckpt, model, optimizer, *done, global_step)
                    log("checkpoint", path=ckpt, epoch=done[0], global_step=global_step)
                status.update(100 * global_step / total_steps, eta(), metrics(epoch + 1), True)
                status.close()
                return 143

        epoch_time = time.monotonic() - epoch_start
        loss_sum, correct, n = epoch_sums.tolist()
        log("epoch", epoch=epoch + 1, epochs=args.epochs, loss=num(loss_sum / max(n, 1)),
            accuracy=num(correct / max(n, 1)), samples_per_sec=num(n / epoch_time),
            epoch_time_s=num(epoch_time), elapsed_s=num(time.monotonic() - start),
            eta_s=num(eta()))
        eval_loss, eval_acc, eval_n = evaluate(model, eval_x, eval_y, rank, world, device)
        evaluated = (eval_loss, eval_acc)
        log("eval", epoch=epoch + 1, loss=num(eval_loss), accuracy=num(eval_acc), samples=eval_n)
        if rank == 0:  # for Katib's StdOut metrics collector; it reads a leading time stamp
            print(f"{utc_now()} epoch={epoch + 1} accuracy={eval_acc:.4f} loss={eval_loss:.4f}",
                  flush=True)
        if ckpt and rank == 0:
            save_checkpoint(ckpt, model, optimizer, epoch + 1, 0, global_step)
            log("checkpoint", path=ckpt, epoch=epoch + 1, global_step=global_step)
        status.update(min(99, 100 * global_step / total_steps), eta(), metrics(epoch + 1))

    if evaluated is None:  # nothing left to train: resumed after the last epoch
        evaluated = evaluate(model, eval_x, eval_y, rank, world, device)[:2]
    elapsed = time.monotonic() - start
    log("finish", epochs=args.epochs, global_step=global_step, loss=num(evaluated[0]),
        accuracy=num(evaluated[1]), elapsed_s=num(elapsed), samples_per_sec=num(trained / elapsed))
    status.update(100, 0, metrics(args.epochs), final=True)
    status.close()
    return 0


def main():
    args = parse_args()
    rank, world, local_rank = distributed_env()
    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(1)  # replicas often share a machine's cores
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(local_rank)
    dist.init_process_group(backend, timeout=datetime.timedelta(minutes=5))
    signal.signal(signal.SIGTERM, on_sigterm)
    code = train(args, rank, world, local_rank, backend)
    # train() has returned and freed its DDP model while the process group still exists: with
    # torch 1.13 and gloo, a DDP model freed after destroy_process_group can hang the process.
    dist.barrier()  # nobody leaves while another rank may still need the process group
    dist.destroy_process_group()
    sys.exit(code)


if __name__ == "__main__":
    main()
