#!/usr/bin/env python3
"""Fill packaging/krew/kftrain.yaml from built release tarballs; print the manifest.

  fill_manifest.py --version v0.1.0 --homepage https://example.org/kftrain \
      --base-url https://example.org/releases/v0.1.0 \
      --tarball linux/amd64=kftrain_v0.1.0_linux_amd64.tar.gz \
      --tarball linux/arm64=kftrain_v0.1.0_linux_arm64.tar.gz > kftrain.yaml

Each platform's uri is BASE_URL/<tarball's file name> and its sha256 is computed from the
tarball itself, which must hold kftrain and LICENSE at its top. Every platform of the
template needs a tarball: nothing is left as a placeholder.
"""
import argparse
import hashlib
import os
import re
import sys
import tarfile

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kftrain.yaml")


def fail(message):
    print("fill_manifest: error: " + message, file=sys.stderr)
    sys.exit(2)


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_tarball(platform, path):
    if not os.path.isfile(path):
        fail(f"--tarball {platform}: no such file: {path}")
    try:
        with tarfile.open(path, "r:gz") as tar:
            names = {os.path.normpath(n) for n in tar.getnames()}
    except (tarfile.TarError, OSError) as e:
        fail(f"--tarball {platform}: not a .tar.gz: {path}: {e}")
    for needed in ("kftrain", "LICENSE"):
        if needed not in names:
            fail(f"--tarball {platform}: {path} has no {needed} at its top")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="release version, e.g. v0.1.0")
    parser.add_argument("--homepage", required=True, help="the project's home page")
    parser.add_argument("--base-url", required=True, help="where the tarballs are published")
    parser.add_argument("--tarball", action="append", default=[], metavar="OS/ARCH=FILE")
    parser.add_argument("--template", default=TEMPLATE)
    args = parser.parse_args()

    if not re.fullmatch(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", args.version):
        fail(f"--version must be vMAJOR.MINOR.PATCH, as krew requires (got {args.version})")
    for flag, url in (("--homepage", args.homepage), ("--base-url", args.base_url)):
        if not url.startswith("https://") or re.search(r'[\s"\\]', url):
            fail(f"{flag} must be an https:// URL without spaces, quotes or backslashes "
                 f"(got {url})")
    values = {"VERSION": args.version, "HOMEPAGE": args.homepage}
    for given in args.tarball:
        platform, sep, path = given.partition("=")
        if not sep or not re.fullmatch(r"[a-z0-9]+/[a-z0-9]+", platform):
            fail(f"--tarball must be OS/ARCH=FILE (got {given})")
        check_tarball(platform, path)
        key = platform.replace("/", "_").upper()
        values["URI_" + key] = args.base_url.rstrip("/") + "/" + os.path.basename(path)
        values["SHA256_" + key] = sha256(path)

    with open(args.template, encoding="utf-8") as f:
        template = f.read()
    needed = sorted(set(re.findall(r"\{\{([A-Z0-9_]+)\}\}", template)))
    missing = [name for name in needed if name not in values]
    if missing:
        platforms = sorted({m.split("_", 1)[1].lower().replace("_", "/")
                            for m in missing if "_" in m and m.startswith(("URI_", "SHA256_"))})
        fail("no --tarball for " + ", ".join(platforms) if platforms
             else "nothing to fill " + ", ".join(missing) + " with")
    text = re.sub(r"\{\{([A-Z0-9_]+)\}\}", lambda m: values[m.group(1)], template)
    # The comment at the top describes the template, not the filled manifest.
    text = "\n".join(line for line in text.split("\n") if not line.startswith("#")).lstrip("\n")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
