"""`mathloop serve`: a read-only web view of a proof store (Starlette + uvicorn, extra `web`)."""
