"""The web, fetched as a careful browser extension would: http(s) only, no credentials, public
addresses only (fetch.py; guard.py checks each connection), for context URLs and READ."""
