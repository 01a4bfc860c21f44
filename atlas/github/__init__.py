"""GitHub: import an export, sync a repository over REST, and the tracker that writes to it."""
