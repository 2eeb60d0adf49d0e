# Keras's model.fit(verbose=1) when stdout is not a terminal: "Epoch i/N", then a line per
# update of the epoch's bar, and its closing line with the epoch's time.
import os
import sys
import time

gate = sys.argv[1]
epochs, steps = 2, 20
for epoch in range(1, epochs + 1):
    print(f"Epoch {epoch}/{epochs}", flush=True)
    start = time.time()
    for step in range(1, steps + 1):
        if epoch == epochs and step == steps // 2 + 1:
            while not os.path.exists(gate):
                time.sleep(0.05)
        time.sleep(0.02)
        done = int(30 * step / steps)
        bar = "=" * max(done - 1, 0) + (">" if step < steps else "=") + "." * (30 - done)
        loss = 1.0 / (epoch * steps + step)
        if step < steps:
            eta = round((steps - step) * 0.02)
            print(f"{step:>2}/{steps} [{bar}] - ETA: {eta}s - loss: {loss:.4f} - accuracy: 0.8765", flush=True)
        else:
            took = time.time() - start
            print(f"{step}/{steps} [{bar}] - {took:.0f}s {took * 1000 / steps:.0f}ms/step - loss: {loss:.4f} - accuracy: 0.9012",
                  flush=True)
