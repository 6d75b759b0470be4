import warnings

# Starlette 1.x suggests httpx2 for its TestClient; the pinned httpx works the same for us.
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
