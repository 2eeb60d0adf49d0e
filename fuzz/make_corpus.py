#!/usr/bin/env python3
"""Write the fuzz targets' seed inputs into fuzz/corpus/<target>/ from real inputs in the
repository: the example job files and templates, the fake cluster's kubectl JSON (trimmed to
a few items), a tiny MNIST (IDX) and CIFAR-10 file, and checkpoint frames. Run it from the
repository root when those inputs change; libFuzzer grows its own corpus from these."""

import gzip
import json
import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
KUBE = ROOT / "test" / "data" / "kube"


def write(target, name, data):
    path = CORPUS / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def trimmed_json(name, items=2):
    doc = json.loads((KUBE / name).read_text())
    if isinstance(doc.get("items"), list):
        doc["items"] = doc["items"][:items]
    return json.dumps(doc, separators=(",", ":"))


def job_files():
    for name in ["mnist-ddp.yaml", "mnist-local.yaml", "mnist-trainjob.yaml",
                 "mnist-tune-local.yaml"]:
        write("fuzz_job_file", name, (ROOT / "examples" / name).read_bytes())
    ddp = (ROOT / "examples" / "mnist-ddp.yaml").read_text()
    overrides = ["replicas=2", "trainer.epochs=5", "env.NCCL_DEBUG=INFO",
                 "resources.memory=16Gi", "-n team-a"]
    write("fuzz_job_file", "mnist-ddp-set", "\0".join([ddp] + overrides))
    write("fuzz_job_file", "mnist-ddp-trainjob", "\0".join([ddp, "--kind TrainJob"]))
    for name in ["tensorflow/tfjob.yaml", "xgboost/xgboostjob.yaml", "jax/jaxjob.yaml",
                 "deepspeed/trainjob.yaml"]:
        write("fuzz_job_file", name.replace("/", "-"), (ROOT / "examples" / name).read_bytes())
    tf = (ROOT / "examples" / "tensorflow" / "tfjob.yaml").read_text()
    write("fuzz_job_file", "tfjob-roles-set", "\0".join([tf, "roles.ps=2", "roles.evaluator=1"]))


def templates():
    for name in ["pytorchjob.yaml", "trainjob.yaml", "tfjob.yaml", "xgboostjob.yaml",
                 "jaxjob.yaml"]:
        write("fuzz_template", name, (ROOT / "templates" / name).read_bytes())


def kube_json():
    for name in ["job-v19-running.json", "job-v13-running.json", "job-v19-failed.json",
                 "trainjob-v23-complete.json", "trainjob-v23-pending.json",
                 "pods-v19-crashloop.json", "pods-trainjob-v23-running.json",
                 "events-v19-unschedulable.json", "events-trainjob-v23-deadline.json"]:
        write("fuzz_kube_json", name, trimmed_json(name))


def experiments():
    for experiment, trials in [("experiment-katib-running.json", "trials-katib-running.json"),
                               ("experiment-katib-trainjob.json", "trials-katib-trainjob.json")]:
        text = trimmed_json(experiment) + "\0" + trimmed_json(trials)
        write("fuzz_experiment", experiment.replace(".json", ""), text)


def image_data():
    # Mode byte: bit 0 IDX (else CIFAR-10), bit 1 gzipped, bit 2 the data itself as the .gz.
    images = struct.pack(">IIII", 2051, 2, 2, 3) + bytes(range(12))
    labels = struct.pack(">II", 2049, 2) + bytes([3, 9])
    idx = struct.pack(">H", len(images)) + images + labels
    write("fuzz_image_data", "mnist-2", bytes([1]) + idx)
    write("fuzz_image_data", "mnist-2-gz", bytes([3]) + idx)
    cifar = bytes([7]) + bytes(i % 256 for i in range(3 * 32 * 32))
    write("fuzz_image_data", "cifar-1", bytes([0]) + cifar)
    write("fuzz_image_data", "cifar-1-gz-raw", bytes([6]) + gzip.compress(cifar))


def frames():
    def frame(payload, version=1):
        header = b"KFCKPT\r\n" + struct.pack("<IIQ", version, zlib.crc32(payload), len(payload))
        return header + payload + b"KFCKEND\n"

    write("fuzz_checkpoint_frame", "small", frame(b"PK\x03\x04archive"))
    write("fuzz_checkpoint_frame", "empty-payload", frame(b""))
    write("fuzz_checkpoint_frame", "legacy", b"PK\x03\x04" + bytes(28))
    write("fuzz_checkpoint_frame", "truncated", frame(b"0123456789")[:-3])


def tar_streams():
    import io
    import tarfile

    def archive(fmt, members):
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w", format=fmt) as tar:
            for info, data in members:
                tar.addfile(info, io.BytesIO(data) if data is not None else None)
        return out.getvalue()

    def member(name, kind=tarfile.REGTYPE, data=None, mode=0o644, link=""):
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.linkname = kind, mode, link
        info.size = len(data) if data is not None else 0
        return info, data

    plain = [member("./", tarfile.DIRTYPE, mode=0o777), member("./train/", tarfile.DIRTYPE),
             member("./train/a.bin", data=bytes(range(256)) * 3, mode=0o4755),
             member("./train/b", tarfile.LNKTYPE, link="./train/a.bin"),
             member("./link", tarfile.SYMTYPE, link="/etc"), member("./pipe", tarfile.FIFOTYPE)]
    write("fuzz_tar_stream", "ustar", archive(tarfile.USTAR_FORMAT, plain))
    long_name = "d/" + "n" * 150
    write("fuzz_tar_stream", "gnu-long", archive(tarfile.GNU_FORMAT,
                                                 [member(long_name, data=b"x")]))
    write("fuzz_tar_stream", "pax", archive(tarfile.PAX_FORMAT,
                                            [member("p/" + "q" * 200, data=b"pax")]))
    write("fuzz_tar_stream", "escape", archive(tarfile.USTAR_FORMAT,
                                               [member("../up", data=b"u"),
                                                member("/abs", data=b"a")]))


def code_folders():
    """An ignore file, then the paths of a folder, NUL-separated."""
    paths = ["train.py", "pkg/helper.py", ".env", ".env.example", ".ssh/id_rsa", "..data",
             "pkg/..2026_01_01/x", "...", "a b.txt", "pkg_2fhelper.py", "logs/deep/a.log",
             "out/README", "caf\xc3\xa9.py"]
    write("fuzz_code_folder", "gitignore",
          "\0".join(["# build output\n*.tmp\n/cache.bin\n**/logs/**\nout/**\n!out/README\n"
                     "\\!bang\n\\#hash\ntrailing\\ \n[!a-c]*.py[co]\n"] + paths))
    write("fuzz_code_folder", "secrets-back", "\0".join(["!.env.example\n!*.pem\n.ssh/\n"] + paths))


def quantities():
    """Quantities as job files, nodes and quotas give them, and the hostile ones."""
    for name, text in [("milli", "500m"), ("binary", "1.5Gi"), ("exponent", "1e3"),
                       ("negative", "-2Ki"), ("long", "1" + "0" * 400),
                       ("fine", "0." + "0" * 400 + "1"), ("huge-exponent", "1e99999"),
                       ("decimal-suffix", "129e6"), ("nano", "1n")]:
        write("fuzz_quantity", name, text)


if __name__ == "__main__":
    job_files()
    templates()
    kube_json()
    experiments()
    image_data()
    frames()
    tar_streams()
    code_folders()
    quantities()
