#!/usr/bin/python3
"""PyTorch's Python DDP on the IDX data kftrain-trainer reads: the reference that
bench/trainer_vs_pytorch.sh compares the trainer with. Same models, sampler (DistributedSampler),
SGD settings, evaluation after each epoch and thread settings as the trainer; rank 0 prints one
JSON line per epoch like the trainer's `epoch` event (global samples/s of the training steps).
--memory-format channels-last lays the model and images out as the trainer does on the CPU.

  WORLD_SIZE=1 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 \\
      python3 bench/pytorch_ddp.py --data-dir DIR --model mnist-cnn --batch-size 32 --threads 1
"""
import argparse
import json
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler


def read_idx(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        pixels = torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8)
        return pixels.view(count, 1, rows, cols)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


class MnistCnn(nn.Module):
    def __init__(self, channels, rows, cols):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(64 * ((rows - 4) // 2) * ((cols - 4) // 2), 128)
        self.fc2 = nn.Linear(128, 10)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout1(x).flatten(1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return self.fc2(x)


class Mlp(nn.Module):
    def __init__(self, inputs):
        super().__init__()
        self.fc1 = nn.Linear(inputs, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


def conv3x3(cin, cout, stride):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = conv3x3(cin, cout, stride), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = conv3x3(cout, cout, 1), nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (self.shortcut(x) if self.shortcut is not None else x))


class ResNet18(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.stem, self.bn = conv3x3(channels, 64, 1), nn.BatchNorm2d(64)
        layers, cin = [], 64
        for cout in (64, 128, 256, 512):
            stride = 1 if cout == 64 else 2
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, 10)

    def forward(self, x):
        x = self.layers(F.relu(self.bn(self.stem(x))))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def make_model(name, channels, rows, cols):
    if name == "mnist-cnn":
        return MnistCnn(channels, rows, cols)
    if name == "mlp":
        return Mlp(channels * rows * cols)
    return ResNet18(channels)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--model", default="mnist-cnn", choices=["mnist-cnn", "mlp", "resnet18"])
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--memory-format", default="contiguous",
                    choices=["contiguous", "channels-last"],
                    help="layout of the model and the images (PyTorch's default: contiguous)")
    a = ap.parse_args()
    layout = torch.channels_last if a.memory_format == "channels-last" \
        else torch.contiguous_format

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world)

    images = read_idx(os.path.join(a.data_dir, "train-images-idx3-ubyte"))
    labels = read_idx(os.path.join(a.data_dir, "train-labels-idx1-ubyte"))
    test_images = read_idx(os.path.join(a.data_dir, "t10k-images-idx3-ubyte"))
    test_labels = read_idx(os.path.join(a.data_dir, "t10k-labels-idx1-ubyte"))
    _, channels, rows, cols = images.shape
    model = make_model(a.model, channels, rows, cols).to(memory_format=layout)
    if world > 1:
        model = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    sampler = DistributedSampler(range(len(labels)), num_replicas=world, rank=rank,
                                 shuffle=True, seed=a.seed)

    def batch(imgs, labs, idx):
        x = imgs.index_select(0, idx).float().div_(255.0).sub_(0.1307).div_(0.3081)
        return x.to(memory_format=layout), labs.index_select(0, idx)

    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        order = torch.tensor(list(sampler), dtype=torch.long)
        model.train()
        start = time.perf_counter()
        seen = loss_sum = 0.0
        for i in range(0, len(order), a.batch_size):
            x, y = batch(images, labels, order[i:i + a.batch_size])
            optimizer.zero_grad(set_to_none=True)  # PyTorch 2's default; 1.13 zeroes in place
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * len(y)
            seen += len(y)
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            shard = torch.arange(rank, len(test_labels), world)
            for i in range(0, len(shard), 256):
                x, y = batch(test_images, test_labels, shard[i:i + 256])
                F.cross_entropy(model(x), y, reduction="sum").item()
        if rank == 0:
            print(json.dumps({"event": "epoch", "epoch": epoch + 1,
                              "loss": loss_sum / max(seen, 1),
                              "samples_per_sec": seen * world / seconds}), flush=True)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
