"""The Starlette gateway: HTTP and WebSocket API v1, live per-seat views, the browser client."""
