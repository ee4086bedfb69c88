"""zarr-python reads what tests/cloud.rs (for_zarr_python_azure) wrote
through our library on Azurite (adlfs, the development account):
t = arange(24).reshape(4, 6) * 0.5, title = "from nczarr-rs". Run by
scripts/test-all.sh after cargo test, with scripts/azurite-server.sh's
server. (GCS through gcsfs the same way, when NCZARR_RS_GCS_TEST_URL and
GOOGLE_BASE_URL name a server.)"""
import os
import sys
import numpy as np
import zarr
import adlfs
from zarr.storage import FsspecStore

want = np.arange(24, dtype="f8").reshape(4, 6) * 0.5
stores = {}
if os.environ.get("NCZARR_RS_GCS_TEST_URL"):
    import gcsfs
    bucket = os.environ["NCZARR_RS_GCS_TEST_URL"].rstrip("/").rsplit("/", 1)[1]
    fs = gcsfs.GCSFileSystem(endpoint_url=os.environ["GOOGLE_BASE_URL"], token="anon", asynchronous=True)
    stores["gcs (gcsfs)"] = lambda name: FsspecStore(fs, path=f"{bucket}/readback/{name}", read_only=True)
az = os.environ["NCZARR_RS_AZURE_TEST_URL"].rstrip("/")
endpoint, container = az.rsplit("/", 1)
afs = adlfs.AzureBlobFileSystem(
    connection_string="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
    f"AccountKey={os.environ['AZURE_STORAGE_ACCOUNT_KEY']};BlobEndpoint={endpoint};",
    asynchronous=True)
stores["azure (adlfs)"] = lambda name: FsspecStore(afs, path=f"{container}/readback/{name}", read_only=True)
for service, store in stores.items():
    for name, fmt in [("v2.zarr", 2), ("v3.zarr", 3)]:
        g = zarr.open_group(store(name), mode="r", zarr_format=fmt)
        assert g.attrs["title"] == "from nczarr-rs", (service, name, dict(g.attrs))
        got = g["t"][...]
        assert np.array_equal(got, want), (service, name, got)
        print(f"cloud_readback: {service} {name} read by zarr-python")
# adlfs's and gcsfs's sessions would be closed by finalizers after the
# event loop ended, printing tracebacks: everything was checked, leave now
sys.stdout.flush()
os._exit(0)
