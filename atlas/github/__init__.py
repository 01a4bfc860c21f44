"""GitHub: the REST client and its errors, and importing or syncing a repository's issues as a dataset."""
