# A training loop as many scripts write it: a tqdm bar per epoch, its loss as a postfix.
import os
import sys
import time

from tqdm import tqdm

gate = sys.argv[1]
epochs, steps = 2, 20
for epoch in range(1, epochs + 1):
    with tqdm(total=steps, desc=f"Epoch {epoch}/{epochs}", mininterval=0) as bar:
        for step in range(steps):
            if epoch == epochs and step == steps // 2:
                while not os.path.exists(gate):
                    time.sleep(0.05)
            time.sleep(0.02)
            bar.set_postfix(loss=f"{1.0 / (epoch * steps + step + 1):.4f}", refresh=False)
            bar.update(1)
