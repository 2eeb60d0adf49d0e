#!/usr/bin/env python3
"""JAX across processes, started as the Training Operator (JAXJob) or Kubeflow
Trainer (jax-distributed runtime) starts it.

- JAXJob: COORDINATOR_ADDRESS (Worker 0's host), COORDINATOR_PORT,
  NUM_PROCESSES and PROCESS_ID.
- jax-distributed: JAX_COORDINATOR_ADDRESS (host:port), JAX_NUM_PROCESSES and
  JAX_PROCESS_ID.
`kftrain submit --local` sets the same variables, pointing at 127.0.0.1. Each
process then sums a value over every device of every process, which only
works once they all reached the coordinator.
"""
import os

import jax
import jax.numpy as jnp


def initialize():
    env = os.environ
    if "JAX_COORDINATOR_ADDRESS" in env:  # Kubeflow Trainer v2
        address = env["JAX_COORDINATOR_ADDRESS"]
        count, me = env["JAX_NUM_PROCESSES"], env["JAX_PROCESS_ID"]
    else:  # Training Operator v1
        address = f"{env['COORDINATOR_ADDRESS']}:{env['COORDINATOR_PORT']}"
        count, me = env["NUM_PROCESSES"], env["PROCESS_ID"]
    jax.distributed.initialize(coordinator_address=address, num_processes=int(count),
                               process_id=int(me))


def main():
    initialize()
    ones = jnp.ones(jax.local_device_count())
    total = jax.pmap(lambda x: jax.lax.psum(x, "devices"), axis_name="devices")(ones)
    if jax.process_index() == 0:
        print(f"devices={int(total[0])} processes={jax.process_count()}", flush=True)


if __name__ == "__main__":
    main()
