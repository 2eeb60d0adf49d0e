# Fails as a program may: its last line holds a secret, bytes that are not UTF-8 and a
# terminal escape.
import sys

sys.stdout.buffer.write(b"connecting with HF_TOKEN=hf_abc\n")
sys.stdout.buffer.write(b"Traceback (most recent call last):\n")
sys.stdout.buffer.write(b"ValueError: caf\xc3 \xff password=hunter2 \x1b[2J\n")
sys.stdout.flush()
sys.exit(1)
