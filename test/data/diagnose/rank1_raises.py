# Two ranks all-reduce once; then rank 1 raises, and rank 0's next all-reduce loses its peer.
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
t = torch.ones(4)
dist.all_reduce(t)
print(f"rank {rank}: step 1 done", flush=True)
if rank == 1:
    raise ValueError("bad batch shape (3, 28) in rank 1")
for _ in range(3):
    dist.all_reduce(t)
