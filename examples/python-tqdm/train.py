#!/usr/bin/env python3
"""A PyTorch DDP script as people write it: a tqdm bar per epoch, nothing printed for kftrain.

kftrain reads its progress from the bar it draws (docs/progress.md): `kftrain status` shows
the percentage and ETA, `kftrain estimate --measure` fits its speed, all without a change
here. Needs python3, torch and tqdm (Debian: python3-torch python3-tqdm). Alone, or as a
2-replica local job:
  python3 train.py --epochs 2
  kftrain run --replicas 2 --local --follow -- python3 train.py --epochs 2
Started as plain `python3 train.py` (no torchrun): one process per replica, its rank from
the operator's RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT (a TrainJob node's PET_*).
"""
import argparse
import math
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm


def parse_args():
    p = argparse.ArgumentParser(description="PyTorch DDP with a tqdm bar")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=65536)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    return p.parse_args()


def init_distributed():
    env = os.environ
    if "RANK" not in env and "PET_NODE_RANK" in env:  # a TrainJob node without torchrun
        env["RANK"], env["WORLD_SIZE"] = env["PET_NODE_RANK"], env["PET_NNODES"]
        env["MASTER_ADDR"], env["MASTER_PORT"] = env["PET_MASTER_ADDR"], env["PET_MASTER_PORT"]
    world = int(env.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group("gloo")
    return int(env.get("RANK", "0")), world


def spirals(n, seed=42):
    g = torch.Generator().manual_seed(seed)
    label = torch.randint(0, 2, (n,), generator=g)
    t = torch.rand(n, generator=g) * 3 * math.pi
    x = torch.stack([t * torch.cos(t + math.pi * label), t * torch.sin(t + math.pi * label)], 1)
    return x / (3 * math.pi) + 0.02 * torch.randn(n, 2, generator=g), label


def main():
    args = parse_args()
    rank, world = init_distributed()
    torch.manual_seed(0)
    x, y = spirals(args.samples)
    data = TensorDataset(x, y)
    sampler = DistributedSampler(data, world, rank) if world > 1 else None
    loader = DataLoader(data, args.batch_size, shuffle=sampler is None, sampler=sampler)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 2))
    if world > 1:
        model = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        bar = tqdm(loader, desc=f"Epoch {epoch}/{args.epochs}", disable=rank != 0)
        for inputs, labels in bar:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            bar.set_postfix(loss=f"{loss.item():.4f}")
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
