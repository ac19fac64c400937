"""The web client: pages served by the service's own Flask app (api/web/pages.py)."""
