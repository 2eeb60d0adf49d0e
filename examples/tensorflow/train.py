#!/usr/bin/env python3
"""TensorFlow across replicas from TF_CONFIG, as the Training Operator's TFJob
sets it in every replica (locally, `kftrain submit --local` sets the same, each
replica at 127.0.0.1 and a port of its own).

MultiWorkerMirroredStrategy reads TF_CONFIG itself: every worker (and the
chief) trains the same Keras model, its gradients all-reduced; the chief
prints kftrain's progress lines. Parameter servers would take
ParameterServerStrategy instead; see docs/frameworks.md.
"""
import datetime
import json

import numpy as np
import tensorflow as tf


class Progress(tf.keras.callbacks.Callback):
    def __init__(self, epochs):
        super().__init__()
        self.epochs = epochs

    def on_epoch_end(self, epoch, logs=None):
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        if resolver.task_type in ("chief", None) or (
                resolver.task_type == "worker" and resolver.task_id == 0 and
                "chief" not in resolver.cluster_spec().as_dict()):
            now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
            print(json.dumps({"event": "epoch", "time": now[:-6] + "Z", "epoch": epoch + 1,
                              "epochs": self.epochs, "loss": float(logs["loss"]),
                              "accuracy": float(logs["accuracy"]),
                              "percent": 100.0 * (epoch + 1) / self.epochs}), flush=True)


def main():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4096, 20)).astype("float32")
    y = (x[:, 0] - x[:, 1] > 0).astype("float32")
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"),
                                     tf.keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    epochs = 5
    model.fit(x, y, batch_size=64, epochs=epochs, verbose=0, callbacks=[Progress(epochs)])


if __name__ == "__main__":
    main()
