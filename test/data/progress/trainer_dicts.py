# The Hugging Face Trainer's output, as it prints it: one tqdm bar over every step of the run,
# and its log dicts written above the bar, the last one with train_runtime.
import os
import sys
import time

from tqdm import tqdm

gate = sys.argv[1]
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0  # a search's hyperparameter
epochs, steps_per_epoch = 2, 10
total = epochs * steps_per_epoch
start = time.time()
with tqdm(total=total, mininterval=0) as bar:
    for step in range(1, total + 1):
        if step == total // 2 + 1:
            while not os.path.exists(gate):
                time.sleep(0.05)
        time.sleep(0.02)
        bar.update(1)
        if step % 5 == 0:
            logs = {"loss": round(scale * 2.0 / step, 6), "grad_norm": 1.25, "learning_rate": 5e-05 * (1 - step / total),
                    "epoch": round(step / steps_per_epoch, 2)}
            bar.write(str(logs))
runtime = time.time() - start
print({"train_runtime": round(runtime, 4), "train_samples_per_second": round(total * 8 / runtime, 3),
       "train_steps_per_second": round(total / runtime, 3), "train_loss": round(scale * 0.25, 6), "epoch": float(epochs)})
