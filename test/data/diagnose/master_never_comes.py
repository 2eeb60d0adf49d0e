# The master is busy elsewhere and never opens its store; the worker gives up after 5 s.
import datetime
import os
import time

import torch.distributed as dist

if os.environ["RANK"] == "0":
    print("master: loading a huge dataset first", flush=True)
    time.sleep(300)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
