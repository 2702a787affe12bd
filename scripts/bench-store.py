#!/usr/bin/env python3
"""parhash-store verify against `rclone check` and against hashing the local tree alone, on a
tree uploaded to a local S3 server; and verify's peak memory from 10^4 to 10^6 objects.

    target/py-venv/bin/python scripts/bench-store.py [--files 10000] [--rounds 5]
        [--parhash target/release/parhash] [--work DIR] [--memory 10000 100000 1000000]
        [--server moto | --server target/s3-server]

Run with the venv scripts/test-python.sh makes (parhash, boto3, moto[server]) and `rclone` on
PATH. The server is moto's (Python, in its own process) or scripts/s3-server (gofakes3's
handlers, Go: scripts/build-s3-server.sh builds it), which costs the shared cores far less per
request, so that what is timed is the clients. The tree (made and uploaded once into WORK,
seeded): four fifths single-part objects of 100 B - 256 KiB (log-uniform), one fifth multipart
uploads of 2-4 parts of 64 KiB, an exact multiple (moto is started with
S3_UPLOAD_PART_MIN_SIZE=65536 so that 2,000 multipart objects fit a small disk, gofakes3 has no
minimum; verify gets `--min-part-size 65536`; rclone cannot check them: their ETag is no MD5).
No object has an additional checksum (what rclone can check: MD5 ETags; an object with one
costs a HeadObject, timed alone as `heads`). The commands alternate through
scripts/time-alternating.py (medians):
verify (`parhash store verify`, the binary), the Python package's `parhash-store verify`,
`rclone check`, `parhash sum -r -a md5` of the tree, and the listing alone
(ListObjectsV2, boto3, page after page; the same through parhash.store's client, which reads
the pages itself), the listing as an ideal client asks it (plain GETs,
the prefix's folders 8 at a time, nothing parsed but what the next request needs: the least
time the server takes to list the prefix) and HeadObject of the first 1,000 objects (16
threads), which show what the server costs.

Memory: a child process runs the same `parhash-store verify` code in-process on N objects
whose listing a stub client generates (folders of 10,000 keys named by the delimiter's listing,
each listed in pages of 1,000 keys, HeadObject answered in memory) and
whose local files a stub walk names in key order (every name one real 1 KiB file: 10^6 files
are not made); its peak RSS (VmHWM) is printed per N. Then `parhash store verify`'s (the
binary's) peak RSS per N, against a local HTTP server that makes its N keys' ListObjectsV2
pages as they are asked for (`binary_memory`: the first 10,000 keys have a local file).
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUCKET = "bench"
PART = 64 << 10


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(work, server):
    """moto's server (Python) or scripts/s3-server (gofakes3, Go), on a free local port."""
    port = free_port()
    env = dict(os.environ, S3_UPLOAD_PART_MIN_SIZE=str(PART))
    if server == "moto":
        command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    else:
        command = [server, "-addr", f"127.0.0.1:{port}"]
    log = open(work / "server.log", "wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process, url
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the S3 server did not start (see {work / 'server.log'})")


def make_tree(tree, files):
    """(name, data size, multipart, checksum) of every file, written below `tree`."""
    rng = random.Random(58)
    plan = []
    for i in range(files):
        name = f"d{i % 50:02}/f{i:06}"
        if i % 5 == 4:
            plan.append((name, rng.randint(2, 4) * PART, True, None))
        else:
            size = int(10 ** rng.uniform(2, 5.42))  # 100 B - 256 KiB
            plan.append((name, size, False, None))
    for name, size, _, _ in plan:
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(size))
    return plan


def upload(url, tree, plan):
    import boto3
    from botocore.config import Config

    config = Config(max_pool_connections=16, request_checksum_calculation="when_required")
    s3 = boto3.client("s3", endpoint_url=url, config=config)
    s3.create_bucket(Bucket=BUCKET)

    def one(item):
        name, _, multipart, checksum = item
        data = (tree / name).read_bytes()
        key = "t/" + name
        if not multipart:
            extra = {"ChecksumAlgorithm": checksum} if checksum else {}
            s3.put_object(Bucket=BUCKET, Key=key, Body=data, **extra)
            return
        up = s3.create_multipart_upload(Bucket=BUCKET, Key=key)
        parts = []
        for n, start in enumerate(range(0, len(data), PART), 1):
            done = s3.upload_part(Bucket=BUCKET, Key=key, UploadId=up["UploadId"], PartNumber=n,
                                  Body=data[start : start + PART])  # fmt: skip
            parts.append({"PartNumber": n, "ETag": done["ETag"]})
        s3.complete_multipart_upload(Bucket=BUCKET, Key=key, UploadId=up["UploadId"],
                                     MultipartUpload={"Parts": parts})  # fmt: skip

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(one, plan))


LISTING = """
import boto3, sys
s3 = boto3.client("s3", endpoint_url=sys.argv[1])
n = sum(len(p.get("Contents", [])) for p in s3.get_paginator("list_objects_v2").paginate(Bucket="bench", Prefix="t/"))
assert n == int(sys.argv[2]), n
"""

# The same pages through parhash.store's client (botocore sends them; parhash reads them).
LISTING_PARHASH = """
import sys, parhash.store
s3 = parhash.store.client(sys.argv[1])
n = sum(len(p.get("Contents", [])) for p in s3.get_paginator("list_objects_v2").paginate(Bucket="bench", Prefix="t/"))
assert n == int(sys.argv[2]), n
"""

# The listing as an ideal client asks it: plain GETs (neither server checks a signature), nothing parsed
# but the keys' count, the folders and the continuation token; the folders 8 at a time.
IDEAL = """
import concurrent.futures, http.client, re, sys, threading, urllib.parse
url, local = urllib.parse.urlparse(sys.argv[1]), threading.local()
def pages(prefix, delimiter=""):
    n, folders, token = 0, [], None
    while True:
        if not hasattr(local, "c"):
            local.c = http.client.HTTPConnection(url.hostname, url.port)
        q = {"list-type": "2", "prefix": prefix, "delimiter": delimiter}
        if token:
            q["continuation-token"] = token
        local.c.request("GET", "/bench?" + urllib.parse.urlencode(q))
        body = local.c.getresponse().read()
        n += body.count(b"<Contents>")
        folders += [f.decode() for f in re.findall(rb"<CommonPrefixes>\\s*<Prefix>(.*?)</Prefix>", body)]
        token = re.search(rb"<NextContinuationToken>(.*?)</NextContinuationToken>", body)
        if not token:
            return n, folders
        token = token.group(1).decode()
n, folders = pages("t/", "/")
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    n += sum(k for k, _ in pool.map(pages, folders))
assert n == int(sys.argv[2]), n
"""

HEADS = """
import boto3, sys, concurrent.futures
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], config=Config(max_pool_connections=18))
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="bench", Prefix="t/", MaxKeys=1000)["Contents"]]
with concurrent.futures.ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda k: s3.head_object(Bucket="bench", Key=k, ChecksumMode="ENABLED"), keys))
"""


def timings(args, url, tree):
    py = sys.executable
    store = Path(py).parent / "parhash-store"
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}  # rclone refuses it on http
    env.update(RCLONE_CONFIG=str(args.work / "rclone.conf"), RCLONE_CONFIG_X_TYPE="s3",
               RCLONE_CONFIG_X_PROVIDER="Other", RCLONE_CONFIG_X_ENDPOINT=url,
               RCLONE_CONFIG_X_ACCESS_KEY_ID="bench", RCLONE_CONFIG_X_SECRET_ACCESS_KEY="bench",
               RCLONE_CONFIG_X_REGION="us-east-1")  # fmt: skip
    target = f"{tree} s3://{BUCKET}/t --endpoint-url {url} --quiet --min-part-size {PART}"
    commands = [
        f"verify={args.parhash} store verify {target}",
        f"verify-python={store} verify {target}",
        f"rclone=rclone check {tree} x:{BUCKET}/t",
        f"sum={args.parhash} sum -r -a md5 --no-progress {tree}",
        f"listing={py} -c '{LISTING}' {url} {args.files}",
        f"listing-parhash={py} -c '{LISTING_PARHASH}' {url} {args.files}",
        f"listing-ideal={py} -c '{IDEAL}' {url} {args.files}",
        f"heads={py} -c '{HEADS}' {url}",
    ]
    # The tree read back into the page cache before every run (`--before`): some machines reclaim
    # idle page cache within minutes, and every command here reads the tree as cached.
    warm = f"find {tree} -type f -exec cat {{}} + > /dev/null"
    subprocess.run([py, str(REPO / "scripts" / "time-alternating.py"), "--rounds", str(args.rounds),
                    "--warmup", "1", "--before", warm, *commands], env=env, check=True)  # fmt: skip


def memory_child(n):
    """verify of n simulated objects in this process; prints {objects, seconds, max_rss_kib}."""
    import parhash.store as store

    sample = Path(os.environ["BENCH_STORE_SAMPLE"])
    data = sample.read_bytes()
    etag = '"' + hashlib.md5(data).hexdigest() + '"'

    per_folder = 10_000

    def name(i):
        return f"{i // per_folder:04}/{i:08}"

    class Stub:
        """Folders of 10,000 keys: the delimiter's listing names them, each is listed in pages;
        the whole prefix in pages too (instant pages: verify lists it so)."""

        def get_paginator(self, _name):
            return self

        def paginate(self, Bucket, Prefix, Delimiter=None, **_):
            if not Delimiter and Prefix.count("/") == 1:  # the whole prefix, page after page
                for start in range(0, n, 1000):
                    yield {"Contents": [{"Key": f"{Prefix}{name(i)}", "Size": len(data), "ETag": etag}
                                        for i in range(start, min(n, start + 1000))],
                           "IsTruncated": start + 1000 < n}  # fmt: skip
                return
            if Delimiter and Prefix.count("/") == 1:
                folders = range((n + per_folder - 1) // per_folder)
                yield {"CommonPrefixes": [{"Prefix": f"{Prefix}{f:04}/"} for f in folders]}
                return
            first = int(Prefix.rstrip("/").rsplit("/", 1)[1]) * per_folder
            for start in range(first, min(n, first + per_folder), 1000):
                yield {"Contents": [{"Key": f"{Prefix[: -5]}{name(i)}", "Size": len(data), "ETag": etag}
                                    for i in range(start, min(n, start + 1000))]}  # fmt: skip

        def head_object(self, **_):
            return {"ETag": etag}

    store.client = lambda *a, **k: Stub()
    store.walk = lambda root, start_after=None: ((name(i), str(sample)) for i in range(n))
    began = time.perf_counter()
    with open(os.devnull, "w") as null:
        sys.stdout = null
        code = store.main(["verify", str(sample.parent), f"s3://{BUCKET}/t", "--quiet"])
        sys.stdout = sys.__stdout__
    assert code == 0, code
    # VmHWM, not getrusage's maxrss: that one keeps the forking parent's peak across exec.
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(json.dumps({"objects": n, "seconds": round(time.perf_counter() - began, 1), "peak_rss_kib": peak}))


def binary_memory(parhash, work, counts):
    """`parhash store verify`'s peak RSS for each n of `counts` objects: a local HTTP server
    answers ListObjectsV2 with n keys in pages of 1,000, made as they are asked for (every key
    1 KiB with the MD5 ETag of WORK/binary/sample); the local folder holds the first 10,000 of
    them (each hashed, then matched), the rest are missing. The binary's peak is read by
    `/usr/bin/time`-style rusage of the child alone (os.wait4)."""
    import http.server
    import threading
    import urllib.parse

    data = random.Random(1).randbytes(1024)
    etag = hashlib.md5(data).hexdigest()
    local = work / "binary" / "local"
    local.mkdir(parents=True, exist_ok=True)
    for i in range(min(10_000, max(counts))):
        path = local / f"k{i:08}"
        if not path.exists():
            path.write_bytes(data)
    state = {"n": 0}

    class Listing(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_GET(self):
            query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            start = int(query.get("continuation-token", ["0"])[0])
            n = state["n"]
            end = min(n, start + 1000)
            entries = "".join(f"<Contents><Key>t/k{i:08}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
                              f"<ETag>&quot;{etag}&quot;</ETag><Size>1024</Size><StorageClass>STANDARD</StorageClass>"
                              "</Contents>" for i in range(start, end))  # fmt: skip
            more = f"<NextContinuationToken>{end}</NextContinuationToken>" if end < n else ""
            body = (f'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/'
                    f'2006-03-01/"><Name>{BUCKET}</Name><Prefix>t/</Prefix><KeyCount>{end - start}</KeyCount>'
                    f"<MaxKeys>1000</MaxKeys><IsTruncated>{'true' if more else 'false'}</IsTruncated>{more}"
                    f"{entries}</ListBucketResult>").encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for n in counts:
            state["n"] = n
            began = time.perf_counter()
            command = [parhash, "store", "verify", str(local), f"s3://{BUCKET}/t", "--endpoint-url", url, "--quiet"]
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(child.pid, 0)
            said = child.stderr.read().decode().strip() if child.stderr else ""
            assert os.waitstatus_to_exitcode(status) == (0 if n <= 10_000 else 1), said
            print(json.dumps({"binary_objects": n, "seconds": round(time.perf_counter() - began, 1),
                              "peak_rss_kib": usage.ru_maxrss, "said": said}))  # fmt: skip
    finally:
        server.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--parhash", default=str(REPO / "target" / "release" / "parhash"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/parhash-bench-store"))
    parser.add_argument("--server", default="moto", help="moto, or scripts/build-s3-server.sh's binary")
    parser.add_argument("--memory", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--no-timings", action="store_true", help="memory only")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        return memory_child(args.memory_child)
    args.work.mkdir(parents=True, exist_ok=True)
    # moto takes any credentials; never a real account's.
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1",
                      AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)  # fmt: skip
    os.environ.pop("AWS_PROFILE", None)
    if not args.no_timings:
        tree = args.work / "tree"
        server, url = start_server(args.work, args.server)
        try:
            shutil.rmtree(tree, ignore_errors=True)
            began = time.perf_counter()
            plan = make_tree(tree, args.files)
            upload(url, tree, plan)
            megabytes = sum(s for _, s, _, _ in plan) / 1e6
            multipart = sum(m for _, _, m, _ in plan)
            print(f"{args.files} files made and uploaded in {time.perf_counter() - began:.0f} s; "
                  f"{megabytes:.0f} MB, {multipart} multipart")  # fmt: skip
            timings(args, url, tree)
        finally:
            server.terminate()
            server.wait()
    sample = args.work / "sample" / "f"
    sample.parent.mkdir(exist_ok=True)
    sample.write_bytes(random.Random(1).randbytes(1024))
    for n in args.memory:
        env = dict(os.environ, BENCH_STORE_SAMPLE=str(sample))
        subprocess.run([sys.executable, __file__, "--memory-child", str(n)], env=env, check=True)
    if args.memory:
        binary_memory(args.parhash, args.work, args.memory)


if __name__ == "__main__":
    main()
