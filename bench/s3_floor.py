"""The local S3 server's own floor (not part of the tests): how long it
takes to serve the requests of a chunk-per-request benchmark with no
library at all, one after another and all at once. bench/v3_run.sh prints
it under its S3 rows: against moto, every client's whole read of N chunks
takes at least N times the per-request time, however many it sends at once.

Usage: s3_floor.py URL [N] [SIZE]
  URL   http://host:port/bucket (AWS_ACCESS_KEY_ID etc. in the environment)
  N     objects (default 64, the chunks of the v3 benchmark's S3 array)
  SIZE  bytes each (default 131072: a 32^3 float32 chunk)

Prints a Markdown table: requests, seconds, milliseconds per request, for
PUT and GET, sequential and concurrent, and ranged GETs of SIZE from one
object of N x SIZE (a shard's inner chunks) (obstore, the Rust client
zarr-python uses)."""
import asyncio
import os
import sys
import time
import urllib.parse

from obstore.store import S3Store
import obstore

url = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 64
size = int(sys.argv[3]) if len(sys.argv) > 3 else 131072
u = urllib.parse.urlparse(url)
store = S3Store(
    u.path.strip("/"),
    endpoint=f"{u.scheme}://{u.netloc}",
    region=os.environ.get("AWS_REGION", "us-east-1"),
    access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
    secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    client_options={"allow_http": True},
)
body = os.urandom(size)
prefix = f"s3-floor-{os.getpid()}"


def best(f, repeat=3):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


def put_seq():
    for i in range(n):
        obstore.put(store, f"{prefix}/{i}", body)


def get_seq():
    for i in range(n):
        assert len(obstore.get(store, f"{prefix}/{i}").bytes()) == size


async def put_all():
    await asyncio.gather(*[obstore.put_async(store, f"{prefix}/{i}", body) for i in range(n)])


async def get_all():
    async def one(i):
        r = await obstore.get_async(store, f"{prefix}/{i}")
        assert len(await r.bytes_async()) == size

    await asyncio.gather(*[one(i) for i in range(n)])


# a shard: one object of all n, read by ranges of SIZE one after another
# (a random read of inner chunks; moto reads the whole object for each)
obstore.put(store, f"{prefix}/shard", body * n)


def ranges_seq():
    for i in range(n):
        assert len(obstore.get_range(store, f"{prefix}/shard", start=i * size, end=(i + 1) * size)) == size


rows = [
    ("PUT, one after another", best(put_seq)),
    ("PUT, all at once", best(lambda: asyncio.run(put_all()))),
    ("GET, one after another", best(get_seq)),
    ("GET, all at once", best(lambda: asyncio.run(get_all()))),
    (f"ranged GET of {size} bytes from one object of {n * size}, one after another", best(ranges_seq)),
]
print(f"\nThe server alone: {n} objects of {size} bytes (obstore, best of 3)\n")
print("| requests | s | ms per request |")
print("| --- | ---: | ---: |")
for name, t in rows:
    print(f"| {name} | {t:.3f} | {t / n * 1e3:.2f} |")
obstore.delete(store, [f"{prefix}/{i}" for i in range(n)] + [f"{prefix}/shard"])
