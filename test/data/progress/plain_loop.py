# A plain loop that prints where it is: "epoch 2/2 step 10/20 loss 0.0291".
import os
import sys
import time

gate = sys.argv[1]
epochs, steps = 2, 20
for epoch in range(1, epochs + 1):
    for step in range(1, steps + 1):
        if epoch == epochs and step == steps // 2 + 1:
            while not os.path.exists(gate):
                time.sleep(0.05)
        time.sleep(0.02)
        print(f"epoch {epoch}/{epochs} step {step}/{steps} loss {1.0 / (epoch * steps + step):.4f}", flush=True)
